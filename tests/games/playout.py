"""Random playouts shared by the conformance, golden and benchmark code."""

from __future__ import annotations

import random
from collections.abc import Iterator

import games


def random_steps(state: games.State, rng: random.Random) -> Iterator[games.Action]:
    """Play uniformly random legal actions on ``state`` until the game is over,
    yielding each action after it was applied."""
    while not state.is_over():
        action = rng.choice(state.legal_actions())
        state.apply(action)
        yield action


def play_random(game: str, num_players: int, seed: int) -> games.State:
    """A complete random game: game seed ``seed``, policy seeded with ``seed`` too."""
    state = games.get(game).new_game(num_players=num_players, seed=seed)
    for _ in random_steps(state, random.Random(seed)):
        pass
    return state


def player_counts(game: str) -> list[int]:
    """Every supported player count of ``game``."""
    spec = games.get(game)
    return list(range(spec.min_players, spec.max_players + 1))
