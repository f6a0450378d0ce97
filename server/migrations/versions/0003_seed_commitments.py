"""seed commitments: SHA-256 of a tournament's seeds at creation, revealed at the end

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(sa.Column("seed_nonce", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("seed_commitment", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("seed_commitment")
        batch.drop_column("seed_nonce")
