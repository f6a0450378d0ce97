"""A throw-away card game for worker and bot tests (never registered in ``games/``).

Each player holds three hidden cards from a shuffled deck of 1..9 (four of each); on a
turn the player plays one card (a distinct value from the hand), adds it to his score and
draws. After ``ROUNDS`` rounds the highest score wins. Greedy with "my score" as the
heuristic plays the highest card, so it beats random clearly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar

import games
from games import Action, Chance, GameSpec, Result, State, competition_ranks

ROUNDS = 6
NAME = "toy"


@dataclass(frozen=True, slots=True)
class Play(Action):
    """Play the card of this value."""

    card: int

    def __str__(self) -> str:
        return f"play {self.card}"


class ToyState(State):
    def __init__(self, n: int, seed: int) -> None:
        self.chance = Chance(seed)
        self.deck = [v for v in range(1, 10) for _ in range(4)]
        self.chance.stream("deck").shuffle(self.deck)
        self.hands = [sorted(self.deck.pop() for _ in range(3)) for _ in range(n)]
        self.scores = [0] * n
        self.turn = 0
        self._n = n

    @property
    def num_players(self) -> int:
        return self._n

    def to_move(self) -> int | None:
        return None if self.is_over() else self.turn % self._n

    def legal_actions(self) -> list[Action]:
        if self.is_over():
            return []
        return [Play(v) for v in sorted(set(self.hands[self.turn % self._n]))]

    def apply(self, action: Action) -> None:
        self.check_legal(action)
        assert isinstance(action, Play)
        p = self.turn % self._n
        self.hands[p].remove(action.card)
        self.scores[p] += action.card
        if self.deck:
            self.hands[p].append(self.deck.pop())
            self.hands[p].sort()
        self.turn += 1
        # A decision with one option is not asked (as the engine API requires).
        while not self.is_over() and len(self.legal_actions()) == 1:
            self.apply(self.legal_actions()[0])

    def is_over(self) -> bool:
        return self.turn >= ROUNDS * self._n

    def result(self) -> Result:
        return Result(tuple(self.scores), competition_ranks([(s,) for s in self.scores]))

    def observation(self, player: int) -> dict[str, Any]:
        return {"hand": list(self.hands[player]), "scores": list(self.scores), "turn": self.turn}

    def public_state(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "turn": self.turn}

    def clone(self) -> ToyState:
        twin = object.__new__(ToyState)
        twin.chance = self.chance.clone()
        twin.deck = list(self.deck)
        twin.hands = [list(h) for h in self.hands]
        twin.scores = list(self.scores)
        twin.turn = self.turn
        twin._n = self._n
        return twin

    def determinize(self, player: int, rng: random.Random) -> ToyState:
        twin = self.clone()
        unseen = list(twin.deck)
        for p in range(self._n):
            if p != player:
                unseen += twin.hands[p]
        rng.shuffle(unseen)
        for p in range(self._n):
            if p != player:
                twin.hands[p] = sorted(unseen.pop() for _ in twin.hands[p])
        twin.deck = unseen
        twin.chance = self.chance.reseeded(rng)
        return twin

    def conserved_totals(self) -> dict[str, int]:
        return {"cards": len(self.deck) + sum(len(h) for h in self.hands) + self.turn}


class ToySpec(GameSpec):
    name: ClassVar[str] = NAME
    display_name: ClassVar[str] = "Toy"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    rules_version: ClassVar[str] = "toy-1"
    max_decisions: ClassVar[int] = 100
    action_types: ClassVar[tuple[type[Action], ...]] = (Play,)

    def _new_game(self, num_players: int, seed: int) -> State:
        return ToyState(num_players, seed)


SPEC = ToySpec()


def evaluate(observation: dict[str, Any], player: int) -> float:
    """The toy heuristic: my score minus the best other score."""
    scores = observation["scores"]
    return float(scores[player] - max(s for i, s in enumerate(scores) if i != player))


def register(monkeypatch: Any) -> None:
    """Register the toy game (and its heuristic) for one test."""
    import sys
    import types

    monkeypatch.setitem(games.registry._MODULES, NAME, __name__)
    monkeypatch.setitem(games.registry._loaded, NAME, SPEC)
    heuristic = types.ModuleType(f"bots.heuristics.{NAME}")
    heuristic.evaluate = evaluate  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, f"bots.heuristics.{NAME}", heuristic)
