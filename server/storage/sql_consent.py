"""Who may enter whose bot: a bot's standing permission and invitations between users."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, func, select, update
from sqlalchemy.orm import Session, aliased

from server.storage import models as m
from server.storage.base import BotRecord, InvitationRecord
from server.storage.sql_bots import BotsPart
from server.storage.sqlbase import rowcount

PENDING, ACCEPTED = "pending", "accepted"


def _select() -> Select[m.Invitation, str, str, str]:
    """Invitations with their bot's name, the challenger's and the owner's."""
    challenger, owner = aliased(m.User), aliased(m.User)
    return (
        select(m.Invitation, m.Bot.name, challenger.name, owner.name)
        .join(m.Bot, m.Bot.id == m.Invitation.bot_id)
        .join(challenger, challenger.id == m.Invitation.challenger_id)
        .outerjoin(owner, owner.id == m.Bot.owner_id)
    )


def _record(row: Any) -> InvitationRecord:
    inv, bot_name, challenger, owner = row
    return InvitationRecord(
        invitation_id=inv.id,
        bot_name=bot_name,
        challenger=challenger,
        owner=owner or "",
        rated=bool(inv.rated),
        message=inv.message or "",
        status=inv.status,
        created_at=inv.created_at,
        answered_at=inv.answered_at,
        expires_at=inv.expires_at,
    )


class ConsentPart(BotsPart):
    """Bot permissions and invitations."""

    def set_bot_permission(self, name: str, permission: str) -> BotRecord | None:
        with self._tx() as s:
            bot = s.scalar(select(m.Bot).where(m.Bot.name == name))
            if bot is None:
                return None
            bot.permission = permission
            s.flush()
            return self._bot_record(s, bot)

    def add_invitation(
        self,
        bot_name: str,
        challenger_id: int,
        rated: bool,
        message: str,
        now: datetime,
        expires_at: datetime,
    ) -> InvitationRecord | None:
        with self._tx() as s:
            bot_id = s.scalar(select(m.Bot.id).where(m.Bot.name == bot_name))
            if bot_id is None:
                return None
            row = m.Invitation(
                bot_id=bot_id,
                challenger_id=challenger_id,
                rated=rated,
                message=message,
                status=PENDING,
                created_at=now,
                answered_at=None,
                expires_at=expires_at,
            )
            s.add(row)
            s.flush()
            return self._invitation(s, row.id)

    def get_invitation(self, invitation_id: int) -> InvitationRecord | None:
        with self._tx() as s:
            return self._invitation(s, invitation_id)

    def live_invitations(
        self, bot_name: str, challenger_id: int, now: datetime
    ) -> list[InvitationRecord]:
        with self._tx() as s:
            rows = s.execute(
                _select()
                .where(
                    m.Bot.name == bot_name,
                    m.Invitation.challenger_id == challenger_id,
                    m.Invitation.status.in_((PENDING, ACCEPTED)),
                    m.Invitation.expires_at > now,
                )
                .order_by(m.Invitation.id.desc())
            ).all()
            return [_record(r) for r in rows]

    def pending_sent(self, challenger_id: int, now: datetime) -> int:
        with self._tx() as s:
            return int(
                s.scalar(
                    select(func.count(m.Invitation.id)).where(
                        m.Invitation.challenger_id == challenger_id,
                        m.Invitation.status == PENDING,
                        m.Invitation.expires_at > now,
                    )
                )
                or 0
            )

    def answer_invitation(
        self,
        invitation_id: int,
        status: str,
        now: datetime,
        expires_at: datetime,
        only_from: Sequence[str],
    ) -> InvitationRecord | None:
        with self._tx() as s:
            changed = s.execute(
                update(m.Invitation)
                .where(m.Invitation.id == invitation_id, m.Invitation.status.in_(only_from))
                .values(status=status, answered_at=now, expires_at=expires_at)
            )
            return self._invitation(s, invitation_id) if rowcount(changed) else None

    def list_invitations(
        self, user_id: int, limit: int
    ) -> tuple[list[InvitationRecord], list[InvitationRecord]]:
        with self._tx() as s:
            received = s.execute(
                _select()
                .where(m.Bot.owner_id == user_id)
                .order_by(m.Invitation.id.desc())
                .limit(limit)
            ).all()
            sent = s.execute(
                _select()
                .where(m.Invitation.challenger_id == user_id)
                .order_by(m.Invitation.id.desc())
                .limit(limit)
            ).all()
            return [_record(r) for r in received], [_record(r) for r in sent]

    def consent_grants(
        self, user_id: int, bot_names: Sequence[str], now: datetime
    ) -> dict[str, bool]:
        if not bot_names:
            return {}
        with self._tx() as s:
            rows = s.execute(
                select(m.Bot.name, m.Invitation.rated)
                .join(m.Invitation, m.Invitation.bot_id == m.Bot.id)
                .where(
                    m.Bot.name.in_(list(bot_names)),
                    m.Invitation.challenger_id == user_id,
                    m.Invitation.status == ACCEPTED,
                    m.Invitation.expires_at > now,
                )
            ).all()
        out: dict[str, bool] = {}
        for name, rated in rows:
            out[name] = out.get(name, False) or bool(rated)
        return out

    def _invitation(self, s: Session, invitation_id: int) -> InvitationRecord | None:
        row = s.execute(_select().where(m.Invitation.id == invitation_id)).first()
        return None if row is None else _record(row)
