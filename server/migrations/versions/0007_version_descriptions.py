"""version descriptions: each bot version keeps the description it was submitted with

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bot_versions") as batch:
        batch.add_column(sa.Column("description", sa.Text(), nullable=False, server_default=""))
    # Versions stored before this revision get their bot's description: the best we know.
    op.execute(
        "update bot_versions set description = "
        "(select coalesce(bots.description, '') from bots where bots.id = bot_versions.bot_id)"
    )


def downgrade() -> None:
    with op.batch_alter_table("bot_versions") as batch:
        batch.drop_column("description")
