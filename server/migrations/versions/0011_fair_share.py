"""fair share: who may enter a bot (permission, invitations), planned matches per event,
an index for the dispatcher's next pending block

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bots") as batch:
        batch.add_column(
            sa.Column("permission", sa.String(length=16), nullable=False, server_default="private")
        )
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(
            sa.Column("planned_matches", sa.Integer(), nullable=False, server_default="0")
        )
    op.create_index("ix_tournaments_owner_created", "tournaments", ["owner_id", "created_at"])
    op.create_index(
        "ix_matches_pending", "matches", ["tournament_id", "status", "round", "table_index"]
    )
    op.create_index("ix_bots_owner", "bots", ["owner_id"])
    op.create_table(
        "invitations",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("bot_id", sa.Integer(), sa.ForeignKey("bots.id"), nullable=False),
        sa.Column("challenger_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("message", sa.Text(), nullable=False, server_default=""),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("answered_at", sa.DateTime(), nullable=True),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_invitations_bot", "invitations", ["bot_id", "challenger_id"])
    op.create_index("ix_invitations_challenger", "invitations", ["challenger_id"])


def downgrade() -> None:
    op.drop_index("ix_invitations_challenger", table_name="invitations")
    op.drop_index("ix_invitations_bot", table_name="invitations")
    op.drop_table("invitations")
    op.drop_index("ix_bots_owner", table_name="bots")
    op.drop_index("ix_matches_pending", table_name="matches")
    op.drop_index("ix_tournaments_owner_created", table_name="tournaments")
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("planned_matches")
    with op.batch_alter_table("bots") as batch:
        batch.drop_column("permission")
