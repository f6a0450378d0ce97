"""Seat traces a worker reports: an honest one is stored and shown to the seat's owner (and in
``match show``'s forfeits); garbage and oversize ones are refused with INVALID_ARGUMENT and
write nothing; the server's bounds are the worker's."""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest

from cli.main import main
from hamlet.v1 import arena_pb2, worker_pb2
from server.services import seattraces
from tests.server import fakeworker
from tests.server.conftest import Running, row_counts
from workers import trace

Edit = Callable[[worker_pb2.MatchSpec, worker_pb2.MatchOutcome], None]


def _match(running: Running) -> str:
    fakeworker.announce(running.worker_channel, ["toy"])
    running.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=["alpha", "beta"], players_per_table=2, start=True
        )
    )
    return running.queue.sent[0]


def _traced(stderr: str = "thinking") -> Edit:
    def edit(spec: worker_pb2.MatchSpec, outcome: worker_pb2.MatchOutcome) -> None:
        outcome.seat_traces.append(fakeworker.honest_trace(spec, outcome, 0, stderr))

    return edit


def _garbage(change: Callable[[worker_pb2.SeatTrace], None]) -> Edit:
    def edit(spec: worker_pb2.MatchSpec, outcome: worker_pb2.MatchOutcome) -> None:
        traced = fakeworker.honest_trace(spec, outcome, 0, "x")
        change(traced)
        outcome.seat_traces.append(traced)

    return edit


def _answer(t: worker_pb2.SeatTrace) -> None:
    t.decisions[0].answer += 1


def _gap(t: worker_pb2.SeatTrace) -> None:
    t.decisions[1].seat_decision = 5


def _fault(t: worker_pb2.SeatTrace) -> None:
    t.decisions[0].fault = "crash: made up"


def _long(t: worker_pb2.SeatTrace) -> None:
    t.decisions[0].stderr = "x" * (seattraces.MAX_STDERR_PER_DECISION + 1)


def _seat(t: worker_pb2.SeatTrace) -> None:
    t.seat = 7


def _many(t: worker_pb2.SeatTrace) -> None:
    t.decisions.append(worker_pb2.TracedDecision(seat_decision=len(t.decisions), answer=0))


def _time(t: worker_pb2.SeatTrace) -> None:
    t.decisions[0].milliseconds = -5


def _huge(t: worker_pb2.SeatTrace) -> None:
    t.stderr_tail = "y" * (seattraces.MAX_TRACE_BYTES + 1)


def _twice(spec: worker_pb2.MatchSpec, outcome: worker_pb2.MatchOutcome) -> None:
    outcome.seat_traces.extend([fakeworker.honest_trace(spec, outcome, 0)] * 2)


@pytest.mark.parametrize(
    "edit",
    [
        _garbage(_answer),
        _garbage(_gap),
        _garbage(_fault),
        _garbage(_long),
        _garbage(_seat),
        _garbage(_many),
        _garbage(_time),
        _garbage(_huge),
        _twice,
    ],
    ids=["answer", "gap", "fault", "long", "seat", "many", "time", "huge", "twice"],
)
def test_garbage_traces_are_refused_and_write_nothing(running: Running, edit: Edit) -> None:
    match_id = _match(running)
    before = row_counts(running.store.engine)
    with pytest.raises(grpc.RpcError) as refused:
        fakeworker.play(running.worker_channel, match_id, edit=edit)
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    after = row_counts(running.store.engine)
    assert after["seat_traces"] == before["seat_traces"] == 0
    assert after["decisions"] == before["decisions"]


def test_an_honest_trace_is_stored_and_shown_to_an_admin(served: Running) -> None:
    running = served  # SQLite and PostgreSQL
    match_id = _match(running)
    fakeworker.play(running.worker_channel, match_id, edit=_traced("line one\x00\nline two\n"))
    fakeworker.play(running.worker_channel, running.queue.sent[1])
    view = running.arena.GetMatch(arena_pb2.MatchRef(match_id=match_id, seat=0)).seat_view
    assert view.traced and view.stderr_tail == "line one\nline two\n"
    assert all(d.traced and d.stderr == "line one\nline two\n" for d in view.decisions)
    assert all(d.answer == d.chosen for d in view.decisions)
    assert not view.decisions[0].HasField("request")  # the toy game has no wire form
    with pytest.raises(grpc.RpcError) as bad:
        running.arena.GetMatch(arena_pb2.MatchRef(match_id=match_id, seat=2))
    assert bad.value.code() is grpc.StatusCode.INVALID_ARGUMENT


def test_match_show_prints_each_forfeit_where_it_happened(
    running: Running, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id = _match(running)

    def edit(spec: worker_pb2.MatchSpec, outcome: worker_pb2.MatchOutcome) -> None:
        outcome.forfeits[0].detail = "the bot exited with status 1: Traceback | ValueError: no"
        outcome.seat_traces.append(fakeworker.honest_trace(spec, outcome, 0, "about to fail\n"))

    fakeworker.play(running.worker_channel, match_id, forfeit_seat=0, edit=edit)
    srv = ("--server", running.addr)
    monkeypatch.setenv("HAMLET_TOKEN", running.admin_token)
    assert main(["match", "show", match_id, *srv]) == 0
    out = capsys.readouterr().out
    assert "decision withheld until the match's block is final" in out  # the log is held
    fakeworker.play(running.worker_channel, running.queue.sent[1])
    assert main(["match", "show", match_id, *srv]) == 0
    out = capsys.readouterr().out
    assert "seat 1 (alpha) forfeited: crash" in out  # seats are 1-based where people read them
    assert "at decision 1 of the log (its own 1):" in out
    # the public detail says what happened; the bot's stderr is in its seat's trace only
    assert "    the bot exited with status 1\n" in out and "ValueError: no" not in out
    assert "it gave no answer (see the detail)" in out
    assert main(["match", "replay", match_id, "--seat", "1", *srv]) == 0
    out = capsys.readouterr().out
    assert "no answer: crash: boom" in out and "stderr | about to fail" in out
    assert "(played by the fallback)" in out
    bob_token, _ = running.user("bob")
    monkeypatch.setenv("HAMLET_TOKEN", bob_token)
    assert main(["match", "show", match_id, *srv]) == 0
    out = capsys.readouterr().out
    assert "legal actions (listed for the bot's owner only)" in out
    assert "the bot exited with status 1" in out and "about to fail" not in out


def test_the_servers_bounds_are_the_workers() -> None:
    assert seattraces.MAX_TRACED_DECISIONS == trace.MAX_TRACED_DECISIONS
    assert seattraces.MAX_STDERR_PER_DECISION == trace.MAX_STDERR_PER_DECISION
    assert seattraces.MAX_STDERR_PER_SEAT == trace.MAX_STDERR_PER_SEAT
    assert seattraces.MAX_STDERR_TAIL == trace.MAX_STDERR_TAIL
    assert seattraces.MAX_FAULT == trace.MAX_FAULT
