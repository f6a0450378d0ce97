"""ladder: the bots that opted in to a game's continuous ladder

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ladder_entries",
        sa.Column("game", sa.String(length=64), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("joined_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"]),
        sa.PrimaryKeyConstraint("game", "bot_id"),
    )


def downgrade() -> None:
    op.drop_table("ladder_entries")
