"""token tree: each API token remembers the token that created it (revoking a token revokes
what it created)

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("api_tokens") as batch:
        batch.add_column(sa.Column("parent_id", sa.String(length=16), nullable=True))
    op.create_index("ix_api_tokens_parent_id", "api_tokens", ["parent_id"])


def downgrade() -> None:
    op.drop_index("ix_api_tokens_parent_id", table_name="api_tokens")
    with op.batch_alter_table("api_tokens") as batch:
        batch.drop_column("parent_id")
