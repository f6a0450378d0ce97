"""``first``: always plays the first legal action (the engine's stable order).

A deterministic reference opponent: it needs nothing per game, so every registered game
has at least two built-in bots (``random`` and ``first``) for tournaments and smoke tests
before its heuristic exists, and its games are reproducible without any randomness.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bots.api import Bot, Decision
from games import Action, State


class FirstBot:
    """Index 0, always."""

    def decide(self, state: State, legal: Sequence[Action], decision: Decision) -> int:
        """The first legal action."""
        return 0


def make(game: str, rng: random.Random) -> Bot:
    """Registry factory: ``first`` plays every game."""
    return FirstBot()
