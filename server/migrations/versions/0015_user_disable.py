"""user disable: a user can be disabled (every token refused) and enabled again

Revision ID: 0015_user_disable
Revises: 0014_worker_faults
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_user_disable"
down_revision = "0014_worker_faults"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("users", sa.Column("disabled_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    # A plain DROP COLUMN (SQLite 3.35+ and PostgreSQL): a batch copy would drop and recreate
    # `users`, which every owner's foreign key refers to.
    op.execute("ALTER TABLE users DROP COLUMN disabled_at")
