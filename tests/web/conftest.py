"""Fixtures for the web tests: a real gRPC server (SQLite, in-memory queue) whose matches a
stand-in worker plays with real engines, one small tournament per game (one seat of one
match forfeits), and the web app over it through Starlette's test client."""

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

GAMES = ("village", "my_village", "farmaria")


@dataclass
class Site:
    """The server, an admin stub, the web client and what was played."""

    addr: str
    arena: arena_pb2_grpc.ArenaStub
    client: TestClient
    tournaments: dict[str, str]  # game -> tournament id
    matches: dict[str, list[str]]  # game -> match ids
    forfeit_match: str
    user_token: str


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    tmp = tmp_path_factory.mktemp("web")
    queue = MemoryEnqueuer()
    settings = Settings(
        dispatch_window=FAKE_WORKER_WINDOW,
        data_dir=tmp / "data",
        grpc_port=0,
        metrics_port=-1,
        reaper_interval_seconds=3600,
    )
    server, port = build_server(settings, enqueuer=queue, registry=CollectorRegistry())
    addr = f"127.0.0.1:{port}"
    data = Path(settings.data_dir)
    admin = open_channel(addr, token=(data / "admin.token").read_text().strip())
    worker = open_channel(addr, token=(data / "worker.token").read_text().strip())
    arena = arena_pb2_grpc.ArenaStub(admin)  # type: ignore[no-untyped-call]
    fakeworker.announce(worker, [g for g in GAMES if g in games.names()])
    tournaments, matches = {}, {}
    forfeit = ""
    for game in GAMES:
        t = arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(
                game=game, bots=["alpha", "beta"], players_per_table=2, rated=True, start=True,
                seed=11,
            )
        )  # fmt: skip
        tournaments[game] = t.tournament_id
        ids = [
            m.match_id
            for m in arena.ListMatches(
                arena_pb2.TournamentRef(tournament_id=t.tournament_id)
            ).matches
        ]
        for i, mid in enumerate(ids):
            fakeworker.play(worker, mid, forfeit_seat=1 if (game == "village" and i == 0) else None)
        if game == "village":
            forfeit = ids[0]
        matches[game] = ids
    user = arena.CreateUser(arena_pb2.CreateUserRequest(name="carol")).token
    app = create_app(WebSettings(server=addr))
    with TestClient(app) as client:
        yield Site(addr, arena, client, tournaments, matches, forfeit, user)
    app.state.reader.close()
    admin.close()
    worker.close()
    server.stop(1)
