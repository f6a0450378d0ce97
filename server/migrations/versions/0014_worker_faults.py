"""worker faults: each match counts the attempts voided by the infrastructure apart from
the attempts a bot could have lost

Revision ID: 0014_worker_faults
Revises: 0013_standings
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_worker_faults"
down_revision = "0013_standings"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(
            sa.Column("infra_retries", sa.Integer(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN in place (SQLite 3.35+ and PostgreSQL): a batch copy of
    # ``matches`` would drop the table other tables' foreign keys point at, which SQLite
    # refuses while foreign keys are enforced.
    op.drop_column("matches", "infra_retries")
