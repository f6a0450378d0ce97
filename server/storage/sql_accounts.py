"""Users and their API tokens."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from server.storage import models as m
from server.storage.base import StoreConflictError, TokenRecord, UserRecord
from server.storage.sqlbase import SqlBase


def _user(row: m.User) -> UserRecord:
    return UserRecord(row.id, row.name, bool(row.admin), row.created_at, row.disabled_at)


def _token(row: m.ApiToken, user: m.User) -> TokenRecord:
    return TokenRecord(
        token_id=row.id,
        user=_user(user),
        scopes=tuple(x for x in row.scopes.split(",") if x),
        label=row.label,
        salt=row.salt,
        secret_hash=row.secret_hash,
        created_at=row.created_at,
        expires_at=row.expires_at,
        revoked_at=row.revoked_at,
        parent_id=row.parent_id,
    )


class AccountsPart(SqlBase):
    """Users and their API tokens."""

    def create_user(self, name: str, admin: bool, now: datetime) -> UserRecord:
        try:
            with self._tx() as s:
                if s.scalar(select(m.User.id).where(m.User.name == name)) is not None:
                    raise StoreConflictError(f"user {name!r} exists")
                row = m.User(name=name, admin=admin, created_at=now)
                s.add(row)
                s.flush()
                return _user(row)
        except IntegrityError:  # a concurrent create of the same name
            raise StoreConflictError(f"user {name!r} exists") from None

    def get_user(self, name: str) -> UserRecord | None:
        with self._tx() as s:
            row = s.scalar(select(m.User).where(m.User.name == name))
            return None if row is None else _user(row)

    def set_user_disabled(self, name: str, when: datetime | None) -> UserRecord | None:
        with self._tx() as s:
            row = s.scalar(select(m.User).where(m.User.name == name))
            if row is None:
                return None
            row.disabled_at = when
            s.flush()
            return _user(row)

    def has_admin(self) -> bool:
        with self._tx() as s:
            return s.scalar(select(m.User.id).where(m.User.admin.is_(True)).limit(1)) is not None

    def add_token(
        self,
        user_id: int,
        token_id: str,
        scopes: Sequence[str],
        label: str,
        salt: str,
        secret_hash: str,
        now: datetime,
        expires_at: datetime | None,
        parent_id: str | None = None,
    ) -> TokenRecord:
        with self._tx() as s:
            user = s.get(m.User, user_id)
            if user is None:
                raise StoreConflictError(f"no user with id {user_id}")
            row = m.ApiToken(
                id=token_id,
                user_id=user_id,
                scopes=",".join(scopes),
                label=label,
                salt=salt,
                secret_hash=secret_hash,
                created_at=now,
                expires_at=expires_at,
                revoked_at=None,
                parent_id=parent_id,
            )
            s.add(row)
            s.flush()
            return _token(row, user)

    def get_token(self, token_id: str) -> TokenRecord | None:
        with self._tx() as s:
            found = s.execute(
                select(m.ApiToken, m.User)
                .join(m.User, m.User.id == m.ApiToken.user_id)
                .where(m.ApiToken.id == token_id)
            ).first()
            return None if found is None else _token(found[0], found[1])

    def list_tokens(self, user_id: int) -> list[TokenRecord]:
        with self._tx() as s:
            rows = s.execute(
                select(m.ApiToken, m.User)
                .join(m.User, m.User.id == m.ApiToken.user_id)
                .where(m.ApiToken.user_id == user_id)
                .order_by(m.ApiToken.created_at, m.ApiToken.id)
            ).all()
            return [_token(t, u) for t, u in rows]

    def revoke_token(self, token_id: str, now: datetime) -> TokenRecord | None:
        with self._tx() as s:
            s.execute(
                update(m.ApiToken)
                .where(m.ApiToken.id == token_id, m.ApiToken.revoked_at.is_(None))
                .values(revoked_at=now)
            )
        return self.get_token(token_id)

    def revoke_token_tree(self, token_id: str, now: datetime) -> list[str]:
        with self._tx() as s:
            # Walk down level by level; the tree is small (a user's delegations), and
            # ``seen`` guards against a cycle a hand-edited database could hold.
            seen = {token_id}
            level = [token_id]
            while level:
                children = s.scalars(
                    select(m.ApiToken.id).where(m.ApiToken.parent_id.in_(level))
                ).all()
                level = [c for c in children if c not in seen]
                seen.update(level)
            ids = sorted(seen)
            newly = s.scalars(
                select(m.ApiToken.id).where(m.ApiToken.id.in_(ids), m.ApiToken.revoked_at.is_(None))
            ).all()
            s.execute(
                update(m.ApiToken)
                .where(m.ApiToken.id.in_(ids), m.ApiToken.revoked_at.is_(None))
                .values(revoked_at=now)
            )
            return sorted(newly)
