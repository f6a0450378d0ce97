"""Bots: built-in bots announced by workers, uploaded bots submitted as Python source."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import games
from bots.archive import Size
from server.services import archives
from server.services import validation as v
from server.services.caller import SYSTEM, Caller
from server.services.errors import (
    AlreadyExistsError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
)
from server.services.hygiene import no_nul, sha256_hex, strip_nul
from server.services.quotas import Quota, QuotaService
from server.storage import BotRecord, BotVersionRecord, Store, StoreConflictError

#: Built-in bots one worker may announce at once.
MAX_ANNOUNCED = 200
#: Digits of a version in ``name@version`` (more cannot be a version we stored).
MAX_VERSION_DIGITS = 9


def parse_ref(ref: str) -> tuple[str, int | None]:
    """``name`` -> ``(name, None)`` (its latest version); ``name@3`` -> ``(name, 3)``.
    Only the syntax is checked: InvalidArgumentError saying what to write instead."""
    name, at, version = ref.partition("@")
    v.identifier("bot name", name)
    if not at:
        return name, None
    if not (version.isascii() and version.isdigit()) or len(version) > MAX_VERSION_DIGITS:
        raise InvalidArgumentError(
            f"bad bot reference {ref[:80]!r}: use name (its latest version) or name@version"
        )
    return name, int(version)


def versions_note(found: Sequence[BotVersionRecord]) -> str:
    """``its versions are 1, 2 and 3`` (for NOT_FOUND messages)."""
    numbers = [str(r.version) for r in found]
    if not numbers:
        return "it has no versions"
    if len(numbers) == 1:
        return f"its only version is {numbers[0]}"
    return f"its versions are {', '.join(numbers[:-1])} and {numbers[-1]}"


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

    def __init__(self, store: Store, quotas: QuotaService | None = None) -> None:
        self.store = store
        self.quotas = quotas or QuotaService(store)

    def announce(self, bots: Sequence[BuiltinBot], worker_id: str = "") -> list[BotRecord]:
        """Register a worker's built-in bots (idempotent); games we do not know are skipped.

        Every bot is checked before anything is written, then all are written in one
        transaction: a refused announcement registers none of its bots."""
        v.worker_id(worker_id)
        if len(bots) > MAX_ANNOUNCED:
            raise InvalidArgumentError(
                f"{len(bots)} built-in bots in one announcement; the limit is {MAX_ANNOUNCED}"
            )
        known = set(games.names())
        wanted: dict[str, tuple[list[str], str]] = {}
        for bot in bots:
            v.bot_name(bot.name)
            playable = [g for g in bot.games if g in known]
            if not playable:
                continue
            text = strip_nul(bot.description)[: v.MAX_DESCRIPTION]
            before, _ = wanted.get(bot.name, ([], ""))
            wanted[bot.name] = (sorted(set(before) | set(playable)), text)
        if not wanted:
            return []
        try:
            return self.store.upsert_builtin_bots(
                [(name, names, text) for name, (names, text) in sorted(wanted.items())]
            )
        except StoreConflictError as exc:
            raise AlreadyExistsError(str(exc)) from None

    def submit(
        self,
        name: str,
        game: str,
        source: str,
        description: str,
        owner_id: int,
        archive: bytes = b"",
        caller: Caller = SYSTEM,
    ) -> Submitted:
        """A new version of an uploaded bot (a Python file, or an archive with a manifest),
        content-addressed by the code's SHA-256. (Whether the caller may add a version is the
        policy's question, asked before.) The caller's per-version quotas are checked on the
        archive's headers before it is read; the counted ones with the write."""
        v.bot_name(name)
        v.game_spec(game)
        if len(description) > v.MAX_DESCRIPTION:
            raise InvalidArgumentError(f"description is longer than {v.MAX_DESCRIPTION} characters")
        description = strip_nul(description)
        if archive:
            self.quotas.check_version(caller, archives.size(archive))
            runtime = archives.accept(archive)
            return self._add_version(name, game, archive, description, owner_id, runtime, caller)
        code = source.encode()
        self.quotas.check_version(caller, Size(len(code), 1, len(code)))
        if not code.strip():
            raise InvalidArgumentError("source is empty: send the bot's Python file")
        if len(code) > v.MAX_SOURCE_BYTES:
            raise InvalidArgumentError(
                f"source is {len(code)} bytes; the limit is {v.MAX_SOURCE_BYTES} (one Python file)"
            )
        no_nul("source", source)
        check_compiles(name, source)
        return self._add_version(name, game, code, description, owner_id, "python3", caller)

    def _add_version(
        self,
        name: str,
        game: str,
        code: bytes,
        description: str,
        owner_id: int,
        runtime: str,
        caller: Caller = SYSTEM,
    ) -> Submitted:
        existing = self.store.get_bot(name)
        if existing is not None and existing.retired:
            raise FailedPreconditionError(
                f"bot {name!r} is retired; its owner can restore it (`hamlet bot restore {name}`)"
            )
        sha = hashlib.sha256(code).hexdigest()
        # Code this bot already has is no new version: nothing is written, nothing counted.
        again = existing is not None and self.store.bot_has_code(name, sha)
        needs = {
            Quota.BOTS: int(existing is None),
            Quota.VERSIONS_PER_DAY: int(not again),
            Quota.STORED_BYTES: 0 if again else len(code),
        }
        try:
            with self.quotas.guard(caller, needs):
                bot, created = self.store.add_bot_version(
                    name, game, code, sha, description, owner_id, runtime
                )
        except StoreConflictError as exc:
            raise AlreadyExistsError(str(exc)) from None
        return Submitted(bot, created)

    def find(self, game: str = "", include_retired: bool = False) -> list[BotRecord]:
        """Bots (that play ``game`` if given)."""
        if game:
            v.game_spec(game)
        return self.store.list_bots(game, include_retired)

    def get(self, name: str) -> BotRecord:
        """A bot by name, or NotFoundError."""
        v.identifier("bot name", name)
        bot = self.store.get_bot(name)
        if bot is None:
            raise NotFoundError(f"unknown bot {name!r}")
        return bot

    def resolve(self, ref: str) -> BotRecord:
        """``name`` (its latest version) or ``name@version``, or NotFoundError naming the
        versions that exist."""
        name, version = parse_ref(ref)
        if version is None:
            return self.get(name)
        found = self.store.get_bot_version(name, version)
        if found is None:
            raise self._no_version(name, version)
        return found

    def versions(self, name: str) -> list[BotVersionRecord]:
        """Every version of a bot, oldest first, or NotFoundError."""
        v.identifier("bot name", name)
        found = self.store.list_bot_versions(name)
        if found is None:
            raise NotFoundError(f"unknown bot {name!r}; `hamlet bots` lists them")
        return found

    def version(self, ref: str) -> BotVersionRecord:
        """One version, by ``name`` (its latest) or ``name@version``, or NotFoundError naming
        the versions that exist."""
        name, number = parse_ref(ref)
        found = self.versions(name)
        for record in reversed(found):
            if number is None or record.version == number:
                return record
        raise self._no_version(name, number or 0)

    def _no_version(self, name: str, version: int) -> NotFoundError:
        """NotFoundError for ``name@version``, naming the versions ``name`` has."""
        found = self.versions(name)
        return NotFoundError(
            f"bot {name!r} has no version {version}; {versions_note(found)} "
            f"(`hamlet bot versions {name}`)"
        )

    def retire(self, name: str, retired: bool = True, caller: Caller = SYSTEM) -> BotRecord:
        """Retire a bot (it keeps its results), or restore it with ``retired=False`` (a
        restored bot counts among its owner's bots again: the caller's quota is checked)."""
        v.identifier("bot name", name)
        back = not retired and (found := self.store.get_bot(name)) is not None and found.retired
        with self.quotas.guard(caller, {Quota.BOTS: int(back)}):
            bot = self.store.retire_bot(name, retired)
        if bot is None:
            raise NotFoundError(f"unknown bot {name!r}")
        return bot

    def code(self, sha256: str) -> bytes:
        """Uploaded code by hash."""
        code = self.store.get_code(sha256_hex("code_sha256", sha256))
        if code is None:
            raise NotFoundError(f"no bot code with SHA-256 {sha256}")
        return code


def check_compiles(name: str, source: str) -> None:
    """InvalidArgumentError unless ``source`` compiles. Nesting too deep for the compiler
    (RecursionError) or too large for memory (MemoryError) is the source's fault too."""
    try:
        compile(source, f"<{name}>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        raise InvalidArgumentError(f"source does not compile (line {line}): {exc}") from None
    except RecursionError:
        raise InvalidArgumentError(
            "source does not compile: it nests expressions or blocks too deeply for the "
            "compiler; flatten the deepest nesting"
        ) from None
    except MemoryError:
        raise InvalidArgumentError(
            "source does not compile: the compiler ran out of memory on it; simplify it"
        ) from None
