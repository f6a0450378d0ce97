"""Users and API tokens: create, list, revoke, authenticate, and the first admin token.

Tokens are checked with a slow key derivation, so a verified token is remembered in memory for
``cache_seconds`` (keyed by a digest of the whole token). Revoking a token goes through this
service (the server is the single writer), which forgets every remembered token at once.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from server.auth import policy, tokens
from server.auth.identity import Principal, Scope, names
from server.services.errors import (
    AlreadyExistsError,
    InvalidArgumentError,
    NotFoundError,
    UnauthenticatedError,
)
from server.services.hygiene import no_nul
from server.storage import Store, StoreConflictError, TokenRecord, UserRecord
from server.storage.base import utcnow

log = logging.getLogger(__name__)

USER_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
ADMIN_USER = "admin"
ADMIN_TOKEN_FILE = "admin.token"
WORKER_TOKEN_FILE = "worker.token"
MAX_LABEL = 100
MAX_EXPIRY_SECONDS = 10 * 365 * 24 * 3600
DEFAULT_SCOPES = frozenset({Scope.READ, Scope.SUBMIT})


@dataclass(frozen=True, slots=True)
class Issued:
    """A new token: what is stored and the secret string (shown once)."""

    record: TokenRecord
    token: str


def write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable by its owner only (mode 0600)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, (text + "\n").encode())
    finally:
        os.close(fd)


class AccountService:
    """Accounts and the bearer-token check the interceptor calls."""

    def __init__(
        self,
        store: Store,
        now: Callable[[], datetime] | None = None,
        cache_seconds: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.now = now or utcnow
        self.cache_seconds = cache_seconds
        self.clock = clock
        self._cache: dict[str, tuple[TokenRecord, float]] = {}
        self._lock = threading.Lock()

    # -- authentication -------------------------------------------------------------------

    def authenticate(self, token: str) -> Principal:
        """The principal behind a bearer token; :class:`UnauthenticatedError` saying why not."""
        key = tokens.fingerprint(token)
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None and self.clock() - cached[1] < self.cache_seconds:
            record = cached[0]
        else:
            record = self._verify(token)
            with self._lock:
                if len(self._cache) > 10_000:
                    self._cache.clear()
                self._cache[key] = (record, self.clock())
        now = self.now()
        if record.expires_at is not None and record.expires_at <= now:
            raise UnauthenticatedError(
                f"token {record.token_id} expired at {record.expires_at.isoformat()}Z; "
                "make a new one with `hamlet token create`"
            )
        return Principal(
            user_id=record.user.user_id,
            name=record.user.name,
            admin=record.user.admin,
            scopes=Scope.parse(record.scopes),
            token_id=record.token_id,
        )

    def _verify(self, token: str) -> TokenRecord:
        try:
            token_id, secret = tokens.split(token)
        except tokens.MalformedTokenError as exc:
            raise UnauthenticatedError(str(exc)) from None
        record = self.store.get_token(token_id)
        if record is None or not tokens.matches(secret, record.salt, record.secret_hash):
            raise UnauthenticatedError(f"token {token_id} is not valid (unknown or wrong secret)")
        if record.revoked_at is not None:
            raise UnauthenticatedError(
                f"token {token_id} was revoked at {record.revoked_at.isoformat()}Z"
            )
        return record

    # -- users and tokens -----------------------------------------------------------------

    def create_user(self, who: Principal, name: str, admin: bool) -> tuple[UserRecord, Issued]:
        """A new user with a first token (admin scope for an admin, else read + submit)."""
        if not USER_NAME.fullmatch(name):
            raise InvalidArgumentError(
                f"bad user name {name[:64]!r}: use 1-40 of a-z, 0-9, '_' and '-', "
                "starting with a letter or digit"
            )
        try:
            user = self.store.create_user(name, admin, self.now())
        except StoreConflictError:
            raise AlreadyExistsError(f"user {name!r} already exists") from None
        scopes = frozenset({Scope.ADMIN}) if admin else DEFAULT_SCOPES
        return user, self._issue(user, scopes, "first token", None)

    def create_token(
        self,
        who: Principal,
        user_name: str,
        scope_names: Sequence[str],
        expires_in_seconds: int,
        label: str,
    ) -> Issued:
        """A new token for ``user_name`` (the caller when empty), never beyond the caller's."""
        user = self._user(who, user_name, "create tokens for that user")
        try:
            scopes = Scope.parse(scope_names) if scope_names else DEFAULT_SCOPES
        except ValueError as exc:
            raise InvalidArgumentError(str(exc)) from None
        policy.check_grant(who, scopes, for_admin_user=user.admin)
        if not 0 <= expires_in_seconds <= MAX_EXPIRY_SECONDS:
            raise InvalidArgumentError(
                f"expires_in_seconds must be 0 (never) to {MAX_EXPIRY_SECONDS}"
            )
        if len(no_nul("label", label)) > MAX_LABEL:
            raise InvalidArgumentError(f"label must be at most {MAX_LABEL} characters")
        expires = self.now() + timedelta(seconds=expires_in_seconds) if expires_in_seconds else None
        return self._issue(user, scopes, label, expires)

    def list_tokens(self, who: Principal, user_name: str) -> list[TokenRecord]:
        """The tokens of ``user_name`` (the caller when empty)."""
        return self.store.list_tokens(self._user(who, user_name, "list its tokens").user_id)

    def revoke(self, who: Principal, token_id: str) -> TokenRecord:
        """Revoke a token of the caller's (any token, for an admin)."""
        no_nul("token_id", token_id)
        record = self.store.get_token(token_id) if len(token_id) <= 32 else None
        if record is None:
            raise NotFoundError(f"unknown token {token_id[:32]!r}")
        policy.check_account(who, record.user.name, "revoke this token")
        revoked = self.store.revoke_token(token_id, self.now())
        with self._lock:
            self._cache.clear()
        assert revoked is not None
        log.info("token %s of %s revoked by %s", token_id, record.user.name, who.name)
        return revoked

    def _user(self, who: Principal, user_name: str, what: str) -> UserRecord:
        name = no_nul("user", user_name) or who.name
        policy.check_account(who, name, what)
        user = self.store.get_user(name) if len(name) <= 64 else None
        if user is None:
            raise NotFoundError(f"unknown user {name[:64]!r}")
        return user

    def _issue(
        self, user: UserRecord, scopes: frozenset[Scope], label: str, expires: datetime | None
    ) -> Issued:
        new = tokens.make()
        record = self.store.add_token(
            user.user_id,
            new.token_id,
            names(scopes),
            label,
            new.salt,
            new.secret_hash,
            self.now(),
            expires,
        )
        return Issued(record, new.token)

    # -- first start ----------------------------------------------------------------------

    def bootstrap(self, data_dir: Path) -> str | None:
        """Make sure an admin exists and the data directory holds an admin and a worker token
        (mode 0600). Returns the admin token when this call created it (print it once)."""
        created = None
        if not self.store.has_admin():
            user = self.store.create_user(ADMIN_USER, True, self.now())
            issued = self._issue(user, frozenset({Scope.ADMIN}), "bootstrap admin", None)
            write_private(data_dir / ADMIN_TOKEN_FILE, issued.token)
            created = issued.token
            log.info("created the admin user and token %s", issued.record.token_id)
        if not self._holds(data_dir / WORKER_TOKEN_FILE, Scope.WORKER):
            admin = self.store.get_user(ADMIN_USER)
            if admin is None:
                log.warning("no %s user: no worker token written to %s", ADMIN_USER, data_dir)
            else:
                issued = self._issue(admin, frozenset({Scope.WORKER}), "local workers", None)
                write_private(data_dir / WORKER_TOKEN_FILE, issued.token)
                log.info("wrote worker token %s", issued.record.token_id)
        return created

    def _holds(self, path: Path, scope: Scope) -> bool:
        try:
            return self.authenticate(path.read_text().strip()).grants(scope)
        except (OSError, UnauthenticatedError):
            return False
