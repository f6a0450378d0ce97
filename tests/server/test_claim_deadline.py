"""A claim is never committed after its requester gave up: the worker's gRPC deadline
travels with ClaimBlock and is checked inside the claim transaction, which is rolled back
past it (DEADLINE_EXCEEDED; no attempt counted, no claim left). The stall is real: another
connection holds SQLite's write lock past the deadline."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest

from hamlet.v1 import arena_pb2, worker_pb2
from server.services.errors import DeadlineExceededError
from server.services.scheduling import blocks_of
from server.storage import MatchStatus
from tests.server import fakeworker
from tests.server.conftest import Running


@contextmanager
def write_lock(db: Path) -> Iterator[None]:
    """Hold the database's write lock (a stalled writer) until the block ends."""
    conn = sqlite3.connect(db, timeout=30, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        yield
        conn.execute("ROLLBACK")
    finally:
        conn.close()


def _block(run: Running) -> list[str]:
    fakeworker.announce(run.worker_channel, ["toy"])
    run.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=["alpha", "beta"], players_per_table=2, rounds=1, start=True
        )
    )
    return next(iter(blocks_of(run.queue.sent, run.store.match_routes).values()))


def _handled(run: Running, code: str) -> float:
    value = run.registry.get_sample_value(
        "hamlet_grpc_server_handled_total", {"method": "MatchHost/ClaimBlock", "code": code}
    )
    return value or 0.0


def _assert_untouched(run: Running, block: list[str]) -> None:
    for match_id in block:
        match = run.store.get_match(match_id)
        assert match is not None
        assert (match.status, match.attempts) == (MatchStatus.QUEUED, 0)


def test_a_claim_stalled_past_its_deadline_is_rolled_back(running: Running) -> None:
    block = _block(running)
    db = running.server.settings.data_dir / "hamlet.db"
    request = worker_pb2.ClaimBlockRequest(match_ids=block, worker_id="w", task_id="t1")
    with write_lock(db):
        with pytest.raises(grpc.RpcError) as err:
            running.host.ClaimBlock(request, timeout=0.5)
        assert err.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
        time.sleep(0.5)  # hold the lock past the deadline: the server's claim is stalled
    # The stalled handler gets the lock now, finds its caller gone and rolls back.
    waited = time.monotonic()
    while _handled(running, "DEADLINE_EXCEEDED") < 1:
        assert time.monotonic() - waited < 60, "the stalled claim never ended"
        time.sleep(0.05)
    _assert_untouched(running, block)
    rolled_back = time.monotonic() - waited
    claims, report = fakeworker.play_block(running.worker_channel, block, task_id="t2")
    assert all(not c.skipped and c.claim.attempt_token for c in claims.claims)
    assert report is not None and all(r.recorded for r in report.results)
    assert [running.store.get_match(m).attempts for m in block] == [1, 1]  # type: ignore[union-attr]
    print(
        f"\nstalled claim (write lock held past a 0.5 s deadline): {len(block)} matches planned, "
        f"{sum(r.recorded for r in report.results)} recorded, 0 FAILED, no attempt counted by "
        f"the stalled claim; rolled back {rolled_back:.1f} s after the lock was released"
    )


def test_the_service_checks_the_deadline_inside_the_transaction(running: Running) -> None:
    block = _block(running)
    db = running.server.settings.data_dir / "hamlet.db"
    matches = running.server.services.matches
    ends = time.monotonic() + 0.3
    outcome: list[BaseException] = []

    def claim() -> None:
        try:
            matches.claim_block(block, "w", "t1", lambda: ends - time.monotonic())
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=claim)
    with write_lock(db):
        worker.start()
        time.sleep(1.0)  # the claim waits on the lock well past its deadline
    worker.join(60)
    assert len(outcome) == 1 and isinstance(outcome[0], DeadlineExceededError)
    _assert_untouched(running, block)
