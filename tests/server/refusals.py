"""Helpers for tests of refused calls: assert a refusal wrote nothing, get a running match."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest

from hamlet.v1 import arena_pb2, worker_pb2
from tests.server import fakeworker
from tests.server.conftest import Metadata, Running, row_counts


def assert_refused(
    run: Running, call: Callable[[], Any], code: grpc.StatusCode, text: str
) -> grpc.RpcError:
    """Make ``call``; assert it is refused with ``code`` and ``text`` and wrote nothing."""
    before = row_counts(run.store.engine)
    sent = list(run.queue.sent)
    with pytest.raises(grpc.RpcError) as err:
        call()
    assert err.value.code() == code, err.value.details()  # type: ignore[attr-defined]
    assert text in err.value.details(), err.value.details()  # type: ignore[attr-defined]
    assert row_counts(run.store.engine) == before
    assert run.queue.sent == sent
    return err.value


def running_match(run: Running, admin: Metadata, worker: Metadata) -> worker_pb2.MatchSpec:
    """Announce the bots, start a two-bot tournament and claim its first match (its attempt
    token is kept in ``run.attempts``)."""
    fakeworker.announce(run.worker_channel, ["toy"])
    run.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(game="toy", bots=["alpha", "beta"], start=True),
        metadata=admin,
    )
    claim = run.host.ClaimMatch(
        worker_pb2.ClaimMatchRequest(match_id=run.queue.sent[0], worker_id="w"), metadata=worker
    )
    run.attempts[claim.match.match_id] = claim.attempt_token
    return claim.match


def finish_others(run: Running, match_id: str) -> None:
    """Play every other queued match, so that ``match_id``'s block is over and published."""
    for other in run.queue.sent:
        if other != match_id:
            fakeworker.play(run.worker_channel, other)
