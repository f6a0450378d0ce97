"""The server's own metrics, read from a fresh registry of a real server."""

from __future__ import annotations

from hamlet.v1 import arena_pb2
from server.metrics import WorkerSightings
from server.storage.sqlbase import operation
from tests.server import fakeworker
from tests.server.conftest import Running


def value(run: Running, name: str, **labels: str) -> float | None:
    return run.registry.get_sample_value(name, labels)


def test_tournaments_fits_statements_and_workers_seen(running: Running) -> None:
    assert value(running, "hamlet_server_workers_seen") == 0
    fakeworker.announce(running.worker_channel, ["toy"], bots=("random", "alpha"))
    assert value(running, "hamlet_server_workers_seen") == 1
    running.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=["random", "alpha"], players_per_table=2, rounds=2, rated=True
        )
    )
    assert value(running, "hamlet_server_tournaments", state="created") == 1
    assert value(running, "hamlet_server_tournaments", state="running") == 0
    running.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="toy"))
    assert value(running, "hamlet_server_rating_fit_seconds_count", game="toy") == 1
    assert value(running, "hamlet_server_rating_fit_matches", game="toy") == 0
    selects = value(running, "hamlet_server_store_seconds_count", operation="select")
    inserts = value(running, "hamlet_server_store_seconds_count", operation="insert")
    assert selects and inserts


def test_workers_seen_counts_recent_ids_only() -> None:
    now = [0.0]
    sightings = WorkerSightings(window_seconds=60, clock=lambda: now[0])
    sightings.seen("a")
    sightings.seen("b")
    now[0] = 30
    sightings.seen("a")
    assert sightings.recent() == 2
    now[0] = 80  # b was last seen at 0
    assert sightings.recent() == 1
    now[0] = 200
    assert sightings.recent() == 0


def test_statement_kinds_are_a_closed_set() -> None:
    assert operation("  SELECT 1") == "select"
    assert operation("insert into x values (1)") == "insert"
    assert operation("PRAGMA foreign_keys=ON") == "other"
    assert operation("") == "other"
