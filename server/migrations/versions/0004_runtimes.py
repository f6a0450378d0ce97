"""runtimes: each bot version's runtime, each match's queue, and how it was sandboxed

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bot_versions") as batch:
        batch.add_column(
            sa.Column("runtime", sa.String(length=16), nullable=False, server_default="python3")
        )
    with op.batch_alter_table("matches") as batch:
        batch.add_column(
            sa.Column("queue", sa.String(length=64), nullable=False, server_default="matches")
        )
        batch.add_column(
            sa.Column("sandbox_tier", sa.String(length=32), nullable=False, server_default="")
        )


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("sandbox_tier")
        batch.drop_column("queue")
    with op.batch_alter_table("bot_versions") as batch:
        batch.drop_column("runtime")
