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
from server.auth.ratelimit import RateKind, RateLimiter, RateLimits
from server.services.errors import (
    AlreadyExistsError,
    CoolDownError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
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
#: What an unknown token id's secret is derived against (the same cost as a known id's).
_DUMMY_SALT = "00" * 16
_DUMMY_HASH = "00" * 32


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
        limiter: RateLimiter | None = None,
    ) -> None:
        self.store = store
        self.limiter = limiter if limiter is not None else RateLimiter(RateLimits())
        self.now = now or utcnow
        self.cache_seconds = cache_seconds
        self.clock = clock
        self._cache: dict[str, tuple[TokenRecord, float]] = {}
        self._lock = threading.Lock()

    # -- authentication -------------------------------------------------------------------

    def authenticate(self, token: str, client: str = "") -> Principal:
        """The principal behind a bearer token; :class:`UnauthenticatedError` saying why not.

        ``client`` is the caller's address (a rate-limit key). A token verified before is
        found by a fast digest and costs no key derivation; otherwise a client address or
        token id with too many recent failures gets :class:`ResourceExhaustedError` before
        any key derivation, and an unknown token id costs and answers the same as a known
        one with a wrong secret.
        """
        key = tokens.fingerprint(token)
        record = self._cached(key)
        if record is None:
            record = self._verify(token, client)
            with self._lock:
                while len(self._cache) >= 10_000:  # forget the oldest, not every token
                    self._cache.pop(next(iter(self._cache)))
                self._cache[key] = (record, self.clock())
        now = self.now()
        if record.user.disabled_at is not None:
            raise UnauthenticatedError(
                f"user {record.user.name} is disabled (since "
                f"{record.user.disabled_at.isoformat()}Z); an admin on the server's host can "
                f"enable it with `hamlet user enable {record.user.name}`"
            )
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
            expires_at=record.expires_at,
        )

    def verified_worker(self, token: str) -> bool:
        """Whether ``token`` was verified before and holds the worker scope: a dictionary
        look-up by a fast digest, cheap enough to run on gRPC's serving thread to choose the
        workers' own pool (the call is still authenticated there)."""
        with self._lock:
            cached = self._cache.get(tokens.fingerprint(token))
        return cached is not None and Scope.WORKER.value in cached[0].scopes

    def _cached(self, key: str) -> TokenRecord | None:
        """A remembered token, its record refreshed from the store (no key derivation: the
        digest of the whole token already matched) when older than ``cache_seconds``."""
        with self._lock:
            cached = self._cache.get(key)
        if cached is None:
            return None
        record, since = cached
        if self.clock() - since < self.cache_seconds:
            return record
        fresh = self.store.get_token(record.token_id)
        if fresh is None or fresh.secret_hash != record.secret_hash or fresh.revoked_at:
            with self._lock:
                self._cache.pop(key, None)
            if fresh is not None and fresh.revoked_at is not None:
                raise UnauthenticatedError(
                    f"token {fresh.token_id} was revoked at {fresh.revoked_at.isoformat()}Z"
                )
            return None
        with self._lock:
            self._cache[key] = (fresh, self.clock())
        return fresh

    def _may_try(self, address: str, token_key: str) -> bool:
        """Whether a key derivation may be spent (see :mod:`server.auth.ratelimit`): the
        address is not cooling down, and neither is the token id, unless the address has no
        failure of its own (or nobody knows the address)."""
        auth = RateKind.AUTH
        if not self.limiter.under(auth, address):
            return False
        if self.limiter.under(auth, token_key):
            return True
        return bool(address) and self.limiter.clean(auth, address)

    def _verify(self, token: str, client: str) -> TokenRecord:
        address = f"addr:{client}" if client else ""
        try:
            token_id, secret = tokens.split(token)
        except tokens.MalformedTokenError as exc:
            self.limiter.failed(address)
            raise UnauthenticatedError(str(exc)) from None
        if not self._may_try(address, f"token:{token_id}"):
            self.limiter.refused(RateKind.AUTH)
            window = self.limiter.window_seconds(RateKind.AUTH)
            over = not self.limiter.under(RateKind.AUTH, address)
            key = address if over else f"token:{token_id}"
            raise CoolDownError(
                f"too many failed authentications from this address or for token {token_id}; "
                f"wait up to {window} s, then try again with a valid token",
                "address" if over else "token",
                self.limiter.reset_in(RateKind.AUTH, key),
            )
        record = self.store.get_token(token_id)
        if record is None:
            # The same work as for a known id, so that time tells nothing either.
            tokens.matches(secret, _DUMMY_SALT, _DUMMY_HASH)
            ok = False
        else:
            ok = tokens.matches(secret, record.salt, record.secret_hash)
        if not ok or record is None:
            self.limiter.failed(address, f"token:{token_id}")
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
        if who.expires_at is not None and (expires is None or expires > who.expires_at):
            # The tree only narrows: a token cannot outlive the one that made it.
            left = max(0, int((who.expires_at - self.now()).total_seconds()))
            raise PermissionDeniedError(
                f"a token cannot outlive the token that creates it: {who.describe()} expires "
                f"at {who.expires_at.isoformat()}Z; ask for expires_in_seconds from 1 to {left}"
            )
        return self._issue(user, scopes, label, expires, parent_id=who.token_id or None)

    def list_tokens(self, who: Principal, user_name: str) -> list[TokenRecord]:
        """The tokens of ``user_name`` (the caller when empty)."""
        return self.store.list_tokens(self._user(who, user_name, "list its tokens").user_id)

    def revoke(self, who: Principal, token_id: str) -> TokenRecord:
        """Revoke a token of the caller's (any token, for an admin) and every token it
        created. Revoking needs every scope of the token revoked (or admin); another user's
        token answers exactly like an unknown one, so the refusal names nobody."""
        no_nul("token_id", token_id)
        record = self.store.get_token(token_id) if len(token_id) <= 32 else None
        admin = who.grants(Scope.ADMIN)
        if record is None or not (admin or record.user.name == who.name):
            raise NotFoundError(f"you have no token {token_id[:32]!r}")
        lacking = [s for s in Scope.parse(record.scopes) if not who.grants(s)]
        if lacking and not admin:
            raise PermissionDeniedError(
                f"revoking token {token_id} needs a token with its scopes "
                f"({', '.join(record.scopes)}) or admin; {who.describe()} lacks "
                f"{', '.join(names(lacking))}"
            )
        revoked = self.store.revoke_token_tree(token_id, self.now())
        gone = {token_id, *revoked}
        with self._lock:
            # Forget only these: other tokens (a worker's) stay verified, so a revocation
            # never sends them back through a key derivation and its cool-downs.
            for key in [k for k, (r, _) in self._cache.items() if r.token_id in gone]:
                del self._cache[key]
        after = self.store.get_token(token_id)
        assert after is not None
        log.info(
            "token %s of %s revoked by %s, with %d token(s) it created",
            token_id,
            record.user.name,
            who.name,
            max(0, len(revoked) - 1),
        )
        return after

    def _user(self, who: Principal, user_name: str, what: str) -> UserRecord:
        name = no_nul("user", user_name) or who.name
        policy.check_account(who, name, what)
        user = self.store.get_user(name) if len(name) <= 64 else None
        if user is None:
            raise NotFoundError(f"unknown user {name[:64]!r}")
        return user

    def _issue(
        self,
        user: UserRecord,
        scopes: frozenset[Scope],
        label: str,
        expires: datetime | None,
        parent_id: str | None = None,
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
            parent_id=parent_id,
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
            self._remember(issued)
            created = issued.token
            log.info("created the admin user and token %s", issued.record.token_id)
        elif not self._holds(data_dir / ADMIN_TOKEN_FILE, Scope.ADMIN):
            # Recovery from the server's host: a missing or no longer valid admin.token is
            # replaced at start (the host's operator owns the data directory anyway).
            created = self._recover_admin(data_dir)
        if not self._holds(data_dir / WORKER_TOKEN_FILE, Scope.WORKER):
            admin = self.store.get_user(ADMIN_USER)
            if admin is None:
                log.warning("no %s user: no worker token written to %s", ADMIN_USER, data_dir)
            else:
                issued = self._issue(admin, frozenset({Scope.WORKER}), "local workers", None)
                write_private(data_dir / WORKER_TOKEN_FILE, issued.token)
                # Verified by construction: local workers never wait on a key derivation
                # (or on a cool-down an attacker aimed at this token's id).
                self._remember(issued)
                log.info("wrote worker token %s", issued.record.token_id)
        return created

    def _recover_admin(self, data_dir: Path) -> str | None:
        """A new admin token for the ``admin`` user, written to ``admin.token``."""
        admin = self.store.get_user(ADMIN_USER)
        if admin is None or not admin.admin:
            log.warning("no admin user named %s: no admin token written", ADMIN_USER)
            return None
        issued = self._issue(admin, frozenset({Scope.ADMIN}), "recovered admin", None)
        write_private(data_dir / ADMIN_TOKEN_FILE, issued.token)
        self._remember(issued)
        log.warning(
            "%s was missing or not a valid admin token: wrote a new admin token %s",
            data_dir / ADMIN_TOKEN_FILE,
            issued.record.token_id,
        )
        return issued.token

    def _remember(self, issued: Issued) -> None:
        with self._lock:
            self._cache[tokens.fingerprint(issued.token)] = (issued.record, self.clock())

    def _holds(self, path: Path, scope: Scope) -> bool:
        try:
            return self.authenticate(path.read_text().strip()).grants(scope)
        except (OSError, UnauthenticatedError):
            return False
