"""A seed, its matches' logs and replays stay hidden while any match dealt the same seed is
open, in every format: round robin, gauntlet, Swiss, the ladder and a head-to-head test (where
table 0 and table 1 of a round share one seed)."""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest

from hamlet.paging import all_matches
from hamlet.v1 import arena_pb2, common_pb2
from server.storage import MatchRecord
from tests.server import fakeworker
from tests.server.conftest import Running


def _hidden(run: Running, tid: str, match_id: str) -> None:
    """Every public read of ``match_id`` withholds its seed, log and replay."""
    detail = run.arena.GetMatch(arena_pb2.MatchRef(match_id=match_id))
    assert detail.match.status == common_pb2.MATCH_STATUS_FINISHED
    assert detail.match.seed == 0 and list(detail.decisions) == []
    listed = {m.match_id: m for m in all_matches(run.arena, tid)}
    assert listed[match_id].seed == 0
    for ref in (
        arena_pb2.MatchRef(match_id=match_id),
        arena_pb2.MatchRef(match_id=match_id, seat=0),
    ):
        with pytest.raises(grpc.RpcError) as err:
            run.arena.GetReplay(ref)
        assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION  # type: ignore[attr-defined]
    with pytest.raises(grpc.RpcError) as err:
        run.arena.GetMatch(arena_pb2.MatchRef(match_id=match_id, seat=0))  # the seat view
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION  # type: ignore[attr-defined]
    watch = arena_pb2.WatchTournamentRequest(tournament_id=tid, include_finished=True)
    stream = run.arena.WatchTournament(watch)
    try:
        for event in stream:
            if event.HasField("match") and event.match.match_id == match_id:
                assert event.match.seed == 0
                break
    finally:
        stream.cancel()


def _shown(run: Running, match_id: str) -> None:
    detail = run.arena.GetMatch(arena_pb2.MatchRef(match_id=match_id))
    assert detail.match.seed != 0 and list(detail.decisions)
    assert run.arena.GetReplay(arena_pb2.MatchRef(match_id=match_id)).match.seed != 0


def _check(run: Running, tid: str, pick: Callable[[list[MatchRecord]], MatchRecord]) -> None:
    """Play every match sharing a seed but ``pick``'s: all stay hidden; then play it: shown."""
    by_seed: dict[int, list[MatchRecord]] = {}
    for m in run.store.list_matches(tid):
        by_seed.setdefault(m.seed, []).append(m)
    group = next(g for g in by_seed.values() if len(g) >= 2)
    last = pick(group)
    played = [m for m in group if m.match_id != last.match_id]
    for m in played:
        fakeworker.play(run.worker_channel, m.match_id)
    for m in played:
        _hidden(run, tid, m.match_id)
    fakeworker.play(run.worker_channel, last.match_id)
    for m in group:
        _shown(run, m.match_id)


def _last(group: list[MatchRecord]) -> MatchRecord:
    return group[-1]


def _create(run: Running, fmt: int, bots: list[str], rounds: int = 1) -> str:
    fakeworker.announce(run.worker_channel, ["toy"], bots=tuple(b for b in bots))
    t = run.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=bots, players_per_table=2, rounds=rounds, format=fmt, start=True
        )
    )
    return t.tournament_id


def test_round_robin(running: Running) -> None:
    tid = _create(running, common_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN, ["alpha", "beta", "gamma"])
    _check(running, tid, _last)


def test_gauntlet(running: Running) -> None:
    tid = _create(running, common_pb2.TOURNAMENT_FORMAT_GAUNTLET, ["alpha", "beta", "gamma"])
    _check(running, tid, _last)


def test_swiss(running: Running) -> None:
    bots = ["alpha", "beta", "gamma", "delta"]
    tid = _create(running, common_pb2.TOURNAMENT_FORMAT_SWISS, bots, rounds=2)
    _check(running, tid, _last)


def test_ladder(running: Running) -> None:
    fakeworker.announce(running.worker_channel, ["toy"], bots=("alpha", "beta"))
    for name in ("alpha", "beta"):
        joined = running.arena.JoinLadder(arena_pb2.LadderRequest(bot_name=name))
    _check(running, joined.tournament_id, _last)


def test_sprt_table_1_keeps_table_0_hidden(running: Running) -> None:
    """The attack: table 0 of a round finished, table 1 (same deal, seats swapped) still
    playing. Table 0's seed, log and replay would tell table 1's bots the deal."""
    fakeworker.announce(running.worker_channel, ["toy"], bots=("alpha", "beta", "gamma"))
    started = running.arena.StartSprt(
        arena_pb2.StartSprtRequest(
            game="toy", bot_a="alpha", bot_b="beta", opponents=["gamma"], elo0=0, elo1=200
        )
    )
    tid = started.test_id
    round0 = [m for m in running.store.list_matches(tid) if m.round == 0]
    assert {m.table for m in round0} == {0, 1} and len({m.seed for m in round0}) == 1

    def a_table_1_match(group: list[MatchRecord]) -> MatchRecord:
        return next(m for m in group if m.table == 1)

    _check(running, tid, a_table_1_match)
