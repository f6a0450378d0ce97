"""A populated service for the web tests that need every kind of event: a small rated
tournament of each game, a running ladder season of village (three bots, its first blocks
played) and a finished head-to-head test, all played by the stand-in worker."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry
from starlette.testclient import TestClient

import games
from hamlet.channels import open_channel
from hamlet.v1 import arena_pb2, arena_pb2_grpc
from server.app import build_server
from server.config import Settings
from server.services.scheduling import MemoryEnqueuer
from tests.server import fakeworker
from tests.server.fakeworker import FAKE_WORKER_WINDOW
from web.app import WebSettings, create_app

GAMES = tuple(g for g in ("village", "my_village", "farmaria") if g in games.names())


@dataclass
class Populated:
    """The web client over a server with every kind of event, and those events' ids."""

    client: TestClient
    addr: str  # the gRPC server's
    admin_token: str
    arena: arena_pb2_grpc.ArenaStub  # an admin's
    tournaments: list[str]
    ladder: str
    sprt: str


def _play_queued(arena: arena_pb2_grpc.ArenaStub, worker: object, tid: str) -> None:
    for m in arena.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=tid)).matches:
        if m.status == 2:  # queued: the ones a worker would claim
            fakeworker.play(worker, m.match_id)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def populated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Populated]:
    tmp = tmp_path_factory.mktemp("links")
    settings = Settings(
        dispatch_window=FAKE_WORKER_WINDOW, data_dir=tmp / "data", grpc_port=0,
        metrics_port=-1, reaper_interval_seconds=3600,
    )  # fmt: skip
    server, port = build_server(settings, enqueuer=MemoryEnqueuer(), registry=CollectorRegistry())
    addr = f"127.0.0.1:{port}"
    data = Path(settings.data_dir)
    admin_token = (data / "admin.token").read_text().strip()
    admin = open_channel(addr, token=admin_token)
    worker = open_channel(addr, token=(data / "worker.token").read_text().strip())
    arena = arena_pb2_grpc.ArenaStub(admin)  # type: ignore[no-untyped-call]
    fakeworker.announce(worker, list(GAMES))
    tournaments = []
    for game in GAMES:
        t = arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(
                game=game, bots=["alpha", "beta"], players_per_table=2, rated=True, start=True,
                seed=5,
            )
        )  # fmt: skip
        tournaments.append(t.tournament_id)
        _play_queued(arena, worker, t.tournament_id)
    ladder = ""
    for name in ("alpha", "beta", "gamma"):
        joined = arena.JoinLadder(arena_pb2.LadderRequest(bot_name=name, game="village"))
        ladder = joined.tournament_id
    _play_queued(arena, worker, ladder)
    sprt = arena.StartSprt(
        arena_pb2.StartSprtRequest(
            game="village", bot_a="alpha", bot_b="beta", opponents=["gamma"], elo0=0, elo1=200,
            max_pairs=2,
        )
    ).test_id  # fmt: skip
    _play_queued(arena, worker, sprt)
    app = create_app(WebSettings(server=addr))
    with TestClient(app) as client:
        yield Populated(client, addr, admin_token, arena, tournaments, ladder, sprt)
    app.state.reader.close()
    admin.close()
    worker.close()
    server.stop(1)
