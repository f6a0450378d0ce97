"""TEMPLATE_NAME: a Hamlet bot for Village, written by `hamlet bot new`.

How it plays: every legal action gets a score, mostly from the PREFERENCES table below (by
the action's "type"), plus a tweak that reads the action's fields; the best-scoring action is
played, ties broken by a seeded generator. That is enough to beat `random` clearly: it takes
the actions that build a family and score (birth, buying goods, harvest) and avoids the ones
that waste a turn (declining, calling members home). Make it yours:

    hamlet bot play TEMPLATE_NAME.py --game village --vs random,greedy --games 20
    hamlet bot play TEMPLATE_NAME.py --game village --vs greedy --trace traces/
    hamlet bot submit TEMPLATE_NAME village TEMPLATE_NAME.py

What `decide` gets (docs/bot-authors.md): ``observation``, everything your seat may see (the
keys of ``VillageObservation`` in proto/hamlet/v1/village.proto; the rules are in
docs/rules/village.md), and ``legal``, the legal actions as dicts such as
``{"type": "Take", "space": "market", "colour": "green"}``. Return an index into ``legal``.
This file may import only the standard library, ``protobuf`` and ``bots.sdk``.
"""

from __future__ import annotations

import random
import sys
from typing import Any

from bots.sdk import run

# How much the bot likes each kind of action; unlisted types score 0. Found by playing against
# `random` and comparing: a good first thing to change once you know the rules better.
PREFERENCES: dict[str, float] = {
    "Birth": 3,  # more family members: more actions later, and they score when they die
    "Buy": 2,  # goods pay for customers and travel
    "Harvest": 1,
    "Advance": 1,  # climbing the council earns privileges and points
    "Take": 1,
    "ToBag": 1,
    "Serve": 1,
    "Produce": 1,
    "Promote": 1,
    "Enter": -1,
    "Train": -2,
    "Return": -2,  # calling a member home undoes work already paid for
    "Pass": -2,
    "Decline": -3,  # an action point given away is a turn lost
}

# The bot's process lives for one match, so module state is kept between decisions. Seeded:
# the same match plays the same way, which makes a trace worth comparing with the next one.
rng = random.Random(0)


def score(action: dict[str, Any], observation: dict[str, Any], me: int) -> float:
    """How good ``action`` looks now for seat ``me``; higher is better."""
    value = PREFERENCES.get(action["type"], 0.0)
    if action["type"] == "Take" and action["colour"] == "plague":
        value -= 0.5  # a plague cube brings death closer: take another colour if there is one
    return value


def decide(observation: dict[str, Any], legal: list[dict[str, Any]]) -> int:
    """The index in ``legal`` of the action to play."""
    me = observation["decision"]["player"]  # your seat (0-based)
    scores = [score(action, observation, me) for action in legal]
    best = max(scores)
    choice = rng.choice([i for i, s in enumerate(scores) if s == best])
    # stderr is yours (stdout carries the protocol): `hamlet bot play --trace DIR` shows these
    # lines next to each decision, and a crash shows the last of them.
    prestige = observation["players"][me]["prestige"]
    print(
        f"{observation['decision']['kind']}: {legal[choice]['type']} "
        f"(score {best:g}, {len(legal)} options, prestige {prestige})",
        file=sys.stderr,
    )
    return choice


if __name__ == "__main__":
    run(decide)
