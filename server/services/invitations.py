"""Bot permissions and invitations: how an owner consents to others entering their bot.

A bot's owner sets its standing permission (:class:`~server.services.consent.Permission`).
Another user who wants to enter a bot that does not let them asks its owner with a challenge
(an invitation, rated or not, with a short message). The owner accepts or declines it; an
accepted invitation lets the challenger enter the bot for ``grant_days`` days, a challenge
nobody answers lapses after ``pending_days``. Declining an accepted invitation withdraws it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from server.services import validation as v
from server.services.caller import Caller
from server.services.consent import Permission
from server.services.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
    ResourceExhaustedError,
)
from server.services.hygiene import strip_nul
from server.storage import BotRecord, InvitationRecord, Store
from server.storage.base import utcnow

#: The longest message a challenge carries to the owner (characters).
MAX_MESSAGE = 200
#: Challenges one user may have waiting for answers at once.
MAX_PENDING_SENT = 50
#: Invitations listed at most, received and sent each.
LIST_LIMIT = 100


class InvitationStatus(enum.Enum):
    """Where an invitation stands now."""

    PENDING = "pending"
    ACCEPTED = "accepted"  # the challenger may enter the bot until it expires
    DECLINED = "declined"
    EXPIRED = "expired"  # unanswered in time, or a grant past its end


@dataclass(frozen=True, slots=True)
class Invitation:
    """An invitation and its status at the time it was read."""

    record: InvitationRecord
    status: InvitationStatus


def status_of(record: InvitationRecord, now: datetime) -> InvitationStatus:
    """The status of a stored invitation at ``now`` (pending and accepted ones expire)."""
    if record.status == "declined":
        return InvitationStatus.DECLINED
    if record.expires_at <= now:
        return InvitationStatus.EXPIRED
    return InvitationStatus.ACCEPTED if record.status == "accepted" else InvitationStatus.PENDING


class InvitationService:
    """Setting permissions; challenging, listing and answering invitations."""

    def __init__(
        self,
        store: Store,
        pending_days: int = 7,
        grant_days: int = 30,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self.store = store
        self.pending = timedelta(days=pending_days)
        self.grant = timedelta(days=grant_days)
        self.now = now or utcnow

    def set_permission(self, caller: Caller, name: str, permission: Permission) -> BotRecord:
        """Set a bot's permission: its owner or an admin; never a built-in bot's."""
        bot = self._bot(name)
        if not bot.owner:
            raise PermissionDeniedError(
                f"bot {bot.name!r} is a built-in bot: anyone may enter it, and no user changes "
                "its permission"
            )
        if not caller.admin and bot.owner != caller.name:
            raise PermissionDeniedError(
                f"bot {bot.name!r} belongs to {bot.owner}; only its owner or an admin may change "
                f"its permission (you are {caller.name})"
            )
        done = self.store.set_bot_permission(bot.name, permission.value)
        if done is None:
            raise NotFoundError(f"unknown bot {name!r}")
        return done

    def challenge(self, caller: Caller, bot_name: str, rated: bool, message: str) -> Invitation:
        """Ask a bot's owner to let ``caller`` enter it (in rated events too if ``rated``). An
        invitation already pending or accepted that covers the request is returned instead of
        a new one."""
        message = strip_nul(message).strip()
        if len(message) > MAX_MESSAGE:
            raise InvalidArgumentError(
                f"the message is {len(message)} characters; at most {MAX_MESSAGE}"
            )
        if caller.user_id is None:
            raise PermissionDeniedError("only a user may challenge a bot")
        bot = self._bot(bot_name)
        if not bot.owner:
            raise FailedPreconditionError(
                f"bot {bot.name!r} is a built-in bot: anyone may enter it without an invitation"
            )
        if bot.owner == caller.name:
            raise FailedPreconditionError(f"bot {bot.name!r} is yours: enter it as you like")
        if bot.retired:
            raise FailedPreconditionError(f"bot {bot.name!r} is retired")
        permission = Permission.of(bot.permission)
        if permission.allows(rated):
            kind = "rated and unrated" if permission is Permission.OPEN else "unrated"
            raise FailedPreconditionError(
                f"no invitation needed: {bot.owner} lets anyone enter {bot.name!r} in {kind} "
                f"events ({permission.value})"
            )
        now = self.now()
        for found in self.store.live_invitations(bot.name, caller.user_id, now):
            if found.rated or not rated:  # it covers what is asked
                return Invitation(found, status_of(found, now))
        waiting = self.store.pending_sent(caller.user_id, now)
        if waiting >= MAX_PENDING_SENT:
            raise ResourceExhaustedError(
                f"you have {waiting} challenges waiting for answers; the limit is "
                f"{MAX_PENDING_SENT}: wait for answers, or for them to lapse "
                f"({self.pending.days} days after each was sent)"
            )
        made = self.store.add_invitation(
            bot.name, caller.user_id, rated, message, now, now + self.pending
        )
        if made is None:
            raise NotFoundError(f"unknown bot {bot_name!r}")
        return Invitation(made, status_of(made, now))

    def list_for(self, caller: Caller) -> tuple[list[Invitation], list[Invitation]]:
        """(received, sent): the caller's invitations, each newest first (at most
        :data:`LIST_LIMIT` each)."""
        if caller.user_id is None:
            return [], []
        now = self.now()
        received, sent = self.store.list_invitations(caller.user_id, LIST_LIMIT)
        return (
            [Invitation(r, status_of(r, now)) for r in received],
            [Invitation(r, status_of(r, now)) for r in sent],
        )

    def answer(self, caller: Caller, invitation_id: int, accept: bool) -> Invitation:
        """Accept or decline an invitation: the bot's owner or an admin. Accepting an
        accepted one, or declining a declined or expired one, changes nothing; declining an
        accepted one withdraws the grant."""
        if invitation_id <= 0:
            raise InvalidArgumentError(
                "invitation_id is required (`hamlet invitations` lists them)"
            )
        found = self.store.get_invitation(invitation_id)
        if found is None:
            raise NotFoundError(
                f"unknown invitation {invitation_id}; `hamlet invitations` lists yours"
            )
        if not caller.admin and found.owner != caller.name:
            raise PermissionDeniedError(
                f"invitation {invitation_id} asks {found.owner or 'the system'} about bot "
                f"{found.bot_name!r}; only its owner or an admin may answer it (you are "
                f"{caller.name})"
            )
        now = self.now()
        state = status_of(found, now)
        if accept:
            if state is InvitationStatus.ACCEPTED:
                return Invitation(found, state)
            if state is not InvitationStatus.PENDING:
                raise FailedPreconditionError(
                    f"invitation {invitation_id} is {state.value}; {found.challenger} may ask "
                    f"again with `hamlet challenge {found.bot_name}`"
                )
            done = self.store.answer_invitation(
                invitation_id, "accepted", now, now + self.grant, ["pending"]
            )
        else:
            if state in (InvitationStatus.DECLINED, InvitationStatus.EXPIRED):
                return Invitation(found, state)
            done = self.store.answer_invitation(invitation_id, "declined", now, now, [found.status])
        if done is None:
            raise FailedPreconditionError(
                f"invitation {invitation_id} was answered meanwhile; `hamlet invitations` "
                "shows it now"
            )
        return Invitation(done, status_of(done, now))

    def _bot(self, name: str) -> BotRecord:
        v.bot_name(name)
        found = self.store.get_bot(name)
        if found is None:
            raise NotFoundError(f"unknown bot {name!r}; `hamlet bots` lists them")
        return found
