"""Fair share with real parts (redis-server, a Celery worker, the gRPC server, SQLite): a
user's small tournament, started behind another user's large one, finishes while the large
one still runs; the large one never had more than the window on the broker.

Waits are guards against a hang; nothing asserts how long anything took."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hamlet.v1 import arena_pb2, arena_pb2_grpc, common_pb2
from server.app import HamletServer, build_server
from server.config import Settings
from tests.integration.stack import Worker, arena, bots_announced, running_redis, scaled, wait_until

# The guard against a hang, scaled as every wait is (stack.slowness).
pytestmark = [pytest.mark.integration, pytest.mark.timeout(scaled(600))]


class Service:
    def __init__(self, tmp: Path, redis_url: str, server: HamletServer, port: int) -> None:
        self.tmp, self.redis_url, self.server, self.port = tmp, redis_url, server, port
        admin_token = (tmp / "data" / "admin.token").read_text().strip()
        self.channels = []
        channel, self.admin = arena(port, admin_token)
        self.channels.append(channel)

    def user(self, name: str) -> arena_pb2_grpc.ArenaStub:
        made = self.admin.CreateUser(arena_pb2.CreateUserRequest(name=name), timeout=30)
        channel, stub = arena(self.port, made.token)
        self.channels.append(channel)
        return stub

    def worker(self) -> Worker:
        token = str(self.tmp / "data" / "worker.token")
        return Worker(
            self.tmp, self.redis_url, f"127.0.0.1:{self.port}", "w1",
            HAMLET_WORKER_TOKEN_FILE=token,
        )  # fmt: skip


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    with running_redis(tmp_path) as redis:
        settings = Settings(
            data_dir=tmp_path / "data",
            redis_url=redis.url,
            grpc_port=0,
            metrics_port=-1,
            reaper_interval_seconds=0.5,
            dispatch_window=0,  # sized from the worker's pool, as by default
        )
        server, port = build_server(settings)
        out = Service(tmp_path, redis.url, server, port)
        try:
            yield out
        finally:
            for channel in out.channels:
                channel.close()
            server.stop(1)


def tournament(stub: arena_pb2_grpc.ArenaStub, rounds: int) -> str:
    t = stub.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="village",
            bots=["random", "first"],
            players_per_table=2,
            rounds=rounds,
            rated=False,
            start=True,
        ),
        timeout=60,
    )
    return t.tournament_id


def status(stub: arena_pb2_grpc.ArenaStub, tournament_id: str) -> arena_pb2.Tournament:
    return stub.GetTournament(arena_pb2.TournamentRef(tournament_id=tournament_id), timeout=30)


def test_a_small_event_finishes_while_a_large_one_runs(service: Service) -> None:
    alice, bob = service.user("alice"), service.user("bob")
    worker = service.worker()
    try:
        wait_until(lambda: bots_announced(alice, {"random", "first"}), 60, "bots")
        big = tournament(alice, rounds=1000)  # 2,000 matches: far longer than the test
        wait_until(lambda: status(alice, big).matches_finished >= 4, 120, "alice's first blocks")
        in_flight = service.server.store.blocks_in_flight()
        window = service.server.services.tournaments.dispatcher.capacity("matches")
        assert window is not None and len(in_flight) <= window
        small = tournament(bob, rounds=1)  # one block of two matches

        def small_done() -> bool:
            return status(bob, small).matches_finished == 2

        wait_until(small_done, 240, "bob's two matches")
        big_now = status(alice, big)
        assert big_now.matches_finished < big_now.matches_total
        assert big_now.status == common_pb2.TOURNAMENT_STATUS_RUNNING
        alice.CancelTournament(arena_pb2.TournamentRef(tournament_id=big), timeout=30)
    except BaseException:
        print(worker.output()[-5000:])
        raise
    finally:
        worker.stop()
