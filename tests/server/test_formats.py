"""Tournament formats: round robin and gauntlet as duplicate blocks; ranked tables never seat
two bots of one owner."""

from __future__ import annotations

import grpc
import pytest

from hamlet.paging import all_matches
from hamlet.v1 import arena_pb2, common_pb2
from tests.server import fakeworker
from tests.server.conftest import Running

SOURCE = "from bots.sdk import run\nrun(lambda observation, legal: 0)\n"


def _field(run: Running) -> None:
    fakeworker.announce(run.worker_channel, ["toy"], bots=("alpha",))
    for user, bots in (("alice", ("a1", "a2")), ("bob", ("b1",))):
        _, stub = run.user(user)
        for i, name in enumerate(bots):
            source = SOURCE + f"# {name} {i}\n"
            stub.SubmitBot(arena_pb2.SubmitBotRequest(name=name, game="toy", source=source))


def _tables(run: Running, **kw: object) -> list[tuple[str, ...]]:
    t = run.arena.CreateTournament(arena_pb2.CreateTournamentRequest(game="toy", **kw))  # type: ignore[arg-type]
    ref = arena_pb2.TournamentRef(tournament_id=t.tournament_id)
    return [tuple(s.bot_name for s in m.seats) for m in all_matches(run.arena, ref.tournament_id)]


def test_rated_tables_never_seat_two_bots_of_one_owner(running: Running) -> None:
    _field(running)
    bots = ["a1", "a2", "b1", "alpha"]
    rated = _tables(running, bots=bots, players_per_table=2, rated=True)
    assert len(rated) == 5 * 2  # C(4,2) tables less (a1, a2), two rotations each
    assert not any({"a1", "a2"} <= set(seats) for seats in rated)
    unrated = _tables(running, bots=bots, players_per_table=2, rated=False)
    assert len(unrated) == 6 * 2
    with pytest.raises(grpc.RpcError) as err:
        _tables(running, bots=["a1", "a2"], players_per_table=2, rated=True)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    assert "same owner" in err.value.details()  # type: ignore[attr-defined]


def test_a_gauntlet_is_one_bot_against_the_field_in_duplicate_blocks(running: Running) -> None:
    _field(running)
    fmt = common_pb2.TOURNAMENT_FORMAT_GAUNTLET
    two = _tables(running, bots=["b1", "a1", "a2", "alpha"], format=fmt, players_per_table=2)
    assert len(two) == 3 * 2 and all("b1" in seats for seats in two)
    assert sorted(two) == sorted(
        [("b1", x) for x in ("a1", "a2", "alpha")] + [(x, "b1") for x in ("a1", "a2", "alpha")]
    )
    three = _tables(
        running, bots=["b1", "a1", "a2", "alpha"], format=fmt, players_per_table=3, rated=True
    )
    assert len(three) == 2 * 3  # (a1, a2) never share a table: (a1, alpha), (a2, alpha)
    t = running.arena.ListTournaments(arena_pb2.ListTournamentsRequest()).tournaments[0]
    assert t.format == fmt
