"""Tournament entries: ``name`` (its latest version) or ``name@version``, resolved to bot
versions. One bot may enter at several versions, never at one version twice; results, seats
and standings name each entry ``name@version``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from server.services.bots import parse_ref, versions_note
from server.services.errors import FailedPreconditionError, InvalidArgumentError, NotFoundError
from server.storage import BotRecord, SeatRecord, Store


@dataclass(frozen=True, slots=True)
class Entry:
    """One resolved entry of a tournament."""

    ref: str  # as the user wrote it
    label: str  # name@version
    version_id: int
    owner: str  # "" for the system's bots
    runtime: str
    name: str = ""  # the bot's
    permission: str = "private"  # who may enter it in others' events (services.consent)


def label(name: str, version: int) -> str:
    """How standings, seats and entries name a bot version: ``name@version``."""
    return f"{name}@{version}"


def seat_label(seat: SeatRecord) -> str:
    """The entry a seat belongs to: ``name@version``."""
    return label(seat.bot_name, seat.bot_version)


def shares_owner(table: tuple[int, ...], owners: Sequence[str]) -> bool:
    """Two entries of one user at the table (the system's bots aside; two versions of one bot
    share their owner)."""
    named = [owners[i] for i in table if owners[i]]
    return len(named) != len(set(named))


def check_syntax(refs: Sequence[str]) -> None:
    """Every reference well formed and none written twice (before any lookup)."""
    for ref in refs:
        parse_ref(ref)
    seen: set[str] = set()
    for ref in refs:
        if ref in seen:
            raise InvalidArgumentError(
                f"{ref!r} is named twice; enter each bot version once (e.g. mybot@1 mybot@2)"
            )
        seen.add(ref)


def resolve(store: Store, game: str, refs: Sequence[str]) -> list[Entry]:
    """The entries, in order: NotFoundError for an unknown bot or version (naming the versions
    there are), FailedPreconditionError for a retired bot, InvalidArgumentError for a bot
    that does not play ``game`` or a version entered twice."""
    out: list[Entry] = []
    first: dict[int, str] = {}
    for ref in refs:
        bot = _lookup(store, ref)
        if bot.retired:
            raise FailedPreconditionError(f"bot {bot.name!r} is retired")
        if game not in bot.games:
            raise InvalidArgumentError(
                f"bot {bot.name!r} does not play {game} (it plays {', '.join(bot.games)})"
            )
        entry = Entry(
            ref=ref,
            label=label(bot.name, bot.latest_version),
            version_id=bot.version_id,
            owner=bot.owner,
            runtime=bot.runtime,
            name=bot.name,
            permission=bot.permission,
        )
        if entry.version_id in first:
            raise InvalidArgumentError(
                f"{first[entry.version_id]!r} and {ref!r} are both {entry.label}: enter each "
                "version once (a bare name means its latest version)"
            )
        first[entry.version_id] = ref
        out.append(entry)
    return out


def _lookup(store: Store, ref: str) -> BotRecord:
    name, version = parse_ref(ref)
    bot = store.get_bot(name) if version is None else store.get_bot_version(name, version)
    if bot is not None:
        return bot
    versions = store.list_bot_versions(name)
    if versions is None:
        raise NotFoundError(f"unknown bot {name!r}; `hamlet bots` lists them")
    raise NotFoundError(f"bot {name!r} has no version {version}; {versions_note(versions)}")
