"""The authorization policy: the one place that says who may do what.

Two layers, both here:

- **per method** (:data:`METHODS`): what a call needs before it reaches a servicer. The
  interceptor enforces it for every method of ``Arena`` and ``MatchHost``; a method missing
  from the table is refused (fail closed), and a test checks the table covers both services;
- **per object** (``check_*``): ownership, asked by the servicers once they know the object.
"""

from __future__ import annotations

import enum

from server.auth.identity import Principal, Scope, names
from server.services.errors import PermissionDeniedError, UnauthenticatedError


class Access(enum.Enum):
    """What a method needs."""

    OPEN = "open"  # anyone, even without a token (WhoAmI)
    READ = "read"  # anonymous when public reads are on, else a token with read
    USER = "user"  # any user's token (managing one's own tokens)
    SUBMIT = "submit"  # a token with submit (changes state; ownership checked after)
    ADMIN = "admin"  # an admin user's token with the admin scope
    WORKER = "worker"  # a worker token (MatchHost)


ARENA = "hamlet.v1.Arena"
MATCH_HOST = "hamlet.v1.MatchHost"

METHODS: dict[str, Access] = {
    **{
        f"{ARENA}/{m}": Access.READ
        for m in (
            "ListGames",
            "ListBots",
            "ListBotVersions",
            "GetBotVersion",
            "GetTournament",
            "ListTournaments",
            "ListMatches",
            "WatchTournament",
            "GetMatch",
            "GetReplay",
            "GetLeaderboard",
            "GetBotHistory",
            "GetLadder",
            "GetSprt",
            "WatchSprt",
        )
    },
    f"{ARENA}/WhoAmI": Access.OPEN,
    **{
        f"{ARENA}/{m}": Access.SUBMIT
        for m in (
            "SubmitBot",
            "RegisterRemoteBot",
            "RetireBot",
            "RestoreBot",
            "CreateTournament",
            "StartTournament",
            "CancelTournament",
            "JoinLadder",
            "LeaveLadder",
            "StartSprt",
            "SetBotPermission",
            "Challenge",
            "AnswerInvitation",
        )
    },
    f"{ARENA}/CreateUser": Access.ADMIN,
    f"{ARENA}/EndLadderSeason": Access.ADMIN,
    **{
        f"{ARENA}/{m}": Access.USER
        for m in (
            "CreateToken",
            "ListTokens",
            "RevokeToken",
            "ListInvitations",
            "GetQuota",
        )
    },
    **{
        f"{MATCH_HOST}/{m}": Access.WORKER
        for m in (
            "ClaimMatch",
            "ReportMatch",
            "ClaimBlock",
            "ReportBlock",
            "RenewClaims",
            "FetchBotCode",
            "AnnounceWorker",
        )
    },
}

#: Services this policy governs; calls to others (health, reflection) pass untouched.
GOVERNED = (ARENA, MATCH_HOST)

_HOW = "pass `authorization: Bearer <token>` metadata (`hamlet login`, or HAMLET_TOKEN)"


def check_method(method: str, who: Principal, public_reads: bool) -> None:
    """Raise unless ``who`` may call ``method`` (a full ``/package.Service/Method`` path)."""
    short = method.rsplit("/", 1)[-1]
    access = METHODS.get(method.strip("/"))
    if access is None:
        raise PermissionDeniedError(f"{short} is not open to any caller")
    if access is Access.OPEN or (access is Access.READ and public_reads):
        return
    if access is Access.WORKER:
        if who.anonymous:
            raise UnauthenticatedError(
                f"{short} is for Hamlet workers: pass a worker token "
                "(HAMLET_WORKER_TOKEN or HAMLET_WORKER_TOKEN_FILE)"
            )
        if not who.grants(Scope.WORKER):
            raise PermissionDeniedError(
                f"{short} needs a token with the worker scope; {who.describe()} has none"
            )
        return
    if who.anonymous:
        raise UnauthenticatedError(f"{short} needs a token: {_HOW}")
    needed = {
        Access.READ: Scope.READ,
        Access.USER: Scope.READ,
        Access.SUBMIT: Scope.SUBMIT,
        Access.ADMIN: Scope.ADMIN,
    }[access]
    if not who.grants(needed):
        extra = " and an admin user" if needed is Scope.ADMIN else ""
        raise PermissionDeniedError(
            f"{short} needs a token with the {needed.value} scope{extra}; {who.describe()} "
            "does not have it"
        )


