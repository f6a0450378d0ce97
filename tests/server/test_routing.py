"""Matches are queued by the runtimes their uploaded bots need; a match a worker played without
the full sandbox is recorded but never rated."""

from __future__ import annotations

from pathlib import Path

from bots.archive import pack
from hamlet.paging import all_matches
from hamlet.v1 import arena_pb2, worker_pb2
from tests.server import fakeworker
from tests.server.conftest import Running

NODE_BOT = Path(__file__).resolve().parents[2] / "bots" / "examples" / "node_random"


def test_each_match_goes_on_the_queue_of_its_runtimes(running: Running) -> None:
    fakeworker.announce(running.worker_channel, ["toy"], bots=("alpha", "beta"))
    running.arena.SubmitBot(
        arena_pb2.SubmitBotRequest(name="nodey", game="toy", archive=pack(NODE_BOT))
    )
    t = running.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=["alpha", "beta", "nodey"], players_per_table=2
        )
    )
    ref = arena_pb2.TournamentRef(tournament_id=t.tournament_id)
    matches = all_matches(running.arena, ref.tournament_id)
    queues = running.store.match_queues([m.match_id for m in matches])
    for m in matches:
        names = {s.bot_name for s in m.seats}
        assert queues[m.match_id] == ("matches.node" if "nodey" in names else "matches")


def test_an_insecure_match_is_recorded_and_never_rated(running: Running) -> None:
    fakeworker.announce(running.worker_channel, ["toy"])
    running.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=["alpha", "beta"], players_per_table=2, rated=True, start=True
        )
    )
    match_id = running.queue.sent[0]
    claim = running.host.ClaimMatch(worker_pb2.ClaimMatchRequest(match_id=match_id))
    outcome = fakeworker.play_outcome(claim.match)
    outcome.unrated, outcome.sandbox_tier = True, "insecure"
    report = worker_pb2.ReportMatchRequest(
        match_id=match_id, outcome=outcome, attempt_token=claim.attempt_token
    )
    assert running.host.ReportMatch(report).recorded
    board = running.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="toy"))
    assert list(board.entries) == [] and board.matches == 0
    with running.store.engine.connect() as conn:
        from sqlalchemy import text

        tier = conn.execute(text("select sandbox_tier from matches where id = :m"), {"m": match_id})
        assert tier.scalar() == "insecure"
