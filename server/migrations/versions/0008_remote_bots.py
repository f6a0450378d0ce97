"""remote bots: each version of a remote bot names its endpoint (and TLS roots)

Revision ID: 0008
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bot_versions") as batch:
        batch.add_column(
            sa.Column("endpoint", sa.String(length=300), nullable=False, server_default="")
        )
        batch.add_column(sa.Column("ca_pem", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("bot_versions") as batch:
        batch.drop_column("ca_pem")
        batch.drop_column("endpoint")
