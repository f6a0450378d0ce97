"""`hamlet bot history`: the live rating after each match, and the record per opponent."""

from __future__ import annotations

import grpc
import pytest

from cli.main import main
from hamlet.v1 import arena_pb2
from tests.server import fakeworker
from tests.server.conftest import Running


def test_rating_over_time_and_results_by_opponent(
    running: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    fakeworker.announce(running.worker_channel, ["toy"])
    running.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=["alpha", "beta", "gamma"], players_per_table=2, rated=True, start=True
        )
    )
    for i, match_id in enumerate(running.queue.sent):
        fakeworker.play(running.worker_channel, match_id, forfeit_seat=0 if i % 2 else None)
    h = running.arena.GetBotHistory(arena_pb2.BotHistoryRequest(name="alpha", game="toy"))
    assert len(h.points) == 4  # alpha meets beta and gamma, two rotations each
    board = running.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="toy"))
    final = {e.bot_name: e.rating for e in board.entries}
    assert h.points[-1].rating == pytest.approx(final["alpha"])
    opponents = {r.bot_name: r for r in h.opponents}
    assert set(opponents) == {"beta", "gamma"}
    for r in opponents.values():
        assert r.games == 2 and r.wins + r.draws + r.losses == 2
    code = main(["bot", "history", "alpha", "--server", running.addr])
    out = capsys.readouterr().out
    assert code == 0 and "4 rated matches" in out and "against each opponent" in out


def test_the_live_elo_is_shown_on_the_published_scale(running: Running) -> None:
    """With random in the field, history and the live table put random at 1000 (as the
    published rating does), whatever its raw live Elo; differences are unchanged."""
    fakeworker.announce(running.worker_channel, ["toy"], bots=("random", "alpha"))
    running.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=["random", "alpha"], players_per_table=2, rated=True, start=True
        )
    )
    for i, match_id in enumerate(running.queue.sent):
        fakeworker.play(running.worker_channel, match_id, forfeit_seat=0 if i % 2 else None)
    board = running.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="toy"))
    live = {e.bot_name: e.rating for e in board.entries}
    own = running.arena.GetBotHistory(arena_pb2.BotHistoryRequest(name="random", game="toy"))
    alpha = running.arena.GetBotHistory(arena_pb2.BotHistoryRequest(name="alpha", game="toy"))
    assert alpha.points[-1].rating == pytest.approx(live["alpha"])  # both after the last match
    (line,) = [x for x in board.lines if x.bot_name == "random"]
    if line.open_low or line.open_high:  # random never won (or never lost): no anchor, and
        assert board.anchor_bot == "" and not line.anchor  # the live Elo keeps its mean 1500
        assert sum(live.values()) == pytest.approx(2 * 1500.0)
    else:
        assert board.anchor_bot == "random" and board.anchor_rating == pytest.approx(1000.0)
        assert live["random"] == pytest.approx(1000.0)
        assert [round(p.rating, 6) for p in own.points] == [1000.0] * len(own.points)


def test_a_bot_of_several_games_needs_the_game(running: Running) -> None:
    fakeworker.announce(running.worker_channel, ["toy", "village"])
    with pytest.raises(grpc.RpcError) as err:
        running.arena.GetBotHistory(arena_pb2.BotHistoryRequest(name="alpha"))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    assert "name the game" in err.value.details()  # type: ignore[attr-defined]