def check_bot_change(who: Principal, bot_name: str, origin: str, owner: str, what: str) -> None:
    """Raise unless ``who`` may ``what`` (e.g. "retire") the bot: its owner or an admin;
    built-in bots belong to the system and nobody changes them."""
    if origin == "builtin":
        raise PermissionDeniedError(
            f"bot {bot_name!r} is a built-in bot: it belongs to the system and no user "
            f"may {what} it"
        )
    if who.grants(Scope.ADMIN) or (owner and owner == who.name):
        return
    raise PermissionDeniedError(
        f"bot {bot_name!r} belongs to {owner or 'nobody'}; only its owner or an admin may "
        f"{what} it (you are {who.name})"
    )


def check_ladder(who: Principal, bot_name: str, origin: str, owner: str) -> None:
    """Raise unless ``who`` may take the bot off a ladder: its owner, or an admin (the only
    one who manages the system's built-in bots). Who may put a bot *on* a ladder is the
    consent rule's business (``services.consent``)."""
    if who.grants(Scope.ADMIN) or (origin != "builtin" and owner and owner == who.name):
        return
    whose = "the system's" if origin == "builtin" else f"{owner or 'nobody'}'s"
    raise PermissionDeniedError(
        f"bot {bot_name!r} is {whose}; only its owner or an admin may take it off a ladder "
        f"(you are {who.name})"
    )


def check_seat_view(who: Principal, seat: int, bot_name: str, origin: str, owner: str) -> None:
    """Raise unless ``who`` may see a match from ``seat`` (what its bot was asked, answered
    and wrote to stderr): the owner of the bot in that seat, or an admin (the only one who
    sees the system's built-in bots' seats). Anonymous callers must sign in first."""
    if who.anonymous:
        raise UnauthenticatedError(f"a seat's view is for its bot's owner: {_HOW}")
    if who.grants(Scope.ADMIN) or (origin != "builtin" and owner and owner == who.name):
        return
    whose = "the system's" if origin == "builtin" else f"{owner or 'nobody'}'s"
    raise PermissionDeniedError(
        f"seat {seat} is played by {bot_name!r}, {whose} bot; only its owner or an admin may "
        f"see what it saw (you are {who.name})"
    )


def check_tournament_change(who: Principal, tournament_id: str, owner: str, what: str) -> None:
    """Raise unless ``who`` created the tournament or is an admin."""
    if who.grants(Scope.ADMIN) or (owner and owner == who.name):
        return
    raise PermissionDeniedError(
        f"tournament {tournament_id} belongs to {owner or 'nobody'}; only its creator or an "
        f"admin may {what} it (you are {who.name})"
    )


def check_account(who: Principal, user: str, what: str) -> None:
    """Raise unless ``who`` is ``user`` or an admin (managing tokens)."""
    if who.grants(Scope.ADMIN) or user == who.name:
        return
    raise PermissionDeniedError(f"only {user} or an admin may {what} (you are {who.name})")


def check_grant(who: Principal, scopes: frozenset[Scope], for_admin_user: bool) -> None:
    """Raise unless ``who`` may hand out a token with ``scopes``: never more than it holds
    (an admin may grant anything), admin scope only to admin users."""
    if Scope.ADMIN in scopes and not for_admin_user:
        raise PermissionDeniedError("the admin scope is only for admin users")
    if who.grants(Scope.ADMIN):
        return
    beyond = [s for s in scopes if not who.grants(s)]
    if beyond:
        raise PermissionDeniedError(
            f"a token cannot grant more than it holds: {who.describe()} lacks "
            f"{', '.join(names(beyond))}"
        )
