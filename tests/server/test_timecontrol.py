"""Rated time controls: one published clock per game, from configuration. Rated tournaments
and the ladder play it, a rated request naming another is refused (writing nothing), unrated
events choose their own; ListGames and GetLeaderboard show it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from prometheus_client import CollectorRegistry

from hamlet.v1 import arena_pb2, worker_pb2, worker_pb2_grpc
from server.app import build_server
from server.config import ConfigError, Settings
from server.services import timecontrol, tournaments
from server.services.scheduling import MemoryEnqueuer
from server.services.timecontrol import (
    STANDARD,
    RatedTimeControls,
    TimeControl,
    TimeControlError,
)
from tests.server import fakeworker
from tests.server.conftest import Running, snapshot

SOURCE = "from bots.sdk import run\nrun(lambda observation, legal: 0)\n"


def test_the_setting_parses() -> None:
    assert RatedTimeControls.parse("") == RatedTimeControls(STANDARD)
    assert TimeControl(1000, 10_000) == STANDARD
    both = RatedTimeControls.parse(" 700/7000 , village=500/5000,farmaria=2000 ")
    assert both.for_game("village") == TimeControl(500, 5000)
    assert both.for_game("farmaria") == TimeControl(2000, 20_000)  # bank: 10 decisions
    assert both.for_game("my_village") == TimeControl(700, 7000)
    assert str(both) == "700/7000,farmaria=2000/20000,village=500/5000"
    assert RatedTimeControls.parse("village=500/0").default == STANDARD
    assert TimeControl(1000, 10_000).describe() == "1000 ms per decision, a 10000 ms bank"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("fast", "write DECISION_MS/BANK_MS"),
        ("1000/lots", "write DECISION_MS/BANK_MS"),
        ("0/1000", "1..60000"),
        ("60001", "1..60000"),
        ("1000/600001", "0..600000"),
        ("1000,2000", "two default time controls"),
        ("village=1/2,village=3/4", "two time controls"),
        ("=1000", "GAME=DECISION_MS"),
    ],
)
def test_bad_settings_say_what_to_write(text: str, message: str) -> None:
    with pytest.raises(TimeControlError, match=message):
        RatedTimeControls.parse(text)


def test_settings_read_and_check_it() -> None:
    s = Settings.from_env({"HAMLET_RATED_TIME_CONTROL": "village=500/5000"})
    assert s.rated_time_control.for_game("village") == TimeControl(500, 5000)
    assert Settings.from_env({}).rated_time_control == RatedTimeControls()
    assert (s.invitation_pending_days, s.invitation_grant_days) == (7, 30)
    with pytest.raises(ConfigError, match="HAMLET_RATED_TIME_CONTROL: no game 'chess'"):
        Settings.from_env({"HAMLET_RATED_TIME_CONTROL": "chess=500/5000"})
    with pytest.raises(ConfigError, match="HAMLET_RATED_TIME_CONTROL: bad time control"):
        Settings.from_env({"HAMLET_RATED_TIME_CONTROL": "1s"})
    with pytest.raises(ConfigError, match=r"HAMLET_INVITATION_GRANT_DAYS must be 1\.\.3650"):
        Settings.from_env({"HAMLET_INVITATION_GRANT_DAYS": "0"})
    days = Settings.from_env({"HAMLET_INVITATION_PENDING_DAYS": "2"})
    assert days.invitation_pending_days == 2


def test_the_limits_are_the_tournaments() -> None:
    assert timecontrol.MAX_DECISION_MS == tournaments.MAX_DECISION_MS
    assert timecontrol.TIME_BANK_FACTOR == tournaments.TIME_BANK_FACTOR


@pytest.fixture
def clocked(tmp_path: Path, toy: str) -> Iterator[Running]:
    """A server whose toy plays rated at 300 ms a decision and a 2500 ms bank."""
    queue = MemoryEnqueuer()
    registry = CollectorRegistry()
    settings = Settings(
        data_dir=tmp_path / "data",
        grpc_port=0,
        metrics_port=-1,
        reaper_interval_seconds=3600,
        rated_time_control=RatedTimeControls.parse(f"700/7000,{toy}=300/2500"),
    )
    server, port = build_server(settings, enqueuer=queue, registry=registry)
    run = Running(server, port, queue, registry)
    fakeworker.announce(run.worker_channel, [toy])
    try:
        yield run
    finally:
        run.close()
        server.stop(grace=1)


def _create(run: Running, **kw: object) -> arena_pb2.Tournament:
    fields: dict[str, object] = {"rated": True, **kw}
    return run.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy",
            bots=["alpha", "beta"],
            players_per_table=2,
            **fields,  # type: ignore[arg-type]
        )
    )


def test_games_and_leaderboards_show_it(clocked: Running) -> None:
    found = {g.name: g for g in clocked.arena.ListGames(arena_pb2.ListGamesRequest()).games}
    assert (
        found["toy"].rated_time_control.decision_time_ms,
        found["toy"].rated_time_control.time_bank_ms,
    ) == (300, 2500)
    village = found["village"].rated_time_control
    assert (village.decision_time_ms, village.time_bank_ms) == (700, 7000)
    board = clocked.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="toy"))
    assert (board.time_control.decision_time_ms, board.time_control.time_bank_ms) == (300, 2500)


def test_rated_tournaments_play_it_and_refuse_another(clocked: Running) -> None:
    for kw in ({}, {"decision_time_ms": 300}):
        t = _create(clocked, **kw)
        assert t.rated and t.decision_time_ms == 300
        assert clocked.store.get_tournament(t.tournament_id).time_bank_ms == 2500  # type: ignore[union-attr]
    for other in (1000, 1, -5):
        before = snapshot(clocked.store)
        with pytest.raises(grpc.RpcError) as err:
            _create(clocked, decision_time_ms=other)
        said = err.value.details()  # type: ignore[attr-defined]
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
        assert "300 ms per decision, a 2500 ms bank" in said and "unrated" in said, said
        assert f"decision_time_ms {other}" in said
        assert snapshot(clocked.store) == before
    free = _create(clocked, decision_time_ms=1000, rated=False)
    assert not free.rated and free.decision_time_ms == 1000
    assert clocked.store.get_tournament(free.tournament_id).time_bank_ms == 10_000  # type: ignore[union-attr]
    default = _create(clocked, rated=False)
    assert default.decision_time_ms == 1000  # the server's default for unrated events


def test_the_ladder_plays_it(clocked: Running) -> None:
    for name in ("alpha", "beta"):
        status = clocked.arena.JoinLadder(arena_pb2.LadderRequest(bot_name=name, game="toy"))
    assert status.open_blocks == 1
    season = clocked.store.get_tournament(status.tournament_id)
    assert season is not None and season.rated
    assert (season.decision_time_ms, season.time_bank_ms) == (300, 2500)
    host = worker_pb2_grpc.MatchHostStub(clocked.worker_channel)
    claim = host.ClaimMatch(worker_pb2.ClaimMatchRequest(match_id=clocked.queue.sent[0]))
    assert (claim.match.decision_time_ms, claim.match.time_bank_ms) == (300, 2500)


def test_a_time_control_no_worker_limit_can_hold_is_refused_saying_why(
    running: Running,
) -> None:
    fakeworker.announce(running.worker_channel, ["village"])
    # As HAMLET_MAX_MATCH_SECONDS=86400 would set it (no bound by default).
    running.server.services.tournaments.max_match_seconds = 86_400
    before = snapshot(running.store)
    with pytest.raises(grpc.RpcError) as err:
        running.arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(
                game="village", bots=["alpha", "beta"], rated=False, decision_time_ms=60_000
            )
        )
    assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    details = err.value.details() or ""
    assert "may legally take up to 6000 decisions x 60 s" in details
    assert "HAMLET_MAX_MATCH_SECONDS" in details and "use at most" in details
    assert snapshot(running.store) == before
    # The largest decision time the message names is accepted.
    most = int(details.rsplit("use at most ", 1)[1].split(" ")[0])
    made = running.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="village", bots=["alpha", "beta"], rated=False, decision_time_ms=most
        )
    )
    assert made.decision_time_ms == most
