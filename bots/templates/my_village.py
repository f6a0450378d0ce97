"""TEMPLATE_NAME: a Hamlet bot for My Village, written by `hamlet bot new`.

How it plays: every legal action gets a score, mostly from the PREFERENCES table below (by
the action's "type"), plus tweaks that read the action's fields; the best-scoring action is
played, ties broken by a seeded generator. That is enough to beat `random` clearly: it uses
black banners, pays little for the banner value and avoids the chronicle. Make it yours:

    hamlet bot play TEMPLATE_NAME.py --game my_village --vs random,greedy --games 20
    hamlet bot play TEMPLATE_NAME.py --game my_village --vs greedy --trace traces/
    hamlet bot submit TEMPLATE_NAME my_village TEMPLATE_NAME.py

What `decide` gets (docs/bot-authors.md): ``observation``, everything your seat may see (the
keys of ``MyVillageObservation`` in proto/hamlet/v1/my_village.proto; the rules are in
docs/rules/my-village.md), and ``legal``, the legal actions as dicts such as
``{"type": "TakeDice", "a": 1, "a_black": False, "b": 5, "b_black": False}``. Return an
index into ``legal``. This file may import only the standard library, ``protobuf`` and
``bots.sdk``.
"""

from __future__ import annotations

import random
import sys
from typing import Any

from bots.sdk import run

# How much the bot likes each kind of action; unlisted types score 0. Found by playing against
# `random` and comparing: a good first thing to change once you know the rules better.
PREFERENCES: dict[str, float] = {
    "Black": 2,  # a black banner: a building, a church, a monk, travel...
    "White": 1,
    "WhiteMode": -1,
    "MoveWildcard": -1,
    "Chronicle": -3,  # the "?" banner rarely pays for the turn it costs
}

# The bot's process lives for one match, so module state is kept between decisions. Seeded:
# the same match plays the same way, which makes a trace worth comparing with the next one.
rng = random.Random(0)


def score(action: dict[str, Any], observation: dict[str, Any], me: int) -> float:
    """How good ``action`` looks now for seat ``me``; higher is better."""
    value = PREFERENCES.get(action["type"], 0.0)
    if action["type"] == "SetValue":
        value -= 0.1 * (action["markers"] + action["coins"])  # spend as little as needed
    if action["type"] == "TakeDice":
        value -= 0.1 * (action["a_black"] + action["b_black"])  # black dice bring the plague
    return value


def decide(observation: dict[str, Any], legal: list[dict[str, Any]]) -> int:
    """The index in ``legal`` of the action to play."""
    me = observation["decision"]["player"]  # your seat (0-based)
    scores = [score(action, observation, me) for action in legal]
    best = max(scores)
    choice = rng.choice([i for i, s in enumerate(scores) if s == best])
    # stderr is yours (stdout carries the protocol): `hamlet bot play --trace DIR` shows these
    # lines next to each decision, and a crash shows the last of them.
    print(
        f"round {observation['round']} {observation['decision']['kind']}: "
        f"{legal[choice]['type']} (score {best:g}, {len(legal)} options)",
        file=sys.stderr,
    )
    return choice


if __name__ == "__main__":
    run(decide)
