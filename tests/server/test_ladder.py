"""The continuous ladder: blocks keep coming for the bots on it, the most uncertain tables
first, never two bots of one owner, a few open blocks per owner at most."""

from __future__ import annotations

import grpc
import pytest

from hamlet.v1 import arena_pb2
from server.services.ladder import BLOCKS_IN_FLIGHT, OWNER_IN_FLIGHT
from tests.server import fakeworker
from tests.server.conftest import Running

SOURCE = "from bots.sdk import run\nrun(lambda observation, legal: 0)\n"


def _blocks(run: Running, tid: str) -> list[tuple[int, frozenset[str]]]:
    matches = run.arena.ListMatches(arena_pb2.TournamentRef(tournament_id=tid)).matches
    return [
        (int(m.match_id.split(".")[-3][1:]), frozenset(s.bot_name for s in m.seats))
        for m in matches
        if m.rotation == 0
    ]


def test_the_ladder_keeps_scheduling_blocks(running: Running) -> None:
    fakeworker.announce(running.worker_channel, ["toy"], bots=("alpha", "beta", "gamma"))
    users = {}
    for user in ("ann", "bo"):
        _, users[user] = running.user(user)
        for i in range(2):
            src = SOURCE + f"# {user}{i}\n"
            users[user].SubmitBot(
                arena_pb2.SubmitBotRequest(name=f"{user}{i}", game="toy", source=src)
            )
    status = None
    for name in ("alpha", "beta", "gamma"):  # the system's bots: the admin enters them
        status = running.arena.JoinLadder(arena_pb2.LadderRequest(bot_name=name))
    for user, stub in users.items():
        for i in range(2):
            status = stub.JoinLadder(arena_pb2.LadderRequest(bot_name=f"{user}{i}"))
    assert status is not None and len(status.bots) == 7
    assert status.open_blocks == BLOCKS_IN_FLIGHT
    tid = status.tournament_id
    for _ in range(3):  # play what is open; the ladder tops itself up each time
        for match_id in list(running.queue.sent):
            fakeworker.play(running.worker_channel, match_id)
    blocks = _blocks(running, tid)
    assert len({b for b, _ in blocks}) > 2 * BLOCKS_IN_FLIGHT
    for _, names in blocks:
        owners = [n[:-1] for n in names if n[:-1] in users]
        assert len(owners) == len(set(owners))  # never two bots of one owner
    now = running.arena.GetLadder(arena_pb2.GetLadderRequest(game="toy"))
    open_per_owner = {}
    for rnd, names in blocks:
        if rnd >= now.blocks - now.open_blocks:
            for owner in {n[:-1] for n in names if n[:-1] in users}:
                open_per_owner[owner] = open_per_owner.get(owner, 0) + 1
    assert all(n <= OWNER_IN_FLIGHT for n in open_per_owner.values())
    board = running.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="toy"))
    assert board.matches >= 2 * BLOCKS_IN_FLIGHT


def test_only_the_owner_or_an_admin_enters_a_bot(running: Running) -> None:
    fakeworker.announce(running.worker_channel, ["toy"], bots=("alpha",))
    _, ann = running.user("ann")
    ann.SubmitBot(arena_pb2.SubmitBotRequest(name="mine", game="toy", source=SOURCE))
    _, bo = running.user("bo")
    for stub, bot in ((bo, "mine"), (ann, "alpha")):
        with pytest.raises(grpc.RpcError) as err:
            stub.JoinLadder(arena_pb2.LadderRequest(bot_name=bot))
        assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED  # type: ignore[attr-defined]
    left = ann.LeaveLadder(arena_pb2.LadderRequest(bot_name="mine"))
    assert list(left.bots) == []


def test_ending_a_season_reveals_its_seed_and_starts_the_next(running: Running) -> None:
    fakeworker.announce(running.worker_channel, ["toy"], bots=("alpha", "beta"))
    for name in ("alpha", "beta"):
        first = running.arena.JoinLadder(arena_pb2.LadderRequest(bot_name=name))
    season = arena_pb2.TournamentRef(tournament_id=first.tournament_id)
    assert running.arena.GetTournament(season).seed == 0  # hidden while it runs
    nxt = running.arena.EndLadderSeason(arena_pb2.GetLadderRequest(game="toy"))
    assert nxt.tournament_id != first.tournament_id and nxt.open_blocks == 1
    ended = running.arena.GetTournament(season)
    assert ended.seed != 0 and ended.seed_nonce and ended.status == 3  # FINISHED
