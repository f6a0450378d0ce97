"""Head-to-head tests: paired blocks with the same seed, opponents and seats; the test stops
as soon as the evidence decides."""

from __future__ import annotations

import grpc
import pytest

from cli.main import main
from hamlet.paging import all_matches
from hamlet.v1 import arena_pb2
from tests.server import fakeworker
from tests.server.conftest import Running


def _play_open(run: Running, played: set[str], weak: str) -> None:
    """Play every queued match; the ``weak`` bot crashes at its first decision."""
    for match_id in list(run.queue.sent):
        if match_id in played:
            continue
        played.add(match_id)
        detail = run.arena.GetMatch(arena_pb2.MatchRef(match_id=match_id)).match
        if detail.status != 2:  # only queued matches (a decided test cancelled the rest)
            continue
        seat = next((s.seat for s in detail.seats if s.bot_name == weak), None)
        fakeworker.play(run.worker_channel, match_id, forfeit_seat=seat)


def test_b_clearly_better_is_accepted_and_the_test_stops(running: Running) -> None:
    fakeworker.announce(running.worker_channel, ["toy"], bots=("alpha", "beta", "gamma"))
    started = running.arena.StartSprt(
        arena_pb2.StartSprtRequest(
            game="toy", bot_a="alpha", bot_b="beta", opponents=["gamma"], elo0=0, elo1=200
        )
    )
    assert started.expected_pairs_h1 > 0 and started.pairs == 0 and not started.finished
    ref = arena_pb2.TournamentRef(tournament_id=started.test_id)
    first = [m for m in all_matches(running.arena, ref.tournament_id) if ".r0." in m.match_id]
    by_table = {t: [m for m in first if f".t{t}." in m.match_id] for t in (0, 1)}
    assert [len(v) for v in by_table.values()] == [2, 2]
    for a, b in zip(by_table[0], by_table[1], strict=True):  # mirrored seats, same opponents
        assert [s.bot_name.replace("alpha", "X") for s in a.seats] == [
            s.bot_name.replace("beta", "X") for s in b.seats
        ]
    played: set[str] = set()
    for _ in range(60):
        status = running.arena.GetSprt(arena_pb2.SprtRef(test_id=started.test_id))
        if status.finished:
            break
        _play_open(running, played, weak="alpha")
    assert status.finished and status.verdict == "h1" and status.llr >= status.upper
    t = running.arena.GetTournament(ref)
    assert t.status == 3 and t.matches_cancelled >= 0  # FINISHED
    watched = list(running.arena.WatchSprt(arena_pb2.SprtRef(test_id=started.test_id)))
    assert watched[-1].verdict == "h1"


def test_the_cli_shows_the_expected_length_and_the_verdict(
    running: Running, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fakeworker.announce(running.worker_channel, ["toy"], bots=("alpha", "beta", "random"))
    monkeypatch.setenv("HAMLET_TOKEN", running.admin_token)
    # no worker plays here: one pair at most, so the watch ends without a verdict
    args = ["sprt", "alpha", "beta", "--game", "toy", "--elo1", "40", "--max-pairs", "1"]
    import threading

    def play_soon() -> None:
        played: set[str] = set()
        for _ in range(50):
            _play_open(running, played, weak="nobody")
            threading.Event().wait(0.2)

    player = threading.Thread(target=play_soon, daemon=True)
    player.start()
    code = main([*args, "--server", running.addr])
    out = capsys.readouterr().out
    assert "expected pairs of blocks" in out and "after 1 pairs" in out
    assert code in (0, 1)


def test_two_versions_of_one_bot(running: Running) -> None:
    fakeworker.announce(running.worker_channel, ["toy"], bots=("random",))
    source = "from bots.sdk import run\nrun(lambda observation, legal: 0)\n"
    for extra in ("", "# v2\n"):
        running.arena.SubmitBot(
            arena_pb2.SubmitBotRequest(name="mine", game="toy", source=source + extra)
        )
    started = running.arena.StartSprt(
        arena_pb2.StartSprtRequest(game="toy", bot_a="mine@1", bot_b="mine@2", elo1=40)
    )
    assert (started.bot_a, started.bot_b, list(started.opponents)) == (
        "mine@1",
        "mine@2",
        ["random@1"],
    )
    ref = arena_pb2.TournamentRef(tournament_id=started.test_id)
    versions = {
        (m.match_id.split(".")[-2], s.bot_version)
        for m in all_matches(running.arena, ref.tournament_id)
        for s in m.seats
        if s.bot_name == "mine"
    }
    assert versions == {("t0", 1), ("t1", 2)}
    with pytest.raises(grpc.RpcError) as err:
        running.arena.StartSprt(
            arena_pb2.StartSprtRequest(game="toy", bot_a="mine@1", bot_b="mine@9", elo1=40)
        )
    assert err.value.code() == grpc.StatusCode.NOT_FOUND  # type: ignore[attr-defined]
