"""``greedy``: one-step lookahead on the game's heuristic.

For every legal action the bot applies it to a copy of a determinized state (hidden
information re-drawn from the bot's point of view, future chance re-seeded) and scores
the resulting position with ``bots.heuristics.<game>.evaluate(observation, player)``,
the documented heuristic each game's engineers write. The best score wins; ties are
broken by the injected generator. All actions are scored on the *same* determinization
(one per decision), so they are compared under the same hidden cards and future chance.

A game without a heuristic module is not silently played at random: making the bot
raises :class:`bots.api.UnsupportedGameError`, and ``bots.registry`` does not offer
``greedy`` for that game.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Sequence
from typing import Any, cast

from bots.api import Bot, Decision, UnsupportedGameError
from games import Action, State

#: ``evaluate(observation, player) -> float``: higher is better for ``player``.
Evaluate = Callable[[dict[str, Any], int], float]


class GreedyBot:
    """Scores each legal action by the heuristic value of the position it leads to."""

    def __init__(self, evaluate: Evaluate, rng: random.Random) -> None:
        self._evaluate = evaluate
        self._rng = rng

    def decide(self, state: State, legal: Sequence[Action], decision: Decision) -> int:
        """The index of the best-scoring action (random among equals)."""
        seat = decision.seat
        world = state.determinize(seat, self._rng)
        best = best_indices(world, legal, seat, self._evaluate)
        return best[0] if len(best) == 1 else self._rng.choice(best)


def best_indices(
    world: State, actions: Sequence[Action], player: int, evaluate: Evaluate
) -> list[int]:
    """Indices of the ``actions`` whose one-step outcome ``evaluate`` scores highest for
    ``player`` (each applied to its own copy of ``world``): greedy's rule, which ``mcts``'s
    playouts use too."""
    best: list[int] = []
    best_score = float("-inf")
    for index, action in enumerate(actions):
        after = world.clone()
        after.apply(action)
        score = float(evaluate(after.observation(player), player))
        if score > best_score:
            best, best_score = [index], score
        elif score == best_score:
            best.append(index)
    return best


def heuristic_for(game: str) -> Evaluate:
    """``bots.heuristics.<game>.evaluate``; :class:`UnsupportedGameError` if there is none."""
    module_name = f"bots.heuristics.{game}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        # Only a missing heuristic module means "unsupported"; a broken one must surface.
        if exc.name not in (module_name, "bots.heuristics"):
            raise
        raise UnsupportedGameError(
            f"greedy cannot play {game!r}: there is no heuristic module {module_name} "
            "(write bots/heuristics/{game}.py with evaluate(observation, player) -> float)"
        ) from None
    evaluate = getattr(module, "evaluate", None)
    if not callable(evaluate):
        raise UnsupportedGameError(f"greedy cannot play {game!r}: {module_name} has no evaluate()")
    return cast(Evaluate, evaluate)


def supports(game: str) -> bool:
    """Whether a heuristic exists for ``game``."""
    try:
        heuristic_for(game)
    except UnsupportedGameError:
        return False
    return True


def make(game: str, rng: random.Random) -> Bot:
    """Registry factory: raises :class:`UnsupportedGameError` for a game without a heuristic."""
    return GreedyBot(heuristic_for(game), rng)
