"""Swiss: each round paired by score when the last ends, no table twice where avoidable, byes
to those who had fewest; the tournament ends after its last round."""

from __future__ import annotations

from hamlet.paging import all_matches
from hamlet.v1 import arena_pb2, common_pb2
from server.services.swiss import pair
from tests.server import fakeworker
from tests.server.conftest import Running

BOTS = ("alpha", "beta", "gamma", "delta", "eps", "zeta")


def test_pairing_prefers_new_tables_and_fair_byes() -> None:
    assert pair([0, 1, 2, 3], 2, set()) == [(0, 1), (2, 3)]
    assert pair([0, 1, 2, 3], 2, {frozenset({0, 1})}) == [(0, 2), (1, 3)]
    # everyone has met everyone: a repeat is taken rather than no table
    every = {frozenset(p) for p in [(0, 1), (0, 2), (1, 2)]}
    assert pair([0, 1, 2], 2, every, byes={2: 0, 0: 1, 1: 1}) in ([(0, 1)], [(1, 0)])
    # the byes go to the entry with the fewest, then the lowest placed
    assert pair([0, 1, 2], 2, set(), byes={0: 0, 1: 0, 2: 1}) == [(0, 2)]
    assert pair([0, 1, 2, 3], 2, set(), owners=["a", "a", "", ""]) == [(0, 2), (1, 3)]


def test_a_swiss_tournament_pairs_each_round_when_the_last_ends(running: Running) -> None:
    fakeworker.announce(running.worker_channel, ["toy"], bots=BOTS)
    t = running.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy",
            bots=list(BOTS),
            format=common_pb2.TOURNAMENT_FORMAT_SWISS,
            players_per_table=2,
            rounds=3,
            rated=True,
            start=True,
            seed=5,
        )
    )
    ref = arena_pb2.TournamentRef(tournament_id=t.tournament_id)
    assert t.format == common_pb2.TOURNAMENT_FORMAT_SWISS
    played = 0
    pairs: list[frozenset[str]] = []
    for round_no in range(3):
        queued = running.queue.sent[played:]
        assert len(queued) == 3 * 2, round_no  # three tables, two rotations each
        assert all(f".r{round_no}." in m for m in queued)
        for i, match_id in enumerate(queued):
            fakeworker.play(running.worker_channel, match_id, forfeit_seat=i % 2 or None)
        played += len(queued)
        status = running.arena.GetTournament(ref)
        matches = all_matches(running.arena, ref.tournament_id)
        pairs += [
            frozenset(s.bot_name for s in m.seats)
            for m in matches
            if m.rotation == 0 and f".r{round_no}." in m.match_id
        ]
        want = (
            common_pb2.TOURNAMENT_STATUS_FINISHED
            if round_no == 2
            else common_pb2.TOURNAMENT_STATUS_RUNNING
        )
        assert status.status == want, round_no
    assert len(running.queue.sent) == 18
    assert len(set(pairs)) == len(pairs) == 9  # no table twice
