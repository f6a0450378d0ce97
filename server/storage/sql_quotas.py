"""What a user uses of each quota, counted in one query (scalar subqueries over the indexed
owner columns), and the small facts a quota check needs about a write before it is made."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, func, select

from server.storage import models as m
from server.storage.base import QuotaUsage, TournamentStatus
from server.storage.sqlbase import SqlBase

#: An event in one of these states holds a place among its owner's open events.
_OPEN = (TournamentStatus.CREATED.value, TournamentStatus.RUNNING.value)
_LADDER = "ladder"  # server.services.ladder.LADDER (storage does not import services)
_SPRT = "sprt"  # server.services.headtohead.SPRT


class QuotasPart(SqlBase):
    """Quota use, one query per user."""

    def quota_usage(self, user_id: int, since: datetime) -> QuotaUsage:
        owned = m.Bot.owner_id == user_id
        mine = m.Tournament.owner_id == user_id
        is_open = m.Tournament.status.in_(_OPEN)
        blobs = (
            select(m.BotVersion.code_sha256.label("sha"))
            .join(m.Bot, m.Bot.id == m.BotVersion.bot_id)
            .where(owned, m.BotVersion.code_sha256.is_not(None))
            .distinct()
            .subquery()
        )
        counts: list[ColumnElement[int]] = [
            select(func.count()).where(owned, m.Bot.retired.is_(False)).scalar_subquery(),
            select(func.count(m.BotVersion.id))
            .join(m.Bot, m.Bot.id == m.BotVersion.bot_id)
            .where(owned, m.BotVersion.created_at >= since)
            .scalar_subquery(),
            select(func.coalesce(func.sum(func.length(m.BotCode.code)), 0))
            .where(m.BotCode.sha256.in_(select(blobs.c.sha)))
            .scalar_subquery(),
            select(func.count())
            .where(mine, is_open, m.Tournament.format != _LADDER)
            .scalar_subquery(),
            select(func.coalesce(func.sum(m.Tournament.planned_matches), 0))
            .where(mine, m.Tournament.created_at >= since)
            .scalar_subquery(),
            select(func.count())
            .where(mine, is_open, m.Tournament.format == _SPRT)
            .scalar_subquery(),
            select(func.count(m.LadderEntry.bot_id))
            .join(m.Bot, m.Bot.id == m.LadderEntry.bot_id)
            .where(owned)
            .scalar_subquery(),
        ]
        with self._tx() as s:
            row = s.execute(select(*counts)).one()
        return QuotaUsage(*(int(x or 0) for x in row))

    def bot_has_code(self, name: str, sha256: str) -> bool:
        with self._tx() as s:
            found = s.scalar(
                select(m.BotVersion.id)
                .join(m.Bot, m.Bot.id == m.BotVersion.bot_id)
                .where(m.Bot.name == name, m.BotVersion.code_sha256 == sha256)
                .limit(1)
            )
            return found is not None

    def on_ladder(self, game: str, bot_name: str) -> bool:
        with self._tx() as s:
            found = s.scalar(
                select(m.LadderEntry.bot_id)
                .join(m.Bot, m.Bot.id == m.LadderEntry.bot_id)
                .where(m.LadderEntry.game == game, m.Bot.name == bot_name)
            )
            return found is not None
