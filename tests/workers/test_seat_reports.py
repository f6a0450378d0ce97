"""A played match carries the traces of its uploaded and remote seats (not its built-in ones),
bounded, and reports them without what the seats saw (the server recomputes that)."""

from __future__ import annotations

import random

import pytest

from bots import registry
from tests import toygame
from tests.workers.scripted import Scripted
from workers.clients import BuiltinClient
from workers.model import BotKind, MatchPlan, SeatClient, SeatPlan, SeatTrace, TracedDecision
from workers.play import play_plan
from workers.reporting import outcome_to_proto
from workers.trace import (
    MAX_FAULT,
    MAX_STDERR_PER_DECISION,
    MAX_STDERR_PER_SEAT,
    bounded,
)


@pytest.fixture(autouse=True)
def _toy(monkeypatch: pytest.MonkeyPatch) -> None:
    toygame.register(monkeypatch)


class _Seats:
    def __init__(self, clients: list[SeatClient]) -> None:
        self.clients = clients

    def open(self, plan: MatchPlan) -> list[SeatClient]:
        return self.clients


def _plan() -> MatchPlan:
    kinds = (BotKind.UPLOADED, BotKind.BUILTIN, BotKind.REMOTE)
    seats = tuple(SeatPlan(i, f"bot{i}", 1, k) for i, k in enumerate(kinds))
    return MatchPlan("m-1", toygame.NAME, "", 5, seats, 1.0, 2.0)


def test_uploaded_and_remote_seats_are_traced_and_reported_without_observations() -> None:

    remote = Scripted(seed=2)
    remote.kind = BotKind.REMOTE
    builtin = BuiltinClient(registry.make("random", toygame.NAME, random.Random(1)))
    record = play_plan(_plan(), _Seats([Scripted(seed=0), builtin, remote]))
    assert [t.seat for t in record.traces] == [0, 2]
    players = [d.player for d in record.decisions]
    for t in record.traces:
        assert len(t.decisions) == players.count(t.seat)
    message = outcome_to_proto(record)
    assert [t.seat for t in message.seat_traces] == [0, 2]
    first = message.seat_traces[0].decisions[0]
    assert first.seat_decision == 0 and first.answer >= 0
    assert "observation" not in {f.name for f in first.DESCRIPTOR.fields}


def test_a_trace_is_bounded_before_it_is_reported() -> None:
    chatty = TracedDecision(0, {}, (), 0, 0.0, stderr="e" * (3 * MAX_STDERR_PER_DECISION))
    steps = tuple(chatty for _ in range(100))
    faulty = TracedDecision(100, {}, (), -1, 0.0, fault="f" * (2 * MAX_FAULT))
    out = bounded(SeatTrace(0, (*steps, faulty), stderr_tail="t" * 100_000))
    assert all(len(d.stderr) <= MAX_STDERR_PER_DECISION for d in out.decisions)
    assert sum(len(d.stderr) for d in out.decisions) <= MAX_STDERR_PER_SEAT
    assert sum("budget is spent" in d.stderr for d in out.decisions) == 1  # marked once
    assert len(out.decisions[-1].fault) == MAX_FAULT and len(out.stderr_tail) <= 8_000
