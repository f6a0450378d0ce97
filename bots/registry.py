"""Built-in bots by name. Adding a bot is a module with a ``make`` factory plus one line here."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

import games
from bots import first_bot, greedy, mcts, random_bot
from bots.api import Bot, BotFactory, UnsupportedGameError


@dataclass(frozen=True, slots=True)
class BuiltinBot:
    """A registered built-in bot: its factory and which games it can play."""

    name: str
    description: str
    factory: BotFactory
    #: Whether the bot can play a game; ``None`` means every game.
    supports: Callable[[str], bool] | None = None

    def plays(self, game: str) -> bool:
        """True if this bot can play ``game``."""
        return self.supports is None or self.supports(game)


_BOTS: dict[str, BuiltinBot] = {
    "random": BuiltinBot("random", "uniformly random legal actions", random_bot.make),
    "first": BuiltinBot(
        "first", "always the first legal action (a fixed baseline)", first_bot.make
    ),
    "greedy": BuiltinBot(
        "greedy",
        "one-step lookahead on the game's heuristic (bots/heuristics/<game>.py)",
        greedy.make,
        greedy.supports,
    ),
    "mcts": BuiltinBot(
        "mcts",
        "information-set Monte Carlo tree search over determinizations, up to 1 s a decision",
        mcts.make,
    ),
}


def names() -> list[str]:
    """Registered built-in bot names."""
    return list(_BOTS)


def get(name: str) -> BuiltinBot:
    """The built-in bot ``name``; ``KeyError`` naming the known bots if unknown."""
    bot = _BOTS.get(name)
    if bot is None:
        raise KeyError(f"unknown built-in bot {name!r}; known: {', '.join(_BOTS)}")
    return bot


def games_for(name: str) -> list[str]:
    """The registered games bot ``name`` can play."""
    bot = get(name)
    return [g for g in games.names() if bot.plays(g)]


def make(name: str, game: str, rng: random.Random) -> Bot:
    """A fresh bot ``name`` for one seat of ``game``; :class:`UnsupportedGameError` if it can't."""
    bot = get(name)
    if not bot.plays(game):
        raise UnsupportedGameError(f"built-in bot {name!r} cannot play {game!r}")
    return bot.factory(game, rng)
