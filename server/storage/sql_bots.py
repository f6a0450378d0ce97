"""Bots, their versions and uploaded code."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, Select, and_, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from server.storage import models as m
from server.storage.base import (
    BotRecord,
    BotVersionRecord,
    MatchStatus,
    StoreConflictError,
    utcnow,
)
from server.storage.sqlbase import SqlBase

#: Tries of an announcement that lost a race on a new bot's unique name.
ANNOUNCE_ATTEMPTS = 5


class BotsPart(SqlBase):
    """Bots, their versions and uploaded code."""

    def upsert_builtin_bot(self, name: str, games: Sequence[str], description: str) -> BotRecord:
        return self.upsert_builtin_bots([(name, games, description)])[0]

    def upsert_builtin_bots(
        self, bots: Sequence[tuple[str, Sequence[str], str]]
    ) -> list[BotRecord]:
        # One transaction for all: a conflict on one bot writes none. Two workers announcing
        # the same new bot at once both see no row and both insert; the loser's transaction
        # fails on the unique name and is run again, now finding the winner's row.
        for attempt in range(ANNOUNCE_ATTEMPTS):
            try:
                with self._tx() as s:
                    return [self._upsert_builtin(s, *bot) for bot in bots]
            except IntegrityError:
                if attempt == ANNOUNCE_ATTEMPTS - 1:
                    raise
        raise AssertionError("not reached")

    def _upsert_builtin(
        self, s: Session, name: str, games: Sequence[str], description: str
    ) -> BotRecord:
        bot = s.scalar(select(m.Bot).where(m.Bot.name == name))
        now = utcnow()
        if bot is None:
            bot = m.Bot(name=name, origin="builtin", games=",".join(games), created_at=now)
            bot.description = description
            bot.retired = False
            s.add(bot)
            s.flush()
            s.add(
                m.BotVersion(
                    bot_id=bot.id,
                    version=1,
                    created_at=now,
                    runtime="builtin",
                    description=description,
                )
            )
        elif bot.origin != "builtin":
            raise StoreConflictError(f"bot name {name!r} is taken by an {bot.origin} bot")
        else:
            merged = sorted(set(bot.games.split(",")) | set(games) - {""})
            bot.games = ",".join(merged)
            bot.description = description or bot.description
            # A built-in bot has one version, whose code is the worker's: it says what the
            # workers say now.
            only = s.scalar(select(m.BotVersion).where(m.BotVersion.bot_id == bot.id).limit(1))
            if only is not None:
                only.description = bot.description
        s.flush()
        return self._bot_record(s, bot)

    def add_bot_version(
        self,
        name: str,
        game: str,
        code: bytes,
        sha256: str,
        description: str,
        owner_id: int,
        runtime: str = "python3",
    ) -> tuple[BotRecord, bool]:
        with self._tx() as s:
            now = utcnow()
            bot = _bot_for_version(s, name, "uploaded", game, description, owner_id, now)
            existing = s.scalar(
                select(m.BotVersion).where(
                    m.BotVersion.bot_id == bot.id, m.BotVersion.code_sha256 == sha256
                )
            )
            if existing is not None:
                return self._bot_record(s, bot), False
            if s.get(m.BotCode, sha256) is None:
                s.add(m.BotCode(sha256=sha256, code=code, created_at=now))
            latest = s.scalar(
                select(func.max(m.BotVersion.version)).where(m.BotVersion.bot_id == bot.id)
            )
            s.add(
                m.BotVersion(
                    bot_id=bot.id,
                    version=(latest or 0) + 1,
                    code_sha256=sha256,
                    created_at=now,
                    runtime=runtime,
                    # no description: the version says what the bot said before it
                    description=description or bot.description,
                )
            )
            if description:
                bot.description = description
            s.flush()
            return self._bot_record(s, bot), True

    def add_remote_version(
        self, name: str, game: str, endpoint: str, ca_pem: str, description: str, owner_id: int
    ) -> tuple[BotRecord, bool]:
        with self._tx() as s:
            now = utcnow()
            bot = _bot_for_version(s, name, "remote", game, description, owner_id, now)
            latest = s.scalar(
                select(m.BotVersion)
                .where(m.BotVersion.bot_id == bot.id)
                .order_by(m.BotVersion.version.desc())
                .limit(1)
            )
            if latest is not None and (latest.endpoint, latest.ca_pem) == (endpoint, ca_pem):
                return self._bot_record(s, bot), False
            s.add(
                m.BotVersion(
                    bot_id=bot.id,
                    version=(latest.version if latest else 0) + 1,
                    created_at=now,
                    runtime="remote",
                    endpoint=endpoint,
                    ca_pem=ca_pem,
                )
            )
            if description:
                bot.description = description
            s.flush()
            return self._bot_record(s, bot), True

    def get_bot(self, name: str) -> BotRecord | None:
        with self._tx() as s:
            row = s.execute(bot_rows().where(m.Bot.name == name)).first()
            return None if row is None else bot_from_row(row)

    def get_bot_version(self, name: str, version: int) -> BotRecord | None:
        with self._tx() as s:
            bot = s.scalar(select(m.Bot).where(m.Bot.name == name))
            row = None
            if bot is not None:
                row = s.scalar(
                    select(m.BotVersion).where(
                        m.BotVersion.bot_id == bot.id, m.BotVersion.version == version
                    )
                )
            return None if bot is None or row is None else self._bot_record(s, bot, row)

    def list_bots(self, game: str = "", include_retired: bool = False) -> list[BotRecord]:
        # One statement whatever the number of bots: each row joins its latest version and
        # its owner's name.
        query = bot_rows().order_by(m.Bot.name)
        if not include_retired:
            query = query.where(m.Bot.retired.is_(False))
        with self._tx() as s:
            # Core rows (no ORM loading): thousands of bots are read at Core's pace.
            records = [bot_from_row(row) for row in s.connection().execute(query).all()]
        return [r for r in records if not game or game in r.games]

    def list_bot_versions(self, name: str) -> list[BotVersionRecord] | None:
        with self._tx() as s:
            bot = s.scalar(select(m.Bot).where(m.Bot.name == name))
            if bot is None:
                return None
            rows = s.scalars(
                select(m.BotVersion)
                .where(m.BotVersion.bot_id == bot.id)
                .order_by(m.BotVersion.version)
            ).all()
            played = dict(
                s.execute(
                    select(m.MatchSeat.bot_version_id, func.count(func.distinct(m.Match.id)))
                    .join(m.Match, m.Match.id == m.MatchSeat.match_id)
                    .where(
                        m.MatchSeat.bot_version_id.in_([r.id for r in rows]),
                        m.Match.status == MatchStatus.FINISHED.value,
                    )
                    .group_by(m.MatchSeat.bot_version_id)
                ).all()
            )
            owner = self._owner_name(s, bot)
            latest = rows[-1].version if rows else 0
            return [
                BotVersionRecord(
                    name=bot.name,
                    version=r.version,
                    version_id=r.id,
                    origin=bot.origin,
                    games=tuple(g for g in bot.games.split(",") if g),
                    created_at=r.created_at,
                    runtime=r.runtime,
                    code_sha256=r.code_sha256 or "",
                    description=r.description,
                    owner=owner,
                    retired=bot.retired,
                    latest=r.version == latest,
                    matches=int(played.get(r.id, 0)),
                )
                for r in rows
            ]

    def retire_bot(self, name: str, retired: bool = True) -> BotRecord | None:
        with self._tx() as s:
            bot = s.scalar(select(m.Bot).where(m.Bot.name == name))
            if bot is None:
                return None
            bot.retired = retired
            s.flush()
            return self._bot_record(s, bot)

    def get_code(self, sha256: str) -> bytes | None:
        with self._tx() as s:
            row = s.get(m.BotCode, sha256)
            return None if row is None else bytes(row.code)

    def _bot_record(self, s: Session, bot: m.Bot, version: m.BotVersion | None = None) -> BotRecord:
        """The bot at ``version`` (default: its latest)."""
        if version is None:
            row = s.execute(bot_rows().where(m.Bot.id == bot.id)).first()
            if row is not None:
                return bot_from_row(row)
        return BotRecord(
            name=bot.name,
            origin=bot.origin,
            games=tuple(g for g in bot.games.split(",") if g),
            description=bot.description,
            latest_version=version.version if version else 0,
            version_id=version.id if version else 0,
            retired=bot.retired,
            code_sha256=(version.code_sha256 or "") if version else "",
            created_at=bot.created_at,
            runtime=version.runtime if version else "",
            endpoint=version.endpoint if version else "",
            ca_pem=version.ca_pem if version else "",
            owner=self._owner_name(s, bot),
            permission=bot.permission or "private",
        )

    def _owner_name(self, s: Session, bot: m.Bot) -> str:
        """The submitting user's name; empty for built-in bots."""
        if bot.owner_id is None:
            return ""
        return s.scalar(select(m.User.name).where(m.User.id == bot.owner_id)) or ""


