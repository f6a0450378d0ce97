"""queue: a claim remembers its queue message; indexes for match pages and final cursors

Revision ID: 0010
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("claim_task", sa.String(length=64), nullable=True))
    op.create_index(
        "ix_matches_page", "matches", ["tournament_id", "round", "table_index", "rotation"]
    )
    op.create_index("ix_matches_final", "matches", ["tournament_id", "finished_at"])
    op.create_index("ix_matches_status_queued", "matches", ["status", "queued_at"])


def downgrade() -> None:
    op.drop_index("ix_matches_status_queued", table_name="matches")
    op.drop_index("ix_matches_final", table_name="matches")
    op.drop_index("ix_matches_page", table_name="matches")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("claim_task")
