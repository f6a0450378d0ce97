"""Elo ratings: applied per match, rebuilt from the append-only result log."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from server import elo
from server.storage import models as m
from server.storage.sqlbase import SqlBase


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

    def leaderboard(self, game: str) -> list[elo.BotRating]:
        with self._tx() as s:
            rows = s.scalars(select(m.Rating).where(m.Rating.game == game)).all()
            return elo.ordered({r.bot_name: rating_line(r) for r in rows})

    def rebuild_ratings(self, game: str) -> list[elo.BotRating]:
        with self._tx() as s:
            log = s.scalars(
                select(m.ResultLog)
                .where(m.ResultLog.game == game, m.ResultLog.rated.is_(True))
                .order_by(m.ResultLog.seq)
            ).all()
            table = elo.rebuild(
                (r.bots.split(","), [int(x) for x in r.ranks.split(",")]) for r in log
            )
            for old in s.scalars(select(m.Rating).where(m.Rating.game == game)).all():
                s.delete(old)
            s.flush()
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


def rating_line(row: m.Rating) -> elo.BotRating:
    return elo.BotRating(row.bot_name, row.rating, row.games, row.wins, row.draws, row.losses)
