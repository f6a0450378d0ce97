"""Consent and time controls <-> protobuf: bot permissions, invitations, rated time controls.
Part of :mod:`server.servicers.convert`, which re-exports it."""

from __future__ import annotations

from datetime import datetime

from hamlet.v1 import arena_pb2, common_pb2
from server.services.consent import Permission
from server.services.errors import InvalidArgumentError
from server.services.invitations import Invitation, InvitationStatus
from server.services.timecontrol import TimeControl

_PERMISSIONS = {
    Permission.PRIVATE: arena_pb2.BOT_PERMISSION_PRIVATE,
    Permission.CHALLENGEABLE: arena_pb2.BOT_PERMISSION_CHALLENGEABLE,
    Permission.OPEN: arena_pb2.BOT_PERMISSION_OPEN,
}
_FROM_WIRE = {wire: p for p, wire in _PERMISSIONS.items()}
_STATUSES = {
    InvitationStatus.PENDING: arena_pb2.INVITATION_STATUS_PENDING,
    InvitationStatus.ACCEPTED: arena_pb2.INVITATION_STATUS_ACCEPTED,
    InvitationStatus.DECLINED: arena_pb2.INVITATION_STATUS_DECLINED,
    InvitationStatus.EXPIRED: arena_pb2.INVITATION_STATUS_EXPIRED,
}


def _iso(when: datetime | None) -> str:
    return "" if when is None else when.isoformat(timespec="seconds") + "Z"


def permission(stored: str) -> arena_pb2.BotPermission.ValueType:
    """A bot's permission as stored -> the wire enum."""
    return _PERMISSIONS[Permission.of(stored)]


def permission_from(wire: arena_pb2.BotPermission.ValueType) -> Permission:
    """The wire enum -> a permission; INVALID_ARGUMENT when none is named."""
    found = _FROM_WIRE.get(wire)
    if found is None:
        raise InvalidArgumentError("name a permission: private, challengeable or open")
    return found


def invitation(inv: Invitation) -> arena_pb2.Invitation:
    """An invitation with its status now."""
    r = inv.record
    return arena_pb2.Invitation(
        invitation_id=r.invitation_id,
        bot_name=r.bot_name,
        challenger=r.challenger,
        owner=r.owner,
        rated=r.rated,
        message=r.message,
        status=_STATUSES[inv.status],
        created_at=_iso(r.created_at),
        answered_at=_iso(r.answered_at),
        expires_at=_iso(r.expires_at),
    )


def time_control(tc: TimeControl) -> common_pb2.TimeControl:
    """A time control."""
    return common_pb2.TimeControl(decision_time_ms=tc.decision_ms, time_bank_ms=tc.bank_ms)
