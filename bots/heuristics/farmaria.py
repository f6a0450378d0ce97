"""Position evaluation for Farmaria, for the greedy (one-step lookahead) bot.

``evaluate(observation, player)`` estimates how good the position is for ``player`` from his
own observation (``games.farmaria`` observations: the public table plus the player's hand):

    value = VP the farm would count now (goods VP + coins // 10 + full fields - defamations)
          + 0.1 per coin beyond the tens (money still buys VP)
          + 0.3 per coin of yearly goods income the farm yields in a normal year
          - 0.12 per coin of debt (it compounds, FM-LOAN-3)
          + 0.25 per card in hand (options for the coming years)
          - 0.5 x the same estimate for the best opponent

VP and income per good are the spec's section 3.1 values (copied: no imports beyond the
standard library).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

VP = {
    "field": 0, "stable": 1, "tractor": 2, "apple": 1, "olive": 1, "orange": 1, "hen": 1,
    "rooster": 1, "sheep": 2, "ram": 2, "cow": 3, "bull": 3, "horse": 5,
}  # fmt: skip
INCOME = {"apple": 3, "olive": 3, "orange": 4, "hen": 1, "sheep": 2, "cow": 3, "horse": 2}
UPKEEP = {"tractor": 1, "rooster": 1, "sheep": 1, "ram": 1, "cow": 1, "bull": 1, "horse": 1}
MALE_OF = {"hen": "rooster", "sheep": "ram", "cow": "bull"}
COIN_WEIGHT = 0.1
INCOME_WEIGHT = 0.3
DEBT_WEIGHT = 0.12
CARD_WEIGHT = 0.25
OPPONENT_WEIGHT = 0.5


def _player_value(pl: Mapping[str, Any]) -> float:
    goods: list[str] = []
    full = 0
    for f in pl.get("farm", []):
        goods.append("field")
        goods.extend(f.get("outside", []))
        for inside in f.get("stables", []):
            goods.append("stable")
            goods.extend(inside)
        full += 1 if f.get("full") else 0
    wallet = int(pl.get("wallet", 0))
    vp = sum(VP.get(g, 0) for g in goods) + wallet // 10 + full - int(pl.get("defamations", 0))
    plants = sum(1 for g in goods if g in ("apple", "olive", "orange"))
    income = sum(INCOME.get(g, 0) for g in goods) - sum(UPKEEP.get(g, 0) for g in goods)
    income += sum(1 for g in goods if g in MALE_OF and MALE_OF[g] in goods)
    if "tractor" in goods:
        income += plants
    return (
        vp
        + COIN_WEIGHT * (wallet % 10)
        + INCOME_WEIGHT * income
        - DEBT_WEIGHT * int(pl.get("debt", 0))
        + CARD_WEIGHT * int(pl.get("hand_size", 0))
    )


def evaluate(observation: Mapping[str, Any], player: int) -> float:
    """Estimated value of the position for ``player`` (higher is better)."""
    players: list[Mapping[str, Any]] = list(observation.get("players", []))
    if not players:
        return 0.0
    mine = _player_value(players[player])
    others = [_player_value(pl) for i, pl in enumerate(players) if i != player]
    return mine - OPPONENT_WEIGHT * (max(others) if others else 0.0)
