"""standings: each tournament entry's tally, kept as results are recorded (backfilled here
from the finished matches)

Revision ID: 0013_standings
Revises: 0012
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_standings"
down_revision = "0012"
branch_labels = None
depends_on = None

#: Matches read at a time while backfilling.
_BATCH = 2000


def upgrade() -> None:
    standings = op.create_table(
        "standings",
        sa.Column("tournament_id", sa.String(length=32), nullable=False),
        sa.Column("bot", sa.String(length=80), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("points", sa.Float(), nullable=False),
        sa.Column("forfeits", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.PrimaryKeyConstraint("tournament_id", "bot"),
    )
    op.create_index(
        "ix_standings_order",
        "standings",
        ["tournament_id", sa.text("points DESC"), sa.text("wins DESC"), "bot"],
    )
    _backfill(op.get_bind(), standings)


def _backfill(conn: sa.Connection, standings: sa.Table) -> None:
    """Tally every finished match (the same rules as ``server.storage.sql_standings.tally``,
    restated: a migration does not change when the code does)."""
    seats = sa.table(
        "match_seats",
        sa.column("match_id"),
        sa.column("seat"),
        sa.column("bot_version_id"),
        sa.column("rank"),
        sa.column("forfeit_reason"),
    )
    matches = sa.table("matches", sa.column("id"), sa.column("tournament_id"), sa.column("status"))
    versions = sa.table("bot_versions", sa.column("id"), sa.column("bot_id"), sa.column("version"))
    bots = sa.table("bots", sa.column("id"), sa.column("name"))
    rows = conn.execute(
        sa.select(
            matches.c.tournament_id,
            seats.c.match_id,
            bots.c.name,
            versions.c.version,
            seats.c.rank,
            seats.c.forfeit_reason,
        )
        .select_from(seats)
        .join(matches, matches.c.id == seats.c.match_id)
        .join(versions, versions.c.id == seats.c.bot_version_id)
        .join(bots, bots.c.id == versions.c.bot_id)
        .where(matches.c.status == "finished")
        .order_by(seats.c.match_id, seats.c.seat)
    )
    totals: dict[tuple[str, str], list[float]] = {}
    match: list[tuple[str, str, int | None, bool]] = []
    current = None
    for tid, mid, name, version, rank, reason in rows:
        if mid != current and match:
            _add(totals, match)
            match = []
        current = mid
        match.append((tid, f"{name}@{version}", rank, bool(reason)))
    if match:
        _add(totals, match)
    lines = [
        {
            "tournament_id": tid,
            "bot": bot,
            "matches": int(a[0]),
            "wins": int(a[1]),
            "draws": int(a[2]),
            "losses": int(a[3]),
            "points": a[4],
            "forfeits": int(a[5]),
        }
        for (tid, bot), a in totals.items()
    ]
    for start in range(0, len(lines), _BATCH):
        op.bulk_insert(standings, lines[start : start + _BATCH])


def _add(
    totals: dict[tuple[str, str], list[float]], seats: list[tuple[str, str, int | None, bool]]
) -> None:
    n = len(seats)
    first = sum(1 for _, _, r, _ in seats if r == 0)
    for tid, bot, rank_or_none, forfeit in seats:
        rank = rank_or_none if rank_or_none is not None else n - 1
        acc = totals.setdefault((tid, bot), [0, 0, 0, 0, 0.0, 0])
        acc[0] += 1
        acc[1] += rank == 0 and first == 1
        acc[2] += rank == 0 and first > 1
        acc[3] += rank != 0
        acc[4] += n - 1 - rank
        acc[5] += forfeit


def downgrade() -> None:
    op.drop_index("ix_standings_order", table_name="standings")
    op.drop_table("standings")
