"""Seat traces: what a seat saw (its own observation only), answered and took, bounded."""

from __future__ import annotations

import pytest

import games
from tests import toygame
from tests.workers.scripted import Scripted
from workers.model import BotKind, ForfeitReason, MatchPlan, SeatPlan
from workers.runner import run_match
from workers.trace import TracingClient, decision_indices


@pytest.fixture(autouse=True)
def _toy(monkeypatch: pytest.MonkeyPatch) -> None:
    toygame.register(monkeypatch)


def _plan(seats: int = 2) -> MatchPlan:
    return MatchPlan(
        match_id="m-1",
        game=toygame.NAME,
        rules_version="",
        seed=5,
        seats=tuple(SeatPlan(i, f"bot{i}", 1, BotKind.UPLOADED) for i in range(seats)),
        decision_time_s=1.0,
        time_bank_s=2.0,
    )


def test_a_trace_holds_each_decision_of_its_seat_with_that_seats_observation() -> None:
    traced = [TracingClient(Scripted(seed=i), i) for i in range(2)]
    record = run_match(_plan(), traced)
    players = [d.player for d in record.decisions]
    for seat, client in enumerate(traced):
        trace = client.trace()
        assert trace.seat == seat
        positions = decision_indices(players, seat)
        assert len(trace.decisions) == len(positions) > 0
        assert [d.seat_decision for d in trace.decisions] == list(range(len(positions)))
        state = games.get(toygame.NAME).new_game(num_players=2, seed=5)
        for i, logged in enumerate(record.decisions):
            if logged.player == seat:
                step = trace.decisions[positions.index(i)]
                assert step.observation == state.observation(seat)
                assert len(step.legal) == logged.legal_count
                assert step.legal[step.answer] == logged.action
            state.apply(games.get(toygame.NAME).action_from_dict(logged.action))


def test_a_forfeiting_decision_is_traced_with_its_fault_and_nothing_after_it() -> None:
    bad = TracingClient(Scripted("raise", fail_at=1, seed=1), 1)
    record = run_match(_plan(), [TracingClient(Scripted(seed=0), 0), bad])
    assert record.forfeits[0].reason is ForfeitReason.CRASH
    steps = bad.trace().decisions
    assert len(steps) == 2
    assert steps[-1].answer == -1 and "ZeroDivisionError" in steps[-1].fault


def test_a_trace_is_bounded() -> None:
    client = TracingClient(Scripted(seed=0), 0, max_decisions=1)
    run_match(_plan(), [client, Scripted(seed=1)])
    trace = client.trace()
    assert len(trace.decisions) == 1 and trace.dropped > 0
