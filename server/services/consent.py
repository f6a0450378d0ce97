"""Consent: who may enter whose bot in an event. One rule, :func:`check_entries`, for every
place a bot is entered (tournaments of every format, head-to-head tests, the ladder).

A user may enter their own bots and the system's built-ins. Another user's bot needs its
owner's consent: the bot's standing :class:`Permission` (``open``: any event;
``challengeable``: unrated events only; ``private``, the default: none), or an invitation its
owner accepted for this user that has not expired (rated events only if the invitation is
rated). Admins and the server itself may enter any bot. Without consent the call is refused
before anything is written, with a message that says how to get it.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from server.services.caller import Caller
from server.services.errors import InvalidArgumentError, PermissionDeniedError
from server.storage import Store


class Permission(enum.Enum):
    """Who may enter a bot in events its owner did not create."""

    PRIVATE = "private"  # its owner (and admins) only
    CHALLENGEABLE = "challengeable"  # anyone, in unrated events
    OPEN = "open"  # anyone, rated events too

    @classmethod
    def parse(cls, text: str) -> Permission:
        """A permission by name; InvalidArgumentError naming the three otherwise."""
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise InvalidArgumentError(
                f"unknown permission {text[:32]!r}: use private, challengeable or open"
            ) from None

    @classmethod
    def of(cls, stored: str) -> Permission:
        """The permission as stored (anything unknown is PRIVATE: fail closed)."""
        try:
            return cls(stored)
        except ValueError:
            return cls.PRIVATE

    def allows(self, rated: bool) -> bool:
        """Whether anyone may enter the bot in an event that is ``rated`` (or not)."""
        return self is Permission.OPEN or (self is Permission.CHALLENGEABLE and not rated)

    def describe(self, owner: str) -> str:
        """What the permission lets other users do, for a refusal."""
        if self is Permission.OPEN:
            return f"{owner} lets anyone enter it, in rated events too (open)"
        if self is Permission.CHALLENGEABLE:
            return f"{owner} lets others enter it in unrated events only (challengeable)"
        return f"{owner} keeps it private (only {owner} and admins may enter it)"


class Enterable(Protocol):
    """What the rule reads of a bot (a :class:`~server.storage.BotRecord` or an entry)."""

    @property
    def name(self) -> str: ...

    @property
    def owner(self) -> str: ...  # "" for the system's built-ins

    @property
    def permission(self) -> str: ...


def check_entries(
    store: Store, caller: Caller, bots: Sequence[Enterable], rated: bool, now: datetime
) -> None:
    """Raise PermissionDeniedError unless ``caller`` may enter every one of ``bots`` in an
    event that is ``rated`` (or not). One query at most: the invitations of the bots whose
    permission does not let everyone in."""
    if caller.admin:  # admins, and the server's own calls (SYSTEM)
        return
    needs = [
        b
        for b in bots
        if b.owner and b.owner != caller.name and not Permission.of(b.permission).allows(rated)
    ]
    if not needs:
        return
    if caller.user_id is None:  # not a user and not the server: nobody's consent applies
        raise PermissionDeniedError(f"bot {needs[0].name!r} is {needs[0].owner}'s")
    grants = store.consent_grants(caller.user_id, sorted({b.name for b in needs}), now)
    for bot in needs:
        granted = grants.get(bot.name)
        if granted is None or (rated and not granted):
            raise PermissionDeniedError(refusal(caller, bot, rated, granted))


def check_ladder_entry(store: Store, caller: Caller, bot: Enterable, now: datetime) -> None:
    """:func:`check_entries` for the ladder (rated play), where the system's built-in bots are
    put only by an admin: a bot on the ladder plays there for everyone, without end."""
    if not caller.admin and not bot.owner:
        raise PermissionDeniedError(
            f"bot {bot.name!r} is one of the system's built-in bots; only an admin puts "
            f"built-ins on a ladder (you are {caller.name or 'not signed in'})"
        )
    check_entries(store, caller, [bot], rated=True, now=now)


def refusal(caller: Caller, bot: Enterable, rated: bool, granted: bool | None) -> str:
    """Why ``caller`` may not enter ``bot``, and what to do about it."""
    owner = bot.owner
    kind = "a rated event" if rated else "an unrated event"
    said = (
        f"bot {bot.name!r} is {owner}'s, not yours (you are {caller.name}), and this is {kind}: "
        f"{Permission.of(bot.permission).describe(owner)}"
    )
    if granted is False:
        said += f"; the invitation {owner} accepted for you is for unrated events only"
    flag = " --rated" if rated else ""
    ask = f"`hamlet challenge {bot.name}{flag}` (then {owner} answers with `hamlet invitations`)"
    wanted = "open" if rated else "challengeable"
    opened = f"ask them to run `hamlet bot permission {bot.name} {wanted}`"
    if rated and Permission.of(bot.permission) is Permission.CHALLENGEABLE:
        return f"{said}. Make the event unrated, or ask {owner} with {ask}, or {opened}"
    return f"{said}. Ask {owner} with {ask}, or {opened}"
