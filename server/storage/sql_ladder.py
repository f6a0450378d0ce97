"""Continuous scheduling: the ladder's entries, head-to-head tests, and open blocks."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, select

from server.storage import models as m
from server.storage.base import BotRecord, SprtRecord
from server.storage.sql_bots import BotsPart, bot_from_row, bot_rows
from server.storage.sqlbase import FINAL


class LadderPart(BotsPart):
    """Ladder entries and open blocks."""

    def set_ladder_entry(self, game: str, bot_name: str, joined: bool, now: datetime) -> bool:
        with self._tx() as s:
            bot_id = s.scalar(select(m.Bot.id).where(m.Bot.name == bot_name))
            if bot_id is None:
                return False
            found = s.get(m.LadderEntry, (game, bot_id))
            if joined and found is None:
                s.add(m.LadderEntry(game=game, bot_id=bot_id, joined_at=now))
                return True
            if not joined and found is not None:
                s.execute(
                    delete(m.LadderEntry).where(
                        m.LadderEntry.game == game, m.LadderEntry.bot_id == bot_id
                    )
                )
                return True
            return False

    def ladder_entries(self, game: str) -> list[BotRecord]:
        with self._tx() as s:
            rows = s.connection().execute(
                bot_rows()
                .join(m.LadderEntry, m.LadderEntry.bot_id == m.Bot.id)
                .where(m.LadderEntry.game == game, m.Bot.retired.is_(False))
                .order_by(m.Bot.name)
            )
            return [bot_from_row(row) for row in rows.all()]

    def ladder_names(self, game: str) -> list[str]:
        with self._tx() as s:
            return list(
                s.scalars(
                    select(m.Bot.name)
                    .join(m.LadderEntry, m.LadderEntry.bot_id == m.Bot.id)
                    .where(m.LadderEntry.game == game, m.Bot.retired.is_(False))
                    .order_by(m.Bot.name)
                )
            )

    def save_sprt(self, record: SprtRecord) -> None:
        with self._tx() as s:
            row = s.get(m.SprtTest, record.tournament_id)
            if row is None:
                row = m.SprtTest(tournament_id=record.tournament_id)
                s.add(row)
            row.elo0, row.elo1 = record.elo0, record.elo1
            row.alpha, row.beta = record.alpha, record.beta
            row.max_pairs, row.verdict = record.max_pairs, record.verdict

    def get_sprt(self, tournament_id: str) -> SprtRecord | None:
        with self._tx() as s:
            row = s.get(m.SprtTest, tournament_id)
            if row is None:
                return None
            return SprtRecord(
                row.tournament_id,
                row.elo0,
                row.elo1,
                row.alpha,
                row.beta,
                row.max_pairs,
                row.verdict,
            )

    def max_round(self, tournament_id: str) -> int | None:
        with self._tx() as s:
            found = s.scalar(
                select(func.max(m.Match.round)).where(m.Match.tournament_id == tournament_id)
            )
            return None if found is None else int(found)

    def open_blocks(self, tournament_id: str) -> list[tuple[int, tuple[str, ...]]]:
        with self._tx() as s:
            rows = s.execute(
                select(m.Match.round, m.MatchSeat.seat, m.Bot.name)
                .join(m.MatchSeat, m.MatchSeat.match_id == m.Match.id)
                .join(m.BotVersion, m.BotVersion.id == m.MatchSeat.bot_version_id)
                .join(m.Bot, m.Bot.id == m.BotVersion.bot_id)
                .where(
                    m.Match.tournament_id == tournament_id,
                    m.Match.rotation == 0,
                    m.Match.round.in_(
                        select(m.Match.round).where(
                            m.Match.tournament_id == tournament_id, m.Match.status.not_in(FINAL)
                        )
                    ),
                )
                .order_by(m.Match.round, m.MatchSeat.seat)
            ).all()
        blocks: dict[int, list[str]] = {}
        for rnd, _, name in rows:
            blocks.setdefault(int(rnd), []).append(name)
        return [(r, tuple(names)) for r, names in sorted(blocks.items())]
