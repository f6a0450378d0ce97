"""``random``: picks a legal action uniformly at random with its injected generator."""

from __future__ import annotations

import random
from collections.abc import Sequence

from bots.api import Bot, Decision
from games import Action, State


class RandomBot:
    """Uniform random play: the baseline every other bot must beat."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def decide(self, state: State, legal: Sequence[Action], decision: Decision) -> int:
        """Any legal index, uniformly."""
        return self._rng.randrange(len(legal))


def make(game: str, rng: random.Random) -> Bot:
    """Registry factory: ``random`` plays every game."""
    return RandomBot(rng)
