"""Workers under faults, with real parts (redis-server, Celery worker processes, the gRPC
server on SQLite): a worker whose token was revoked stops at once with a non-zero status,
gives back every task it took (nothing acked, nothing recorded by it), and a healthy worker
then plays every match once.

Waits are guards against a hang; nothing asserts how long anything took."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from hamlet.v1 import arena_pb2
from tests.integration.stack import Worker, bots_announced, scaled, wait_until
from tests.integration.test_queue import Stack, _stack
from workers.shutdown import EXIT_CREDENTIAL_REFUSED

# The guard against a hang, scaled as every wait is (stack.slowness).
pytestmark = [pytest.mark.integration, pytest.mark.timeout(scaled(600))]


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    # A wide dispatch window puts the whole tournament on the broker before any worker runs.
    yield from _stack(tmp_path, queue_timeout_seconds=120.0, dispatch_window=1000)


def queued(url: str) -> int:
    """Messages waiting in the broker's queues, and taken but not acked."""
    r = redis.Redis.from_url(url)
    waiting = sum(int(r.llen(k)) for k in r.keys("*") if r.type(k) == b"list")
    return waiting + int(r.hlen("unacked"))


def test_a_revoked_worker_exits_non_zero_and_loses_no_match(stack: Stack) -> None:
    made = stack.stub.CreateToken(arena_pb2.CreateTokenRequest(scopes=["worker"]), timeout=30)
    revoked = Worker(
        stack.tmp, stack.redis.url, f"127.0.0.1:{stack.port}", "revoked",
        HAMLET_WORKER_TOKEN=made.token,
    )  # fmt: skip
    try:
        wait_until(lambda: bots_announced(stack.stub, {"random", "first"}), 60, "bots")
        # Both pool processes announced (the next announce is a minute away): the refusal
        # is met by a claim, with a task in hand, not by an announce.
        wait_until(
            lambda: revoked.output().count("announced built-in bots") >= 2, 60, "both announces"
        )
        # Revoked while it runs: its next call (a claim) is refused.
        stack.stub.RevokeToken(
            arena_pb2.RevokeTokenRequest(token_id=made.token_info.token_id), timeout=30
        )
        tid, total = stack.tournament(rounds=10)  # ten blocks of two matches
        status = revoked.proc.wait(scaled(120))
    except BaseException:
        print(revoked.output()[-5000:])
        revoked.kill9()
        raise
    log = revoked.output()
    assert status == EXIT_CREDENTIAL_REFUSED, log[-5000:]
    assert "refused this worker's credential" in log
    assert "Task hamlet.play_block" in log, "it took no task: the requeue was not tested"
    # Every block it took went back to the queue (none acked); it recorded nothing.
    assert queued(stack.redis.url) == total // 2, log[-5000:]
    t = stack.status(tid)
    assert (t.matches_finished, t.matches_failed) == (0, 0)

    worker = stack.worker("healthy")
    try:
        wait_until(lambda: stack.settled(tid), 300, "the tournament")
        stack.recorded_once(tid, total)
        print(f"revoked worker: exit {status}; {total} matches planned, {total} recorded, 0 FAILED")
    except BaseException:
        print(worker.output()[-5000:])
        raise
    finally:
        worker.stop()
