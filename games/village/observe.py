"""What the table sees (V-DP, G-39) and the conserved totals.

Everything in Village is public except the order of the customer pile and the outcome of
future draws from the two bags (G-39): served tiles were face up when served, the black
bag's contents are counted openly, the green bag's counts follow from what went in and
came out. So ``observation(p)`` is the public state plus who ``p`` is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.core import JSON
from games.village import data as vd
from games.village.state import (
    ACTION,
    MARKET,
    PHASE_NAMES,
    PRIV,
    WELL_PAY,
)

if TYPE_CHECKING:
    from games.village.state import VillageState


def _members(m: list[int]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for loc in range(vd.NUM_LOCS):
        row = m[loc * 4 : loc * 4 + 4]
        if any(row):
            out[vd.LOC_NAMES[loc]] = row
    return out


def _tile(t: int) -> str | None:
    return vd.CUSTOMERS[t][0] if t >= 0 else None


def _decision(s: VillageState) -> dict[str, JSON]:
    ph = s.phase
    out: dict[str, JSON] = {"kind": PHASE_NAMES[ph], "player": s.to_move()}
    if ph in (ACTION, WELL_PAY):
        out["space"] = vd.SPACE_NAMES[s.act_space]
    elif ph == PRIV:
        out["stage"] = s.priv_stage
    elif ph == MARKET:
        out["starter"] = s.mk_starter
        out["first_sale_free"] = s.mk_first
        out["passed"] = [p for p in range(s.n) if s.mk_passed[p]]
    return out


def public_state(s: VillageState) -> dict[str, JSON]:
    """The spectator view: the whole table except the customer pile's order."""
    n = s.n
    players: list[JSON] = []
    for p in range(n):
        players.append(
            {
                "time": s.time[p],
                "deaths_due": s.due[p],
                "cubes": dict(zip(vd.COLOUR_NAMES, s.cubes[p], strict=False)),
                "coins": s.coins[p],
                "grain": s.grain[p],
                "goods": dict(zip(vd.GOOD_NAMES, s.goods[p], strict=True)),
                "prestige": s.prestige[p],
                "customers": [vd.CUSTOMERS[t][0] for t in s.tiles[p]],
                "towns": [vd.TOWN_NAMES[t] for t in range(6) if s.markers[p] >> t & 1],
                "members": _members(s.mem[p]),
                "chronicle": dict(zip(vd.CATEGORY_NAMES, s.chron_cat[p], strict=True)),
            }
        )
    return {
        "round": s.round_no,
        "starting_player": s.start,
        "next_starting_player": s.nsp if s.nsp >= 0 else None,
        "active": s.active,
        "decision": _decision(s),
        "board": {
            vd.SPACE_NAMES[sp]: dict(zip(vd.COLOUR_NAMES, s.spaces[sp], strict=True))
            for sp in range(7)
        },
        "green_bag": dict(zip(vd.COLOUR_NAMES, s.bag, strict=True)),
        "black_bag": {"monks": vd.MONKS},
        "supply": {
            "cubes": dict(zip(vd.COLOUR_NAMES, s.sup_cubes, strict=True)),
            "coins": s.sup_coins,
            "grain": s.sup_grain,
            "goods": dict(zip(vd.GOOD_NAMES, s.sup_goods, strict=True)),
        },
        "market": {
            "stalls": [_tile(t) for t in s.stalls[: vd.STALLS_IN_USE[n]]],
            "queue": [_tile(t) for t in s.queue],
            "pile": len(s.pile),
        },
        "chronicle_free": dict(zip(vd.CATEGORY_NAMES, s.chron_free, strict=True)),
        "graves_free": s.graves_free,
        "last_majority": list(s.majority),
        "end": {
            "triggered": s.triggered,
            "trigger_player": s.trigger_player if s.triggered else None,
            "last_turns": list(s.last_queue),
        },
        "players": players,
    }


def observation(s: VillageState, player: int) -> dict[str, JSON]:
    """What ``player`` sees: the public state (nothing in Village is private, G-39)."""
    obs = public_state(s)
    obs["player"] = player
    return obs


def conserved_totals(s: VillageState) -> dict[str, int]:
    """Cubes per colour, coins, grain, goods per type, customer tiles, figures per colour."""
    out: dict[str, int] = {}
    for c in range(5):
        out[f"cubes_{vd.COLOUR_NAMES[c]}"] = (
            s.sup_cubes[c]
            + s.bag[c]
            + sum(row[c] for row in s.spaces)
            + (sum(x[c] for x in s.cubes) if c < 4 else 0)
        )
    out["coins"] = s.sup_coins + sum(s.coins)
    out["grain"] = s.sup_grain + sum(s.grain)
    for g in range(5):
        out[f"goods_{vd.GOOD_NAMES[g]}"] = s.sup_goods[g] + sum(x[g] for x in s.goods)
    out["customers"] = (
        len(s.pile)
        + sum(1 for t in s.stalls if t >= 0)
        + sum(1 for t in s.queue if t >= 0)
        + sum(len(x) for x in s.tiles)
    )
    for p in range(s.n):
        out[f"figures_{p}"] = sum(s.mem[p])
    out["board_cubes_counter"] = sum(sum(row) for row in s.spaces) - s.board_cubes
    return out
