"""seat traces: per match, per traced seat, its answers, times and stderr

Revision ID: 0009
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seat_traces",
        sa.Column("match_id", sa.String(length=40), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("steps_json", sa.Text(), nullable=False),
        sa.Column("stderr_tail", sa.Text(), nullable=False, server_default=""),
        sa.Column("dropped", sa.Integer(), nullable=False, server_default="0"),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("match_id", "seat"),
    )


def downgrade() -> None:
    op.drop_table("seat_traces")
