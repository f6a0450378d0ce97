"""sprt: head-to-head tests of two bots on paired duplicate blocks

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sprt_tests",
        sa.Column("tournament_id", sa.String(length=32), nullable=False),
        sa.Column("elo0", sa.Float(), nullable=False),
        sa.Column("elo1", sa.Float(), nullable=False),
        sa.Column("alpha", sa.Float(), nullable=False),
        sa.Column("beta", sa.Float(), nullable=False),
        sa.Column("max_pairs", sa.Integer(), nullable=False),
        sa.Column("verdict", sa.String(length=16), nullable=False, server_default="continue"),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.PrimaryKeyConstraint("tournament_id"),
    )


def downgrade() -> None:
    op.drop_table("sprt_tests")
