"""A replay of a match with a forfeit compares the engine's ranks, forfeits last, with the
recorded ones: it agrees with an honest record and catches a changed one."""

from __future__ import annotations

from sqlalchemy import text

from hamlet.v1 import arena_pb2
from tests.server import fakeworker
from tests.server.conftest import Running


def test_a_forfeit_match_replays_to_its_record(running: Running) -> None:
    fakeworker.announce(running.worker_channel, ["toy"])
    running.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=["alpha", "beta"], players_per_table=2, start=True
        )
    )
    first, second = running.queue.sent[:2]
    fakeworker.play(running.worker_channel, first, forfeit_seat=0)
    fakeworker.play(running.worker_channel, second)
    replay = running.arena.GetReplay(arena_pb2.MatchRef(match_id=first))
    assert replay.matches_record and replay.replayed_ranks[0] == 1  # the forfeit, last
    with running.store.engine.begin() as conn:  # someone edits the record
        conn.execute(
            text("update match_seats set rank = 1 - rank where match_id = :m"), {"m": first}
        )
    assert not running.arena.GetReplay(arena_pb2.MatchRef(match_id=first)).matches_record