def bot_rows() -> Select[*tuple[Any, ...]]:
    """A query of :func:`bot_from_row`'s rows: each bot with its latest version (none if it
    has none) and its owner's name (none for built-in bots), in one statement; callers add
    their filters, joins and order."""
    latest = (
        select(func.max(m.BotVersion.version))
        .where(m.BotVersion.bot_id == m.Bot.id)
        .correlate(m.Bot)
        .scalar_subquery()
    )
    return (
        select(
            m.Bot.name,
            m.Bot.origin,
            m.Bot.games,
            m.Bot.description,
            m.Bot.retired,
            m.Bot.created_at,
            m.Bot.permission,
            m.BotVersion.version,
            m.BotVersion.id,
            m.BotVersion.code_sha256,
            m.BotVersion.runtime,
            m.BotVersion.endpoint,
            m.BotVersion.ca_pem,
            m.User.name,
        )
        .select_from(m.Bot)
        .outerjoin(
            m.BotVersion, and_(m.BotVersion.bot_id == m.Bot.id, m.BotVersion.version == latest)
        )
        .outerjoin(m.User, m.User.id == m.Bot.owner_id)
    )


def bot_from_row(row: Row[*tuple[Any, ...]]) -> BotRecord:
    """A :func:`bot_rows` row as a record."""
    (name, origin, games, description, retired, created_at, permission) = row[:7]
    (version, version_id, sha256, runtime, endpoint, ca_pem, owner) = row[7:]
    return BotRecord(
        name=name,
        origin=origin,
        games=tuple(g for g in games.split(",") if g),
        description=description,
        latest_version=version or 0,
        version_id=version_id or 0,
        retired=retired,
        code_sha256=sha256 or "",
        created_at=created_at,
        runtime=runtime or "",
        endpoint=endpoint or "",
        ca_pem=ca_pem or "",
        owner=owner or "",
        permission=permission or "private",
    )


def _bot_for_version(
    s: Session, name: str, origin: str, game: str, description: str, owner_id: int, now: datetime
) -> m.Bot:
    """The bot a new version of ``origin`` goes to: made on first use; refused if the name
    belongs to a bot of another origin or game, or to a retired one."""
    bot = s.scalar(select(m.Bot).where(m.Bot.name == name))
    if bot is None:
        bot = m.Bot(name=name, origin=origin, owner_id=owner_id, games=game, created_at=now)
        bot.description = description
        bot.retired = False
        s.add(bot)
        s.flush()
    elif bot.origin != origin:
        raise StoreConflictError(f"bot name {name!r} belongs to a {bot.origin} bot")
    elif bot.games != game:
        raise StoreConflictError(f"bot {name!r} plays {bot.games}, not {game}")
    elif bot.retired:
        raise StoreConflictError(f"bot {name!r} is retired")
    return bot
