"""Crafted archives sent to ``SubmitBot``: each is INVALID_ARGUMENT (never INTERNAL) and
writes nothing."""

from __future__ import annotations

import grpc
import pytest

from hamlet.v1 import arena_pb2
from tests.bots.test_archive_crafted import CRAFTED
from tests.server.conftest import Running, snapshot


def test_every_crafted_archive_is_invalid_argument_and_writes_nothing(running: Running) -> None:
    before = snapshot(running.store)
    for name, code in sorted(CRAFTED.items()):
        with pytest.raises(grpc.RpcError) as refused:
            running.arena.SubmitBot(
                arena_pb2.SubmitBotRequest(name="crafted", game="toy", archive=code)
            )
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT, name
        assert "archive rejected" in (refused.value.details() or ""), name
    assert snapshot(running.store) == before


def test_the_nested_manifest_says_what_a_manifest_is(running: Running) -> None:
    with pytest.raises(grpc.RpcError) as refused:
        running.arena.SubmitBot(
            arena_pb2.SubmitBotRequest(name="crafted", game="toy", archive=CRAFTED["nested arrays"])
        )
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "nests more than" in (refused.value.details() or "")
