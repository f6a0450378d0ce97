"""Bots: built-in bots announced by workers, uploaded bots submitted as Python source."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import games
from server.services import archives
from server.services import validation as v
from server.services.errors import (
    AlreadyExistsError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
)
from server.storage import BotRecord, Store, StoreConflictError


@dataclass(frozen=True, slots=True)
class BuiltinBot:
    """A built-in bot as a worker announces it."""

    name: str
    games: tuple[str, ...]
    description: str


@dataclass(frozen=True, slots=True)
class Submitted:
    """The outcome of a submission."""

    bot: BotRecord
    created: bool


class BotService:
    """Registering, listing and retiring bots."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def announce(self, bots: Sequence[BuiltinBot]) -> list[BotRecord]:
        """Register a worker's built-in bots (idempotent); games we do not know are skipped."""
        known = set(games.names())
        out = []
        for bot in bots:
            v.bot_name(bot.name)
            playable = [g for g in bot.games if g in known]
            if not playable:
                continue
            try:
                out.append(self.store.upsert_builtin_bot(bot.name, playable, bot.description[:500]))
            except StoreConflictError as exc:
                raise AlreadyExistsError(str(exc)) from None
        return out

    def submit(
        self, name: str, game: str, source: str, description: str, archive: bytes = b""
    ) -> Submitted:
        """A new version of an uploaded bot (a Python file, or an archive with a manifest),
        content-addressed by the code's SHA-256."""
        v.bot_name(name)
        v.game_spec(game)
        if archive:
            return self._add_version(name, game, archives.accept(archive), description)
        code = source.encode()
        if not code.strip():
            raise InvalidArgumentError("source is empty: send the bot's Python file")
        if len(code) > v.MAX_SOURCE_BYTES:
            raise InvalidArgumentError(
                f"source is {len(code)} bytes; the limit is {v.MAX_SOURCE_BYTES} (one Python file)"
            )
        if len(description) > v.MAX_DESCRIPTION:
            raise InvalidArgumentError(f"description is longer than {v.MAX_DESCRIPTION} characters")
        try:
            compile(source, f"<{name}>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as exc:
            line = getattr(exc, "lineno", None)
            raise InvalidArgumentError(f"source does not compile (line {line}): {exc}") from None
        return self._add_version(name, game, code, description)

    def _add_version(self, name: str, game: str, code: bytes, description: str) -> Submitted:
        if len(description) > v.MAX_DESCRIPTION:
            raise InvalidArgumentError(f"description is longer than {v.MAX_DESCRIPTION} characters")
        existing = self.store.get_bot(name)
        if existing is not None and existing.retired:
            raise FailedPreconditionError(f"bot {name!r} is retired; choose another name")
        sha = hashlib.sha256(code).hexdigest()
        try:
            bot, created = self.store.add_bot_version(name, game, code, sha, description)
        except StoreConflictError as exc:
            raise AlreadyExistsError(str(exc)) from None
        return Submitted(bot, created)

    def find(self, game: str = "", include_retired: bool = False) -> list[BotRecord]:
        """Bots (that play ``game`` if given)."""
        if game:
            v.game_spec(game)
        return self.store.list_bots(game, include_retired)

    def retire(self, name: str) -> BotRecord:
        """Retire a bot; it keeps its results."""
        v.identifier("bot name", name)
        bot = self.store.retire_bot(name)
        if bot is None:
            raise NotFoundError(f"unknown bot {name!r}")
        return bot

    def code(self, sha256: str) -> bytes:
        """Uploaded code by hash."""
        if len(sha256) != 64:
            raise InvalidArgumentError("code_sha256 must be 64 hex digits")
        code = self.store.get_code(sha256.lower())
        if code is None:
            raise NotFoundError(f"no bot code with SHA-256 {sha256}")
        return code
