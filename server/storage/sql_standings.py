"""Tournament standings, kept as results are recorded and read a page at a time.

Each entry's line (``name@version``: matches, wins, draws, losses, points, forfeits) is a row
of ``standings``, changed by :func:`add_result` inside the transaction that records a match
result: a read never goes through a tournament's matches. :meth:`StandingsPart.rebuild_standings`
recomputes a tournament's lines from its finished matches (a repair, and what tests compare
against).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import and_, delete, func, insert, or_, select, update
from sqlalchemy.orm import Session

from server.storage import models as m
from server.storage.base import MatchStatus, Standing
from server.storage.sql_ratings import lock_ratings
from server.storage.sqlbase import SqlBase, rowcount

_ORDER = (m.StandingRow.points.desc(), m.StandingRow.wins.desc(), m.StandingRow.bot)


@dataclass(frozen=True, slots=True)
class SeatTally:
    """What one seat of one finished match adds to its entry's line."""

    wins: int
    draws: int
    losses: int
    points: float
    forfeits: int


def tally(ranks: Sequence[int | None], forfeited: Sequence[bool]) -> list[SeatTally]:
    """Each seat's share of a finished match: points = seats - 1 - rank, a win is a rank 0
    held alone, a draw a rank 0 shared; a seat without a rank counts as last."""
    n = len(ranks)
    first = sum(1 for r in ranks if r == 0)
    out = []
    for rank_or_none, forfeit in zip(ranks, forfeited, strict=True):
        rank = rank_or_none if rank_or_none is not None else n - 1
        out.append(
            SeatTally(
                wins=int(rank == 0 and first == 1),
                draws=int(rank == 0 and first > 1),
                losses=int(rank != 0),
                points=float(n - 1 - rank),
                forfeits=int(forfeit),
            )
        )
    return out


def _seats(s: Session, match_ids: Sequence[str]) -> list[tuple[str, str, int | None, bool]]:
    """(match id, ``name@version``, rank, forfeited) of every seat of the given matches."""
    rows = s.execute(
        select(
            m.MatchSeat.match_id,
            m.Bot.name,
            m.BotVersion.version,
            m.MatchSeat.rank,
            m.MatchSeat.forfeit_reason,
        )
        .join(m.BotVersion, m.BotVersion.id == m.MatchSeat.bot_version_id)
        .join(m.Bot, m.Bot.id == m.BotVersion.bot_id)
        .where(m.MatchSeat.match_id.in_(list(match_ids)))
        .order_by(m.MatchSeat.match_id, m.MatchSeat.seat)
    ).all()
    return [(str(mid), f"{name}@{ver}", rank, bool(why)) for mid, name, ver, rank, why in rows]


def add_result(s: Session, tournament_id: str, match_id: str) -> None:
    """Add a just-finished match (its seats' ranks already written in ``s``) to its
    tournament's standings, in the caller's transaction. Result recording is serialized
    (``lock_ratings``), so an UPDATE that finds no line can INSERT it."""
    seats = _seats(s, [match_id])
    shares = tally([r for _, _, r, _ in seats], [f for _, _, _, f in seats])
    line = m.StandingRow
    for (_, bot, _, _), t in zip(seats, shares, strict=True):
        res = s.execute(
            update(line)
            .where(line.tournament_id == tournament_id, line.bot == bot)
            .values(
                matches=line.matches + 1,
                wins=line.wins + t.wins,
                draws=line.draws + t.draws,
                losses=line.losses + t.losses,
                points=line.points + t.points,
                forfeits=line.forfeits + t.forfeits,
            )
        )
        if rowcount(res) == 0:
            s.execute(
                insert(line).values(
                    tournament_id=tournament_id,
                    bot=bot,
                    matches=1,
                    wins=t.wins,
                    draws=t.draws,
                    losses=t.losses,
                    points=t.points,
                    forfeits=t.forfeits,
                )
            )


def _standing(row: m.StandingRow) -> Standing:
    return Standing(
        bot=row.bot,
        matches=row.matches,
        wins=row.wins,
        draws=row.draws,
        losses=row.losses,
        points=row.points,
        forfeits=row.forfeits,
    )


class StandingsPart(SqlBase):
    """Tournament standings: pages, totals and rebuilds."""

    def standings_page(
        self, tournament_id: str, limit: int, after: Standing | None = None
    ) -> tuple[list[Standing], int]:
        """Up to ``limit`` lines best first (points, wins down; name up), those after
        ``after`` (the last line of the page before); and how many lines there are."""
        line = m.StandingRow
        query = select(line).where(line.tournament_id == tournament_id)
        if after is not None:
            query = query.where(
                or_(
                    line.points < after.points,
                    and_(line.points == after.points, line.wins < after.wins),
                    and_(
                        line.points == after.points,
                        line.wins == after.wins,
                        line.bot > after.bot,
                    ),
                )
            )
        with self._tx() as s:
            rows = s.scalars(query.order_by(*_ORDER).limit(limit)).all()
            total = s.scalar(
                select(func.count()).select_from(line).where(line.tournament_id == tournament_id)
            )
            return [_standing(r) for r in rows], int(total or 0)

    def rebuild_standings(self, tournament_id: str) -> list[Standing]:
        """Recompute a tournament's lines from its finished matches (a repair: they are kept
        as results are recorded); the lines, best first."""
        totals: dict[str, list[float]] = {}
        with self._record_lock, self._tx() as s:
            lock_ratings(s)  # no result is recorded meanwhile
            finished = s.scalars(
                select(m.Match.id).where(
                    m.Match.tournament_id == tournament_id,
                    m.Match.status == MatchStatus.FINISHED.value,
                )
            ).all()
            for start in range(0, len(finished), 500):
                seats = _seats(s, finished[start : start + 500])
                by_match: dict[str, list[tuple[str, int | None, bool]]] = {}
                for mid, bot, rank, forfeit in seats:
                    by_match.setdefault(mid, []).append((bot, rank, forfeit))
                for match_seats in by_match.values():
                    shares = tally([r for _, r, _ in match_seats], [f for _, _, f in match_seats])
                    for (bot, _, _), t in zip(match_seats, shares, strict=True):
                        acc = totals.setdefault(bot, [0, 0, 0, 0, 0.0, 0])
                        for i, add in enumerate(
                            (1, t.wins, t.draws, t.losses, t.points, t.forfeits)
                        ):
                            acc[i] += add
            s.execute(delete(m.StandingRow).where(m.StandingRow.tournament_id == tournament_id))
            lines = [
                Standing(bot, int(a[0]), int(a[1]), int(a[2]), int(a[3]), a[4], int(a[5]))
                for bot, a in totals.items()
            ]
            if lines:
                s.execute(
                    insert(m.StandingRow),
                    [
                        {
                            "tournament_id": tournament_id,
                            "bot": x.bot,
                            "matches": x.matches,
                            "wins": x.wins,
                            "draws": x.draws,
                            "losses": x.losses,
                            "points": x.points,
                            "forfeits": x.forfeits,
                        }
                        for x in lines
                    ],
                )
        return sorted(lines, key=lambda x: (-x.points, -x.wins, x.bot))
