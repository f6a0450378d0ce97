"""The match queue under faults, with real parts (redis-server, Celery workers, the gRPC
server, SQLite): a backlog longer than the queue timeout loses nothing, Redis restarted
empty mid-tournament loses nothing, and 40 watchers do not hold up workers' reports.

Waits are guards against a hang, computed from the documented recovery bound; nothing
asserts how long anything took."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from hamlet.paging import all_matches
from hamlet.v1 import arena_pb2, arena_pb2_grpc, common_pb2
from server.app import HamletServer, build_server
from server.config import Settings
from server.services.recovery import RecoveryBound
from tests.integration.stack import (
    RedisProcess,
    Worker,
    arena,
    bots_announced,
    running_redis,
    scaled,
    wait_until,
)

# The guard against a hang, scaled as every wait is (stack.slowness).
pytestmark = [pytest.mark.integration, pytest.mark.timeout(scaled(600))]


@dataclass
class Stack:
    tmp: Path
    redis: RedisProcess
    server: HamletServer
    port: int
    stub: arena_pb2_grpc.ArenaStub

    def worker(self, name: str) -> Worker:
        token = str(self.tmp / "data" / "worker.token")
        return Worker(
            self.tmp, self.redis.url, f"127.0.0.1:{self.port}", name, HAMLET_WORKER_TOKEN_FILE=token
        )

    @property
    def bound(self) -> RecoveryBound:
        s = self.server.settings
        return RecoveryBound(
            s.match_lease_seconds, s.queue_timeout_seconds, s.reaper_interval_seconds
        )

    def tournament(self, rounds: int) -> tuple[str, int]:
        t = self.stub.CreateTournament(
            arena_pb2.CreateTournamentRequest(
                game="village",
                bots=["random", "first"],
                players_per_table=2,
                rounds=rounds,
                seed=11,
                start=True,
            ),
            timeout=30,
        )
        return t.tournament_id, t.matches_total

    def status(self, tournament_id: str) -> arena_pb2.Tournament:
        ref = arena_pb2.TournamentRef(tournament_id=tournament_id)
        return self.stub.GetTournament(ref, timeout=30)

    def settled(self, tournament_id: str) -> bool:
        t = self.status(tournament_id)
        done = t.matches_finished + t.matches_failed + t.matches_cancelled
        return done == t.matches_total

    def recorded_once(self, tournament_id: str, total: int) -> None:
        t = self.status(tournament_id)
        assert (t.matches_finished, t.matches_failed) == (total, 0), t
        with sqlite3.connect(self.tmp / "data" / "hamlet.db") as conn:
            rows = conn.execute(
                "SELECT match_id, COUNT(*) FROM results WHERE match_id LIKE ? GROUP BY match_id",
                (f"{tournament_id}.%",),
            ).fetchall()
        assert len(rows) == total and all(n == 1 for _, n in rows)
        matches = all_matches(self.stub, tournament_id, timeout=30)
        assert all(m.status == common_pb2.MATCH_STATUS_FINISHED for m in matches)


def _stack(tmp: Path, **settings: float) -> Iterator[Stack]:
    with running_redis(tmp) as redis:
        config = Settings(
            data_dir=tmp / "data",
            redis_url=redis.url,
            grpc_host="127.0.0.1",
            grpc_port=0,
            metrics_port=-1,
            match_lease_seconds=20.0,
            reaper_interval_seconds=0.5,
            **settings,  # type: ignore[arg-type]
        )
        server, port = build_server(config)
        channel, stub = arena(port, (config.data_dir / "admin.token").read_text().strip())
        try:
            yield Stack(tmp, redis, server, port, stub)
        finally:
            channel.close()
            server.stop(1)


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    # One client (the admin) opens every watcher here: its share of the stream cap is the cap.
    yield from _stack(tmp_path, queue_timeout_seconds=30.0, max_streams_per_client=16)


@pytest.fixture
def impatient(tmp_path: Path) -> Iterator[Stack]:
    """A queue timeout far shorter than the time the backlog takes to play (and a dispatch
    window wide enough to put a backlog on the broker at all)."""
    yield from _stack(tmp_path, queue_timeout_seconds=1.0, dispatch_window=1000)


def test_a_backlog_longer_than_the_queue_timeout_loses_no_match(impatient: Stack) -> None:
    worker = impatient.worker("w1")
    try:
        wait_until(lambda: bots_announced(impatient.stub, {"random", "first"}), 60, "bots")
        tid, total = impatient.tournament(rounds=150)
        assert total == 300
        wait_until(lambda: impatient.settled(tid), 500, "the 300-match tournament")
        impatient.recorded_once(tid, total)
        resent = impatient.server.metrics.matches_requeued.labels("timeout")._value.get()
        assert resent > 0, "the backlog never outlived the queue timeout: nothing was tested"
        print(f"backlog: {total} matches, {int(resent)} re-sent after the queue timeout, 0 lost")
    except BaseException:
        print(worker.output()[-5000:])
        raise
    finally:
        worker.stop()


def test_redis_restarted_empty_mid_tournament_loses_no_match(stack: Stack) -> None:
    worker = stack.worker("w1")
    try:
        wait_until(lambda: bots_announced(stack.stub, {"random", "first"}), 60, "bots")
        tid, total = stack.tournament(rounds=60)
        wait_until(lambda: stack.status(tid).matches_finished >= 10, 120, "ten matches")
        stack.redis.kill9()  # every queued message is gone
        assert stack.status(tid).matches_finished < total, "too late to test anything"
        stack.redis.start()  # empty
        # Guard: the bound for a lost message (or a dead claim), plus time to play them all.
        wait_until(lambda: stack.settled(tid), stack.bound.bound() + 240, "the tournament")
        stack.recorded_once(tid, total)
    except BaseException:
        print(worker.output()[-5000:])
        raise
    finally:
        worker.stop()


def test_forty_watchers_do_not_stop_workers_reports(stack: Stack) -> None:
    worker = stack.worker("w1")
    errors: list[grpc.StatusCode] = []
    ends: list[int] = []
    lock = threading.Lock()
    try:
        wait_until(lambda: bots_announced(stack.stub, {"random", "first"}), 60, "bots")
        tid, total = stack.tournament(rounds=40)

        def watch() -> None:
            request = arena_pb2.WatchTournamentRequest(tournament_id=tid, include_finished=True)
            try:
                seen = sum(
                    1 for e in stack.stub.WatchTournament(request, timeout=500) if e.match.match_id
                )
            except grpc.RpcError as exc:
                with lock:
                    errors.append(exc.code())
                return
            with lock:
                ends.append(seen)

        threads = [threading.Thread(target=watch, daemon=True) for _ in range(40)]
        for t in threads:
            t.start()
        wait_until(lambda: stack.settled(tid), 500, "the tournament under 40 watchers")
        for t in threads:
            t.join(60)
        stack.recorded_once(tid, total)
        cap = stack.server.settings.max_streams
        assert len(ends) == cap and ends == [total] * cap
        assert errors == [grpc.StatusCode.RESOURCE_EXHAUSTED] * (40 - cap)
    except BaseException:
        print(worker.output()[-5000:])
        raise
    finally:
        worker.stop()
