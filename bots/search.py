"""Pieces of a search bot that are not the tree: utilities, leaf values and the budget.

``bots.mcts`` searches over determinized copies of the state; this module says what a
finished (or cut-off) playout is worth to each player and how long a decision may think.

Utilities are in ``[0, 1]`` for every player, so the tree's back-up is the same for two
and for four players:

- **a finished game** is worth its *rank utility*: the share of the other players this
  player beat, a tie counting half (``1`` for an outright win, ``0`` for last place alone,
  ``0.5`` for each player of a two-way tie in a two-player game). Ranks already hold the
  rulebook's tie-breakers, so this is what a tournament's standings reward;
- **a playout cut off before the end** is worth ``sigmoid((h - h0) / scale)``, where ``h``
  is the game's greedy heuristic (``evaluate(observation(p), p)``: own estimate minus the
  best opponent's) at the leaf and ``h0`` the same at the root of this iteration's
  determinization: the gain in the player's standing, squashed to ``[0, 1]`` (a gain of
  ``scale`` points is worth about 0.73, no change 0.5).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bots.api import Decision
from games import Result

#: ``evaluate(observation, player) -> float``: higher is better for ``player``.
Evaluate = Callable[[dict[str, Any], int], float]


def rank_utilities(result: Result) -> list[float]:
    """Per player, the share of the others he finished ahead of (ties count half)."""
    ranks = result.ranks
    n = len(ranks)
    if n < 2:
        return [1.0] * n
    out = []
    for mine in ranks:
        beaten = sum(1.0 if mine < other else 0.5 if mine == other else 0.0 for other in ranks)
        out.append((beaten - 0.5) / (n - 1))  # the player's own rank counted a tie: remove it
    return out


def heuristic_utilities(
    values: Sequence[float], baseline: Sequence[float], scale: float
) -> list[float]:
    """Per player, his heuristic gain over ``baseline`` squashed to [0, 1]."""
    out = []
    for now, before in zip(values, baseline, strict=True):
        value = (now - before) / scale
        # Clamped so a runaway heuristic value cannot overflow exp().
        out.append(1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, value)))))
    return out


@dataclass(frozen=True, slots=True)
class Budget:
    """How long one decision may search: iterations, seconds, or both (whichever ends first).

    With ``iterations`` alone the search is exactly reproducible (what tests use). With a
    time budget the bot thinks until ``deadline - margin``, where the deadline is the
    decision's own (``Decision.deadline_s``), never the seat's bank unless ``use_bank``;
    ``max_seconds`` caps it further so a long deadline does not make every match slow.
    """

    iterations: int | None = None
    max_seconds: float | None = 1.0
    #: Fixed safety margin, seconds: the runner's bookkeeping and the answer's way out.
    margin_s: float = 0.03
    #: Proportional margin: scheduler noise grows with the budget.
    margin_fraction: float = 0.05
    use_bank: bool = False

    def __post_init__(self) -> None:
        if self.iterations is not None and self.iterations < 1:
            raise ValueError("a budget needs at least one iteration")

    def seconds_for(self, decision: Decision) -> float | None:
        """Wall-clock seconds this decision may search; ``None`` for an iteration budget."""
        if self.iterations is not None and self.max_seconds is None:
            return None
        if self.use_bank:
            available = decision.time_left_s
        elif decision.deadline_s is not None:
            available = min(decision.deadline_s, decision.time_left_s)
        else:  # a caller that gives one figure: it is the deadline
            available = decision.time_left_s
        seconds = available * (1.0 - self.margin_fraction) - self.margin_s
        if self.max_seconds is not None:
            seconds = min(seconds, self.max_seconds)
        return max(0.0, seconds)


class Stopwatch:
    """Counts iterations against a :class:`Budget`; reads the clock only for time budgets."""

    __slots__ = ("_began", "_end", "_limit", "done")

    def __init__(self, budget: Budget, decision: Decision) -> None:
        seconds = budget.seconds_for(decision)
        self._began = time.perf_counter()
        self._end = None if seconds is None else self._began + seconds
        self._limit = budget.iterations
        self.done = 0

    def remaining(self) -> float:
        """An upper estimate of the iterations still to run (the budget's, or the time's at
        the rate so far, with 50% to spare so a slow start does not stop a search early)."""
        left = math.inf if self._limit is None else float(self._limit - self.done)
        if self._end is not None and self.done:
            now = time.perf_counter()
            rate = self.done / max(1e-9, now - self._began)
            left = min(left, 1.5 * rate * max(0.0, self._end - now))
        return left

    def more(self) -> bool:
        """Whether to run another iteration (the first one always runs)."""
        if self.done == 0:
            return True
        if self._limit is not None and self.done >= self._limit:
            return False
        return self._end is None or time.perf_counter() < self._end


def settled(visits: Sequence[int], remaining: float) -> bool:
    """Whether the most visited entry stays ahead whatever the remaining visits do.

    Each iteration adds one visit to one root child, so when the leader's margin over the
    runner-up exceeds the iterations left, more search cannot change the answer and the
    rest of the budget is saved (early termination, as in Huang et al. 2010's "pruning
    for time")."""
    first = second = 0
    for v in visits:
        if v > first:
            first, second = v, first
        elif v > second:
            second = v
    return first - second > remaining


def most_visited(visits: Sequence[int]) -> list[int]:
    """Indices of the largest entries (the candidates for the final move)."""
    top = max(visits)
    return [i for i, v in enumerate(visits) if v == top]
