"""Built-in bots: legal play, the greedy bot's strength, and the registry."""

from __future__ import annotations

import random

import pytest

import games
from bots import greedy, mcts, registry
from bots.api import Bot, Decision, UnsupportedGameError
from bots.search import Budget
from tests import toygame


@pytest.fixture(autouse=True)
def _toy(monkeypatch: pytest.MonkeyPatch) -> None:
    toygame.register(monkeypatch)


def make(name: str, game: str, rng: random.Random) -> Bot:
    """The registered bot, but ``mcts`` on an iteration budget (tests never time anything)."""
    if name == "mcts":
        return mcts.MctsBot(game, rng, Budget(iterations=20, max_seconds=None))
    return registry.make(name, game, rng)


def play(game: str, bots: list[str], seed: int) -> games.Result:
    """One game between built-in bots, checking every answer is a legal index."""
    state = games.get(game).new_game(num_players=len(bots), seed=seed)
    players = [
        make(name, game, random.Random(games.derive_seed(seed, name, i)))
        for i, name in enumerate(bots)
    ]
    index = 0
    while not state.is_over():
        seat = state.to_move()
        assert seat is not None
        legal = state.legal_actions()
        before = state.public_state()
        choice = players[seat].decide(state, legal, Decision(game, seat, index, 1.0))
        assert state.public_state() == before, "a bot changed the real state"
        assert isinstance(choice, int) and 0 <= choice < len(legal)
        state.apply(legal[choice])
        index += 1
    return state.result()


def greedy_wins(game: str, games_played: int, players: int = 2) -> int:
    """Games greedy wins outright against random, alternating seats."""
    wins = 0
    for seed in range(games_played):
        greedy_seat = seed % players
        bots = ["random"] * players
        bots[greedy_seat] = "greedy"
        ranks = play(game, bots, seed).ranks
        wins += ranks[greedy_seat] == 0 and ranks.count(0) == 1
    return wins


@pytest.mark.parametrize("bot", registry.names())
def test_every_bot_plays_legally_on_the_toy_game(bot: str) -> None:
    for seed in range(3):
        play(toygame.NAME, [bot, "random", bot], seed)


def test_random_plays_every_registered_game_legally() -> None:
    for game in games.names():
        spec = games.get(game)
        play(game, ["random"] * spec.min_players, seed=1)


def test_greedy_plays_every_game_with_a_heuristic_legally() -> None:
    for game in registry.games_for("greedy"):
        play(game, ["greedy", "random"], seed=2)


def test_greedy_beats_random_clearly_on_the_toy_game() -> None:
    # Cards are luck too: random vs random wins about 45%; greedy must win 65%.
    assert greedy_wins(toygame.NAME, 40) >= 26


@pytest.mark.parametrize("game", games.names())
def test_greedy_beats_random_clearly(game: str) -> None:
    if not greedy.supports(game):
        pytest.skip(f"bots/heuristics/{game}.py is not written yet")
    # Over 30 seeded 2-player games (seats alternating) greedy must win at least two thirds.
    assert greedy_wins(game, 30) >= 20


def test_greedy_is_deterministic_given_its_rng() -> None:
    assert play(toygame.NAME, ["greedy", "greedy"], 5) == play(
        toygame.NAME, ["greedy", "greedy"], 5
    )


def test_greedy_refuses_a_game_without_heuristic_clearly() -> None:
    with pytest.raises(UnsupportedGameError, match="heuristic"):
        greedy.make("no_such_game", random.Random(0))
    assert not greedy.supports("no_such_game")


def test_registry_lists_and_rejects() -> None:
    assert {"random", "first", "greedy", "mcts"} <= set(registry.names())
    assert registry.games_for("random") == games.names()
    assert toygame.NAME in registry.games_for("greedy")
    with pytest.raises(KeyError, match="known"):
        registry.get("nobody")
    with pytest.raises(UnsupportedGameError):
        registry.make("greedy", "no_such_game", random.Random(0))
