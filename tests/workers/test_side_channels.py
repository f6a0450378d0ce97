"""What a seat is told must not depend on the others' hidden decisions.

A throw-away game with a hidden decision (never registered in ``games/``): seat 0 may poke
seat 1; seat 1 is asked whether to block only when it holds a guard (hidden, dealt by the
seed), the way Farmaria asks a theft victim only when he holds Doberman or Police. Seat 1
always lets the poke through, so seat 0's view of the game is the same with and without the
guard; the requests seat 0 receives must be identical too (the counter above all: a
match-wide count would show the gap).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

import games
from bots.api import Decision
from games import Action, GameSpec, Result, State, competition_ranks
from hamlet import codec
from tests.workers.scripted import FakeClock
from workers import clients
from workers.model import BotKind, MatchPlan, SeatPlan
from workers.runner import run_match

NAME = "guarded"
ROUNDS = 4


@dataclass(frozen=True, slots=True)
class Say(Action):
    word: str

    def __str__(self) -> str:
        return self.word


class GuardedState(State):
    """Seat 0: poke / wait; seat 1 (only with a guard, after a poke): block / let."""

    def __init__(self, n: int, seed: int) -> None:
        self.guard = seed % 2 == 1  # hidden from seat 0
        self.turn = 0
        self.asking_guard = False
        self.pokes = 0

    @property
    def num_players(self) -> int:
        return 2

    def to_move(self) -> int | None:
        if self.is_over():
            return None
        return 1 if self.asking_guard else 0

    def legal_actions(self) -> list[Action]:
        if self.is_over():
            return []
        if self.asking_guard:
            return [Say("block"), Say("let")]
        return [Say("poke"), Say("wait")]

    def apply(self, action: Action) -> None:
        self.check_legal(action)
        assert isinstance(action, Say)
        if self.asking_guard:
            self.asking_guard = False
            self.pokes += action.word == "let"
            self.turn += 1
        elif action.word == "poke" and self.guard:
            self.asking_guard = True
        else:
            self.pokes += action.word == "poke"
            self.turn += 1

    def is_over(self) -> bool:
        return self.turn >= ROUNDS

    def result(self) -> Result:
        return Result((self.pokes, 0), competition_ranks([(self.pokes,), (0,)]))

    def observation(self, player: int) -> dict[str, Any]:
        out: dict[str, Any] = {"turn": self.turn, "pokes": self.pokes}
        if player == 1:
            out["guard"] = self.guard
        return out

    def public_state(self) -> dict[str, Any]:
        return {"turn": self.turn, "pokes": self.pokes}

    def clone(self) -> GuardedState:
        twin = object.__new__(GuardedState)
        twin.guard, twin.turn, twin.pokes = self.guard, self.turn, self.pokes
        twin.asking_guard = self.asking_guard
        return twin

    def determinize(self, player: int, rng: random.Random) -> GuardedState:
        return self.clone()

    def conserved_totals(self) -> dict[str, int]:
        return {}


class GuardedSpec(GameSpec):
    name: ClassVar[str] = NAME
    display_name: ClassVar[str] = "Guarded"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    rules_version: ClassVar[str] = "guarded-1"
    max_decisions: ClassVar[int] = 100
    action_types: ClassVar[tuple[type[Action], ...]] = (Say,)

    def _new_game(self, num_players: int, seed: int) -> State:
        return GuardedState(num_players, seed)


class Recorder:
    """Always answers ``answer``; records what it was told at each decision."""

    kind = BotKind.UPLOADED

    def __init__(self, answer: int, clock: FakeClock) -> None:
        self.answer = answer
        self.clock = clock
        self.seen: list[tuple[Any, ...]] = []

    def decide(
        self, state: State, legal: Sequence[Action], decision: Decision, timeout_s: float
    ) -> int:
        self.seen.append(
            (
                decision.game,
                decision.seat,
                decision.seat_decision_index,
                decision.time_left_s,
                timeout_s,
                [str(a) for a in legal],
                state.observation(decision.seat),
            )
        )
        self.clock.now += 0.25  # every decision takes the same (fake) time
        return self.answer

    def close(self) -> None:
        """Nothing to release."""


@pytest.fixture(autouse=True)
def _guarded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(games.registry._MODULES, NAME, __name__)
    monkeypatch.setitem(games.registry._loaded, NAME, GuardedSpec())


def _play(seed: int) -> tuple[Recorder, Recorder, int]:
    clock = FakeClock()
    poker, guard = Recorder(0, clock), Recorder(1, clock)  # always poke; always let through
    plan = MatchPlan(
        match_id="m-1",
        game=NAME,
        rules_version="",
        seed=seed,
        seats=tuple(SeatPlan(i, f"bot{i}", 1, BotKind.UPLOADED) for i in range(2)),
        decision_time_s=1.0,
        time_bank_s=2.0,
    )
    record = run_match(plan, [poker, guard], clock=clock)
    return poker, guard, len(record.decisions)


def test_a_seats_requests_do_not_depend_on_others_hidden_decisions() -> None:
    unguarded, _, unguarded_log = _play(seed=2)
    guarded, guard, guarded_log = _play(seed=3)
    assert guard.seen, "seat 1 held a guard and was asked (the hidden decisions)"
    assert guarded_log == unguarded_log + len(guard.seen)  # the match log counts them all
    assert guarded.seen == unguarded.seen  # seat 0 is told exactly the same
    assert [seen[2] for seen in guarded.seen] == list(range(ROUNDS))  # its own count
    assert [seen[2] for seen in guard.seen] == list(range(len(guard.seen)))


def test_the_wire_request_carries_the_seats_own_counter() -> None:
    """The encoded request (uploaded and remote bots) takes the counter from the decision."""
    state = games.get("village").new_game(num_players=2, seed=1)
    seat = state.to_move()
    assert seat is not None
    legal = state.legal_actions()
    decision = Decision("village", seat, 7, 1.5)
    req = clients._request("m-1", state, legal, decision, 1.5)
    assert req.seat_decision_index == 7
    assert "decision_index" not in req.DESCRIPTOR.fields_by_name  # the match-wide count is gone
    assert codec.observation_from_request(req) == state.observation(seat)
    assert req.time_left_ms == 1500
