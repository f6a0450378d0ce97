"""Position evaluation for My Village, for the greedy (one-step lookahead) bot.

``evaluate(observation, player)`` estimates how good the position is for ``player`` from his
own observation (``games.my_village`` observations are the public table plus ``player``):

    value = the final score the village would get now (church card + window table, council
            cards + land registry bonus, fields, travel cards, served customers, saved SP,
            day labourers, the hand)
          + 0.6 per SP on the story tree (one chronicle away from points, but plague-prone)
          + 0.3 per coin, 0.5 per good (plough on a field, wildcard), 0.1 per meeting point
            marker
          + 0.4 x the PP of each waiting customer (served later, if the goods come)
          + 1.0 per living villager, 0.5 per school marker (more areas, fewer labourers)
          - 0.15 per time space already used in the current lap (the reaper comes nearer)
          - the same estimate for the best opponent (so lookahead prefers hurting the leader)

The card numbers repeat the reconstructed data of ``games/my_village/data.py`` (the heuristic
may import nothing but the standard library); unknown IDs fall back to typical values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

WINDOW_PP = (0, 1, 3, 5, 8, 11, 15)
CHURCH_PP = {"CH-1": 2, "CH-2": 3, "CH-3": 2, "CH-4": 5}
CHAMBER_PP = {"CC-1": 2, "CC-2": 2, "CC-3": 0, "CC-4": 3}
MEETING_POINT_PP = 2
TRAVEL_PP = {"A": 1, "B": 2, "C": 4, "D": 6, "E": 9}
DAY_LABOURER_PP = -5
TREE_WEIGHT = 0.6
COIN_WEIGHT = 0.3
GOOD_WEIGHT = 0.5
MARKER_WEIGHT = 0.1
WAITING_WEIGHT = 0.4
VILLAGER_WEIGHT = 1.0
SCHOOL_WEIGHT = 0.5
TIME_WEIGHT = 0.15


def customer_pp(card: str) -> int:
    """PP of a customer card by ID (K01-K10: 2, K11-K15: 4, K16-K23: 5, K24-K28: 7, "?": 3)."""
    try:
        n = int(card[1:])
    except ValueError:
        return 3
    for last, pp in ((10, 2), (15, 4), (23, 5), (28, 7), (33, 3)):
        if n <= last:
            return pp
    return 3


def _registry_bonus(v: Mapping[str, Any]) -> int:
    marked: list[bool] = v.get("registry", [])
    counts = (
        len(v.get("monks", [])) + (1 if v.get("church") else 0),
        (1 if v.get("chamber") else 0) + (1 if v.get("meeting_point") else 0),
        len(v.get("fields", [])),
        len(v.get("travel", [])),
        len(v.get("crafts", [])),
        len(v.get("served", [])),
    )
    return sum(c for c, m in zip(counts, marked, strict=False) if m)


def village_value(v: Mapping[str, Any], holds_hand: bool) -> float:
    """Current final score of one village plus the weighted resources (module docstring)."""
    church = v.get("church")
    chamber = v.get("chamber")
    score = float(CHURCH_PP.get(church, 2) if church else 0)
    score += WINDOW_PP[min(int(v.get("windows", 0)), len(WINDOW_PP) - 1)]
    score += MEETING_POINT_PP if v.get("meeting_point") else 0
    score += CHAMBER_PP.get(chamber, 2) if chamber else 0
    score += _registry_bonus(v)
    score += len(v.get("fields", []))
    score += sum(TRAVEL_PP.get(t[2:3], 3) for t in v.get("travel", []))
    score += sum(customer_pp(c) for c in v.get("served", []))
    score += int(v.get("sp_house", 0))
    score += DAY_LABOURER_PP * int(v.get("day_labourers", 0))
    score += 1 if holds_hand else 0
    goods = sum(int(c.get("goods", 0)) for c in v.get("crafts", []))
    goods += sum(1 for f in v.get("fields", []) if f) + int(v.get("wildcards", 0))
    score += TREE_WEIGHT * int(v.get("sp_tree", 0))
    score += COIN_WEIGHT * int(v.get("coins", 0))
    score += GOOD_WEIGHT * goods
    score += MARKER_WEIGHT * len(v.get("meeting_point_markers", []))
    score += WAITING_WEIGHT * sum(customer_pp(c) for c in v.get("waiting", []))
    score += VILLAGER_WEIGHT * sum(1 for alive in v.get("villagers", {}).values() if alive)
    school = v.get("school", {})
    score += SCHOOL_WEIGHT * (int(bool(school.get("left"))) + int(bool(school.get("right"))))
    score -= TIME_WEIGHT * (int(v.get("time", 1)) - 1 + 10 * int(v.get("pending_deaths", 0)))
    return score


def evaluate(observation: Mapping[str, Any], player: int) -> float:
    """Own estimated value minus the best opponent's (see module docstring)."""
    villages: list[Mapping[str, Any]] = observation["villages"]
    holder = observation.get("hand", {}).get("holder")
    values = [village_value(v, holder == i) for i, v in enumerate(villages)]
    others = [x for i, x in enumerate(values) if i != player]
    return values[player] - (max(others) if others else 0.0)
