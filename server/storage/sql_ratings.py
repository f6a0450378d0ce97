"""Elo ratings: applied per match, rebuilt from the append-only result log."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Row, Select, delete, func, select, text
from sqlalchemy.orm import Session

from server import elo
from server.storage import models as m
from server.storage.base import RatedResult, RatedTail
from server.storage.sqlbase import SqlBase

#: The PostgreSQL advisory lock that rating writers take (the bytes of "hamlet-r").
RATINGS_LOCK = int.from_bytes(b"hamlet-r", "big") & (2**63 - 1)


def lock_ratings(s: Session) -> None:
    """Serialize the writers of the ratings table until the caller's transaction ends.

    Recording a result and ``rebuild-ratings`` may run in different processes. Without a
    lock, a rebuild deletes and re-inserts the rows a recording has just found missing, and
    one of the two inserts fails on the table's primary key. On PostgreSQL this takes a
    transaction-scoped advisory lock; SQLite has one writer at a time already (each writer
    here starts its transaction with a write, so it holds the lock before it reads).
    """
    if s.get_bind().dialect.name == "postgresql":
        s.execute(text("select pg_advisory_xact_lock(:key)"), {"key": RATINGS_LOCK})


def apply_ratings(s: Session, game: str, bots: Sequence[str], ranks: Sequence[int]) -> None:
    """Update the ratings of one match's bots inside the caller's transaction."""
    rows = {
        r.bot_name: r
        for r in s.scalars(
            select(m.Rating)
            .where(m.Rating.game == game, m.Rating.bot_name.in_(set(bots)))
            .with_for_update()
        ).all()
    }
    table = {name: rating_line(r) for name, r in rows.items()}
    for name, line in elo.apply_match(table, bots, ranks).items():
        row = rows.get(name)
        if row is None:
            row = m.Rating(game=game, bot_name=name)
            s.add(row)
        row.rating, row.games = line.rating, line.games
        row.wins, row.draws, row.losses = line.wins, line.draws, line.losses


class RatingsPart(SqlBase):
    """Leaderboards and rebuilds."""

    def rated_results(self, game: str, rules_version: str) -> list[RatedResult]:
        with self._tx() as s:
            rows = s.execute(
                _rated_seats(game, rules_version).order_by(m.Match.id, m.MatchSeat.seat)
            ).all()
        return _grouped(rows)

    def rated_results_after(self, game: str, rules_version: str, after_seq: int) -> RatedTail:
        with self._tx() as s:
            # One transaction: the tail read is consistent with the point it reports, so the
            # next read starts exactly after it (the log's primary key orders the range).
            # No result below ``last`` can commit later: every writer of the log holds
            # lock_ratings from its insert to its commit (SQLite: one writer at a time), so
            # sequence numbers become visible in order.
            last = int(s.scalar(select(func.max(m.ResultLog.seq))) or 0)
            if last <= after_seq:
                return RatedTail((), max(last, after_seq))
            rows = s.execute(
                _rated_seats(game, rules_version)
                .where(m.ResultLog.seq > after_seq, m.ResultLog.seq <= last)
                .order_by(m.ResultLog.seq, m.MatchSeat.seat)
            ).all()
        return RatedTail(tuple(_grouped(rows)), last)

    def rated_log(self, game: str) -> list[tuple[str, datetime, tuple[str, ...], tuple[int, ...]]]:
        with self._tx() as s:
            rows = s.scalars(
                select(m.ResultLog)
                .where(m.ResultLog.game == game, m.ResultLog.rated.is_(True))
                .order_by(m.ResultLog.seq)
            ).all()
            return [
                (
                    r.match_id,
                    r.recorded_at,
                    tuple(r.bots.split(",")),
                    tuple(int(x) for x in r.ranks.split(",")),
                )
                for r in rows
            ]

    def rated_result_count(self, game: str) -> int:
        with self._tx() as s:
            found = s.scalar(
                select(func.count())
                .select_from(m.ResultLog)
                .where(m.ResultLog.game == game, m.ResultLog.rated.is_(True))
            )
            return int(found or 0)

    def leaderboard(self, game: str) -> list[elo.BotRating]:
        with self._tx() as s:
            rows = s.scalars(select(m.Rating).where(m.Rating.game == game)).all()
            return elo.ordered({r.bot_name: rating_line(r) for r in rows})

    def rebuild_ratings(self, game: str) -> list[elo.BotRating]:
        with self._tx() as s:
            lock_ratings(s)
            # Delete first: on SQLite the write takes the database lock before the log is
            # read, so no result recorded meanwhile is left out of the rebuilt table.
            s.execute(delete(m.Rating).where(m.Rating.game == game))
            log = s.scalars(
                select(m.ResultLog)
                .where(m.ResultLog.game == game, m.ResultLog.rated.is_(True))
                .order_by(m.ResultLog.seq)
            ).all()
            table = elo.rebuild(
                (r.bots.split(","), [int(x) for x in r.ranks.split(",")]) for r in log
            )
            for line in table.values():
                s.add(
                    m.Rating(
                        game=game,
                        bot_name=line.bot,
                        rating=line.rating,
                        games=line.games,
                        wins=line.wins,
                        draws=line.draws,
                        losses=line.losses,
                    )
                )
            return elo.ordered(table)


def _rated_seats(game: str, rules_version: str) -> Select[str, str, int, int, str, int, int | None]:
    """The seats of a game's rated results under one rules version, one row per seat."""
    return (
        select(
            m.Match.id,
            m.Match.tournament_id,
            m.Match.round,
            m.Match.table_index,
            m.Bot.name,
            m.BotVersion.version,
            m.MatchSeat.rank,
        )
        .select_from(m.ResultLog)
        .join(m.Match, m.Match.id == m.ResultLog.match_id)
        .join(m.MatchSeat, m.MatchSeat.match_id == m.Match.id)
        .join(m.BotVersion, m.BotVersion.id == m.MatchSeat.bot_version_id)
        .join(m.Bot, m.Bot.id == m.BotVersion.bot_id)
        .where(
            m.ResultLog.game == game,
            m.ResultLog.rated.is_(True),
            m.Match.rules_version == rules_version,
        )
    )


def _grouped(rows: Sequence[Row[str, str, int, int, str, int, int | None]]) -> list[RatedResult]:
    """Seat rows (ordered so that a match's seats are adjacent, by seat) as results."""
    out: list[RatedResult] = []
    seats: list[tuple[str, int, int]] = []
    for i, (match_id, tid, rnd, table, name, version, rank) in enumerate(rows):
        seats.append((name, version, int(rank or 0)))
        if i + 1 == len(rows) or rows[i + 1][0] != match_id:
            out.append(RatedResult(match_id, f"{tid}.r{rnd}.t{table}", tuple(seats)))
            seats = []
    return out


def rating_line(row: m.Rating) -> elo.BotRating:
    return elo.BotRating(row.bot_name, row.rating, row.games, row.wins, row.draws, row.losses)
