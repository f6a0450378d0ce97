"""JoinLadder, ListBots and the bot page (ListBotVersions, GetBotVersion, the web page) each
run a constant number of SQL statements: as many at 500 bots as at 50."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from starlette.testclient import TestClient

from hamlet.v1 import arena_pb2
from server.services.ladder import BLOCKS_IN_FLIGHT
from server.storage import SqlStore
from tests.server import crowd
from tests.server.conftest import Running
from web.app import WebSettings, create_app

SIZES = (50, 500)


@pytest.fixture
def web(running: Running) -> Iterator[TestClient]:
    """The web app, reading from the running server."""
    app = create_app(WebSettings(server=running.addr, token=running.admin_token))
    with TestClient(app) as client:
        yield client
    app.state.reader.close()


def _statements(
    store: SqlStore, call: Callable[[], object], before: Callable[[], object] = lambda: None
) -> int:
    """Statements of the second of two calls (the first fills caches, like a warm server);
    ``before`` runs, uncounted, before each."""
    before()
    call()
    before()
    with crowd.counting(store.engine) as seen:
        call()
    return seen.count


def _season(running: Running, game: str) -> str:
    return running.arena.GetLadder(arena_pb2.GetLadderRequest(game=game)).tournament_id


def _counts(running: Running, web: TestClient, game: str, size: int) -> dict[str, int]:
    """Statements per call with ``size`` bots in the store."""
    store = running.store
    arena = running.arena
    name = crowd.bot_name(size // 2)
    out = {
        "ListBots": _statements(store, lambda: arena.ListBots(arena_pb2.ListBotsRequest())),
        "ListBots(game)": _statements(
            store, lambda: arena.ListBots(arena_pb2.ListBotsRequest(game=game))
        ),
        "ListBotVersions": _statements(
            store, lambda: arena.ListBotVersions(arena_pb2.ListBotVersionsRequest(name=name))
        ),
        "GetBotVersion": _statements(
            store, lambda: arena.GetBotVersion(arena_pb2.GetBotVersionRequest(bot=name))
        ),
        "GetBotVersion@1": _statements(
            store, lambda: arena.GetBotVersion(arena_pb2.GetBotVersionRequest(bot=f"{name}@1"))
        ),
        "bot page": _statements(store, lambda: web.get(f"/bots/{name}").raise_for_status()),
        "GetLadder": _statements(
            store, lambda: arena.GetLadder(arena_pb2.GetLadderRequest(game=game))
        ),
    }
    join = arena_pb2.LadderRequest(bot_name=name, game=game)
    # With its blocks open the ladder schedules nothing: the call's own cost.
    out["JoinLadder (blocks open)"] = _statements(store, lambda: arena.JoinLadder(join))

    # With what is open cancelled first (not counted), a join schedules a full set of blocks.
    out["JoinLadder (schedules)"] = _statements(
        store,
        lambda: arena.JoinLadder(join),
        lambda: store.cancel_open_matches(_season(running, game), crowd.NOW),
    )
    ladder = arena.GetLadder(arena_pb2.GetLadderRequest(game=game))
    assert ladder.open_blocks == BLOCKS_IN_FLIGHT and len(ladder.bots) == size
    return out


def test_bot_and_ladder_calls_take_as_many_statements_at_500_bots_as_at_50(
    running: Running, web: TestClient, toy: str
) -> None:
    seen: dict[int, dict[str, int]] = {}
    done = 0
    for size in SIZES:
        crowd.seed(running.store, toy, "toy-1", size, first=done)
        done = size
        if size == SIZES[0]:  # the season exists before anything is counted
            running.arena.JoinLadder(arena_pb2.LadderRequest(bot_name=crowd.bot_name(0)))
        seen[size] = _counts(running, web, toy, size)
    assert seen[SIZES[0]] == seen[SIZES[1]], seen
