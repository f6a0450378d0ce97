"""Tokens form a tree that only narrows (issue 22, point 2): subset scopes, an expiry no later
than the parent's, revocation of everything a token created, and revoking needs the scopes of
the token revoked (or admin)."""

from __future__ import annotations

import grpc
import pytest

from hamlet.v1 import arena_pb2
from tests.server.conftest import Running, snapshot


def refused(call: object) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as info:
        call()  # type: ignore[operator]
    return info.value.code()  # type: ignore[no-any-return]


def create(stub: object, **kw: object) -> arena_pb2.CreateTokenResponse:
    return stub.CreateToken(arena_pb2.CreateTokenRequest(**kw))  # type: ignore[attr-defined, no-any-return]


def test_a_token_creates_only_narrower_scopes(running: Running) -> None:
    _token, alice = running.user("alice")
    read = running.connect(create(alice, scopes=["read"]).token)
    before = snapshot(running.store)
    assert refused(lambda: create(read, scopes=["read", "submit"])) is (
        grpc.StatusCode.PERMISSION_DENIED
    )
    assert snapshot(running.store) == before
    made = create(read, scopes=["read"])
    assert list(made.token_info.scopes) == ["read"]


def test_a_short_lived_token_cannot_create_a_longer_lived_one(running: Running) -> None:
    _token, alice = running.user("alice")
    brief = running.connect(create(alice, expires_in_seconds=60).token)
    before = snapshot(running.store)
    for seconds in (0, 120):  # never, and later than its own expiry
        assert refused(lambda s=seconds: create(brief, expires_in_seconds=s)) is (
            grpc.StatusCode.PERMISSION_DENIED
        )
    assert snapshot(running.store) == before
    made = create(brief, expires_in_seconds=30)
    assert made.token_info.expires_at


def test_revoking_a_token_revokes_what_it_created(running: Running) -> None:
    first, alice = running.user("alice")
    child = create(alice, label="child")
    child_stub = running.connect(child.token)
    grandchild = create(child_stub, label="grandchild")
    grandchild_stub = running.connect(grandchild.token)
    sibling = create(alice, label="sibling")
    grandchild_stub.WhoAmI(arena_pb2.WhoAmIRequest())

    listed = {t.token_id: t for t in alice.ListTokens(arena_pb2.ListTokensRequest()).tokens}
    first_id = first.split("_")[1]
    assert listed[first_id].parent_token_id == ""
    assert listed[child.token_info.token_id].parent_token_id == first_id
    assert listed[grandchild.token_info.token_id].parent_token_id == child.token_info.token_id

    alice.RevokeToken(arena_pb2.RevokeTokenRequest(token_id=child.token_info.token_id))
    listed = {t.token_id: t for t in alice.ListTokens(arena_pb2.ListTokensRequest()).tokens}
    assert listed[child.token_info.token_id].revoked_at
    assert listed[grandchild.token_info.token_id].revoked_at
    assert not listed[sibling.token_info.token_id].revoked_at
    assert not listed[first_id].revoked_at
    assert refused(lambda: grandchild_stub.WhoAmI(arena_pb2.WhoAmIRequest())) is (
        grpc.StatusCode.UNAUTHENTICATED
    )


def test_revoking_needs_the_scopes_of_the_token_revoked(running: Running) -> None:
    _token, alice = running.user("alice")
    wide = create(alice, scopes=["read", "submit"], label="wide")
    read = running.connect(create(alice, scopes=["read"]).token)
    before = snapshot(running.store)
    assert refused(
        lambda: read.RevokeToken(arena_pb2.RevokeTokenRequest(token_id=wide.token_info.token_id))
    ) is (grpc.StatusCode.PERMISSION_DENIED)
    assert snapshot(running.store) == before
    # the admin may revoke any token
    running.arena.RevokeToken(arena_pb2.RevokeTokenRequest(token_id=wide.token_info.token_id))
