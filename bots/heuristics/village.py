"""Position evaluation for Village, for the greedy (one-step lookahead) bot.

``evaluate(observation, player)`` estimates how good the position is for ``player`` from his
own observation (``games.village`` observations are the public table plus ``player``):

    score = prestige already on the track
          + the end scoring the position would get now (travel towns, council stages,
            church windows, chronicle, customer tiles, coins)
          + 0.5 per goods tile, 0.25 per grain, 0.25 per influence cube (material for
            customers, travel and the council)
          + 0.5 per living family member (more members -> more options, tie-breaker)
          - the same estimate for the best opponent (so lookahead prefers hurting the leader)

Plain arithmetic on the observation; no imports beyond the standard library.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TRAVEL = (0, 1, 3, 6, 10, 14, 18)
COUNCIL = {"council:2": 2, "council:3": 4, "council:4": 6}
CHURCH = {"church:1": 2, "church:2": 3, "church:3": 4, "church:4": 6}
CHRONICLE = (0, 0, 0, 4, 7, 12)
#: placeholder-deck points by tile id (games/village/data.py CUSTOMERS); unknown ids count 4
CUSTOMER_POINTS = {
    "C01": 6, "C02": 3, "C03": 3, "C04": 6, "C05": 5, "C06": 5, "C07": 6, "C08": 5,
    "C09": 5, "C10": 5, "C11": 5, "C12": 4, "C13": 4, "C14": 4, "C15": 4, "C16": 3,
    "C17": 5, "C18": 5, "C19": 5, "C20": 4, "C21": 4, "C22": 2, "C23": 4, "C24": 5,
}  # fmt: skip
GOOD_WEIGHT = 0.5
GRAIN_WEIGHT = 0.25
CUBE_WEIGHT = 0.25
MEMBER_WEIGHT = 0.5
LIVING = ("farmyard", "building:", "council:", "church:", "town:", "bag")


def _player_value(pl: Mapping[str, Any]) -> float:
    members: Mapping[str, list[int]] = pl.get("members", {})
    value = float(pl.get("prestige", 0))
    value += TRAVEL[min(len(pl.get("towns", [])), len(TRAVEL) - 1)]
    chron = 0
    living = 0
    for loc, gens in members.items():
        k = sum(gens)
        value += COUNCIL.get(loc, 0) * k + CHURCH.get(loc, 0) * k
        if loc == "chronicle":
            chron = k
        if loc.startswith(LIVING):
            living += k
    value += CHRONICLE[min(chron, len(CHRONICLE) - 1)]
    value += float(sum(CUSTOMER_POINTS.get(t, 4) for t in pl.get("customers", [])))
    value += float(pl.get("coins", 0))
    value += GOOD_WEIGHT * float(sum(pl.get("goods", {}).values()))
    value += GRAIN_WEIGHT * float(pl.get("grain", 0))
    value += CUBE_WEIGHT * float(sum(pl.get("cubes", {}).values()))
    value += MEMBER_WEIGHT * living
    return value


def evaluate(observation: Mapping[str, Any], player: int) -> float:
    """Own estimated final score minus the best opponent's (see module docstring)."""
    players: list[Mapping[str, Any]] = observation["players"]
    own = _player_value(players[player])
    others = [_player_value(pl) for i, pl in enumerate(players) if i != player]
    return own - (max(others) if others else 0.0)
