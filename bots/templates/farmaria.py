"""TEMPLATE_NAME: a Hamlet bot for Farmaria, written by `hamlet bot new`.

How it plays: every legal action gets a score, mostly from the PREFERENCES table below (by
the action's "type"), plus tweaks that read the observation; the best-scoring action is
played, ties broken by a seeded generator. That is enough to beat `random` clearly: it keeps
its farm instead of selling it off, bids within its means and does not churn the market.
Make it yours:

    hamlet bot play TEMPLATE_NAME.py --game farmaria --vs random,greedy --games 20
    hamlet bot play TEMPLATE_NAME.py --game farmaria --vs greedy --trace traces/
    hamlet bot submit TEMPLATE_NAME farmaria TEMPLATE_NAME.py

What `decide` gets (docs/bot-authors.md): ``observation``, everything your seat may see (the
keys of ``FarmariaObservation`` in proto/hamlet/v1/farmaria.proto; the rules are in
docs/rules/farmaria.md), and ``legal``, the legal actions as dicts such as
``{"type": "Sell", "card": "field", "field": 0, "stable": -1}``. Return an index into
``legal``. This file may import only the standard library, ``protobuf`` and ``bots.sdk``.
"""

from __future__ import annotations

import random
import sys
from typing import Any

from bots.sdk import run

# How much the bot likes each kind of action; unlisted types score 0. Found by playing against
# `random` and comparing: a good first thing to change once you know the rules better.
PREFERENCES: dict[str, float] = {
    "EndTurn": 2,  # doing nothing beats most random moves: learn which moves pay, then lower it
    "LotFromHand": 1,
    "PlayCard": 0.5,
    "Move": -1,
    "Borrow": -1,  # loans cost interest
    "BuyHand": -1,
    "BuyMarket": -2,
    "Uproot": -2,
    "Sell": -3,  # animals and fields are what score at the end
}

# The bot's process lives for one match, so module state is kept between decisions. Seeded:
# the same match plays the same way, which makes a trace worth comparing with the next one.
rng = random.Random(0)


def score(action: dict[str, Any], observation: dict[str, Any], me: int) -> float:
    """How good ``action`` looks now for seat ``me``; higher is better."""
    value = PREFERENCES.get(action["type"], 0.0)
    wallet = observation["players"][me]["wallet"]
    if action["type"] == "Bid":
        value -= action["amount"] / max(1, wallet)  # a bid is dearer the less you have
    if action["type"] == "Sell" and action["card"] == "field":
        value -= 1  # a whole field is worse to lose than one animal
    return value


def decide(observation: dict[str, Any], legal: list[dict[str, Any]]) -> int:
    """The index in ``legal`` of the action to play."""
    me = observation["me"]  # your seat (0-based)
    scores = [score(action, observation, me) for action in legal]
    best = max(scores)
    choice = rng.choice([i for i, s in enumerate(scores) if s == best])
    # stderr is yours (stdout carries the protocol): `hamlet bot play --trace DIR` shows these
    # lines next to each decision, and a crash shows the last of them.
    mine = observation["players"][me]
    print(
        f"year {observation['year']} {observation['decision']['kind']}: "
        f"{legal[choice]['type']} (score {best:g}, {len(legal)} options, "
        f"wallet {mine['wallet']}, vp {mine['vp']})",
        file=sys.stderr,
    )
    return choice


if __name__ == "__main__":
    run(decide)
