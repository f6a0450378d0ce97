"""Tokens, the policy and the account service without a network: hashing, expiry,
revocation, scopes, bootstrap files with private permissions."""

from __future__ import annotations

import stat
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from server.auth import tokens
from server.auth.identity import Principal, Scope
from server.auth.interceptor import bearer
from server.services.accounts import AccountService
from server.services.errors import (
    AlreadyExistsError,
    InvalidArgumentError,
    PermissionDeniedError,
    UnauthenticatedError,
)
from server.storage import SqlStore

NOW = datetime(2026, 6, 1, 12, 0, 0)


class Clock:
    def __init__(self) -> None:
        self.now = NOW
        self.mono = 0.0


@pytest.fixture
def accounts(store: SqlStore) -> tuple[AccountService, Clock]:
    clock = Clock()
    return AccountService(store, now=lambda: clock.now, clock=lambda: clock.mono), clock


def _admin(service: AccountService, tmp_path: Path) -> Principal:
    service.bootstrap(tmp_path)
    return service.authenticate((tmp_path / "admin.token").read_text().strip())


def test_token_format_and_constant_time_check() -> None:
    new = tokens.make()
    token_id, secret = tokens.split(new.token)
    assert (token_id, secret) == (new.token_id, new.secret)
    assert tokens.matches(secret, new.salt, new.secret_hash)
    assert not tokens.matches(secret + "x", new.salt, new.secret_hash)
    assert new.secret not in new.secret_hash and len(new.secret_hash) == 64
    for bad in ("", "Bearer x", "hmt_zz_x", "hmt_0123456789ab_", "abc_0123456789ab_s"):
        with pytest.raises(tokens.MalformedTokenError):
            tokens.split(bad)


def test_bearer_metadata() -> None:
    assert bearer([("authorization", "Bearer abc")]) == "abc"
    assert bearer([("x-other", "1")]) is None
    with pytest.raises(UnauthenticatedError, match="Bearer"):
        bearer([("authorization", "Basic abc")])


def test_scopes_imply_and_admin_needs_an_admin_user() -> None:
    submit = Principal(1, "a", False, frozenset({Scope.SUBMIT}))
    assert submit.grants(Scope.READ) and not submit.grants(Scope.WORKER)
    fake_admin = Principal(1, "a", False, frozenset({Scope.ADMIN}))
    assert not fake_admin.grants(Scope.ADMIN)
    worker = Principal(1, "a", True, frozenset({Scope.WORKER}))
    assert not worker.grants(Scope.READ)
    with pytest.raises(ValueError, match="unknown scope 'root'"):
        Scope.parse(["root"])


def test_bootstrap_writes_private_files_once(
    accounts: tuple[AccountService, Clock], tmp_path: Path
) -> None:
    service, _ = accounts
    token = service.bootstrap(tmp_path)
    assert token is not None
    for name in ("admin.token", "worker.token"):
        mode = stat.S_IMODE((tmp_path / name).stat().st_mode)
        assert mode == 0o600, name
    assert service.bootstrap(tmp_path) is None  # a second start keeps the same admin
    assert (tmp_path / "admin.token").read_text().strip() == token
    who = service.authenticate(token)
    assert who.admin and who.grants(Scope.ADMIN)
    worker = service.authenticate((tmp_path / "worker.token").read_text().strip())
    assert worker.grants(Scope.WORKER) and not worker.grants(Scope.READ)


def test_expiry_and_revocation(accounts: tuple[AccountService, Clock], tmp_path: Path) -> None:
    service, clock = accounts
    admin = _admin(service, tmp_path)
    _, first = service.create_user(admin, "alice", False)
    alice = service.authenticate(first.token)
    short = service.create_token(alice, "", ["read"], 60, "short")
    assert service.authenticate(short.token).scopes == frozenset({Scope.READ})
    clock.now += timedelta(seconds=61)
    with pytest.raises(UnauthenticatedError, match="expired"):
        service.authenticate(short.token)  # even though it is remembered
    service.revoke(alice, first.record.token_id)
    with pytest.raises(UnauthenticatedError, match="revoked"):
        service.authenticate(first.token)
    with pytest.raises(UnauthenticatedError, match="not valid"):
        service.authenticate(first.token[:-2] + "xx")


def test_tokens_never_grant_more_than_their_holder(
    accounts: tuple[AccountService, Clock], tmp_path: Path
) -> None:
    service, _ = accounts
    admin = _admin(service, tmp_path)
    _, first = service.create_user(admin, "alice", False)
    alice = service.authenticate(first.token)
    reader = service.authenticate(service.create_token(alice, "", ["read"], 0, "").token)
    with pytest.raises(PermissionDeniedError, match="lacks submit"):
        service.create_token(reader, "", ["submit"], 0, "")
    with pytest.raises(PermissionDeniedError, match="only for admin users"):
        service.create_token(admin, "alice", ["admin"], 0, "")
    with pytest.raises(PermissionDeniedError):
        service.create_token(alice, "admin", ["read"], 0, "")
    with pytest.raises(InvalidArgumentError, match="unknown scope"):
        service.create_token(alice, "", ["everything"], 0, "")
    with pytest.raises(AlreadyExistsError):
        service.create_user(admin, "alice", False)
    with pytest.raises(InvalidArgumentError, match="bad user name"):
        service.create_user(admin, "Alice\n", False)
    listed = service.list_tokens(alice, "")
    assert sorted(t.scopes for t in listed) == [("read",), ("read", "submit")]
