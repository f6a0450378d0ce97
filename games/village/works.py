"""Crafts and travel (V-CRF, V-TRV; V-DP-9, V-DP-10); the council is in ``council``."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from itertools import product
from typing import TYPE_CHECKING

from games.core import Action
from games.village import actions as va
from games.village import data as vd
from games.village.council import offer_cubes
from games.village.flow import end_action
from games.village.turn import DECLINE, DECLINE_CODE, DECLINE_ONLY

if TYPE_CHECKING:
    from games.village.state import Code, VillageState

Options = tuple[Sequence[Action], Sequence["Code"]]

NONE_GOOD = 5  # Train without producing


@cache
def buy_act(b: int, good: int, split: tuple[int, ...]) -> va.Buy:
    """The interned BUY value."""
    return va.Buy(va.BUILDINGS[b], va.GOODS[good], split)


@cache
def produce_act(b: int, good: int) -> va.Produce:
    """The interned PRODUCE value."""
    return va.Produce(va.BUILDINGS[b], va.GOODS[good])


@cache
def train_act(b: int, g: int, good: int) -> va.Train:
    """The interned TRAIN value (good index 5 = none)."""
    return va.Train(va.BUILDINGS[b], g + 1, tuple(va.Good)[good])


MILL_ACT = va.Mill()


@cache
def travel_act(origin: int, g: int, dest: int, k: int) -> va.Travel:
    """The interned TRAVEL value."""
    return va.Travel(va.LOCS[origin], g + 1, va.LOCS[vd.TOWN0 + dest], k)


def splits(price: tuple[int, ...], cubes: list[int], coins: int) -> tuple[tuple[int, ...], ...]:
    """V-DP-3: coins used per priced colour (colour order), affordable ones, fewer first."""
    top = sum(price)
    held = tuple(min(cubes[c], need) for c, need in enumerate(price))
    return _splits(price, held, min(coins, top))


@cache
def _splits(
    price: tuple[int, ...], held: tuple[int, ...], coins: int
) -> tuple[tuple[int, ...], ...]:
    ranges = [range(need - held[c], need + 1) for c, need in enumerate(price) if need]
    out = [sp for sp in product(*ranges) if sum(sp) <= coins]
    out.sort(key=lambda sp: (sum(sp), sp))
    return tuple(out)


def _pay_split(s: VillageState, p: int, price: tuple[int, ...], split: tuple[int, ...]) -> None:
    i = 0
    for c, need in enumerate(price):
        if need:
            k = split[i]
            s.pay_cube(p, c, need - k, k)
            i += 1


# --- crafts (V-DP-9) --------------------------------------------------------------------


Block = tuple[tuple[Action, ...], tuple["Code", ...]]
# Bound on the caches whose keys include member positions (a long-running process
# meets ever more of them; a few thousand cover nearly all lookups).
_BLOCKS_KEPT = 8192


def crafts_options(s: VillageState) -> Options:
    """V-DP-9: BUY, PRODUCE, TRAIN, MILL, DECLINE (blocks cached by small keys)."""
    p = s.active
    m = s.mem[p]
    grain = s.grain[p]
    coins = s.coins[p]
    supply = bytes(s.sup_goods).translate(vd.OCCUPIED)
    buy = _buy_block(
        supply,
        grain >= vd.STABLES_BUY_GRAIN,
        bytes(s.cubes[p]).translate(vd.CAP2),
        coins if coins < 2 else 2,
    )
    work = _work_block(
        bytes(m[:_WORK_CELLS]).translate(vd.OCCUPIED), supply, grain >= vd.MILL_GRAIN
    )
    # Two cached blocks, concatenated (one cache over the whole key would miss too often:
    # the combined key space is large).
    return buy[0] + work[0], buy[1] + work[1]


_WORK_CELLS = (vd.BUILDING0 + 4) * 4  # the farmyard's cells, then the buildings'


# Block keys: ``supply`` has a 0/1 per goods type in the supply, ``held`` the player's
# cubes per colour capped at 2, ``occupied`` a 0/1 per generation cell of the player's
# farmyard, then of each building.


@cache
def _buy_block(supply: bytes, stables: bool, held: bytes, coins: int) -> Block:
    """BUY options, buildings in canonical order (V-CRF-3, V-CRF-7, V-DP-3)."""
    acts: list[Action] = []
    codes: list[Code] = []
    cubes = list(held)
    for b in range(4):
        price = vd.BUY_CUBES[b]
        if price is None:
            if stables:
                for good in vd.BUILDING_GOODS[b]:
                    if supply[good]:
                        acts.append(buy_act(b, good, ()))
                        codes.append((do_buy, b, good, ()))
            continue
        good = vd.BUILDING_GOODS[b][0]
        if supply[good]:
            for sp in splits(price, cubes, coins):
                acts.append(buy_act(b, good, sp))
                codes.append((do_buy, b, good, sp))
    return tuple(acts), tuple(codes)


@lru_cache(maxsize=_BLOCKS_KEPT)
def _work_block(occupied: bytes, supply: bytes, mill: bool) -> Block:
    """PRODUCE, TRAIN, then MILL (V-CRF-5) and DECLINE."""
    prod = _produce_block(occupied[4:], supply)
    train = _train_block(occupied[:4], supply)
    tail = _MILL_TAIL if mill else _DECLINE_TAIL
    return prod[0] + train[0] + tail[0], prod[1] + train[1] + tail[1]


def _produce_block(occupied: bytes, supply: bytes) -> Block:
    """PRODUCE with a member already on the building (V-CRF-2, V-CRF-4)."""
    acts: list[Action] = []
    codes: list[Code] = []
    for b in range(4):
        if any(occupied[b * 4 : b * 4 + 4]):
            for good in vd.BUILDING_GOODS[b]:
                if supply[good]:
                    acts.append(produce_act(b, good))
                    codes.append((do_produce, b, good))
    return tuple(acts), tuple(codes)


def _train_block(farmyard: bytes, supply: bytes) -> Block:
    """TRAIN a farmyard member, producing at once or not (V-CRF-2, G-20)."""
    acts: list[Action] = []
    codes: list[Code] = []
    if not any(farmyard):
        return (), ()
    for b in range(4):
        goods = sorted(good for good in vd.BUILDING_GOODS[b] if supply[good])
        goods.append(NONE_GOOD)
        for g in range(4):
            if farmyard[g]:
                for good in goods:
                    acts.append(train_act(b, g, good))
                    codes.append((do_train, b, g, good))
    return tuple(acts), tuple(codes)


def _gain_good(s: VillageState, p: int, good: int) -> None:
    s.sup_goods[good] -= 1
    s.goods[p][good] += 1


def do_buy(s: VillageState, code: Code) -> None:
    """V-CRF-3: pay the alternative price and take the good."""
    b, good, split = code[1], code[2], code[3]
    p = s.active
    price = vd.BUY_CUBES[b]
    if price is None:
        s.grain[p] -= vd.STABLES_BUY_GRAIN
        s.sup_grain += vd.STABLES_BUY_GRAIN
    else:
        _pay_split(s, p, price, split)
    _gain_good(s, p, good)
    end_action(s)


def do_produce(s: VillageState, code: Code) -> None:
    """V-CRF-2: pay the produce time and take the good."""
    b, good = code[1], code[2]
    p = s.active
    s.add_time(p, vd.PRODUCE_TIME[b])
    _gain_good(s, p, good)
    end_action(s)


def do_train(s: VillageState, code: Code) -> None:
    """V-CRF-2: move a farmyard member onto the building, then produce or not."""
    b, g, good = code[1], code[2], code[3]
    p = s.active
    m = s.mem[p]
    m[vd.FARMYARD * 4 + g] -= 1
    m[(vd.BUILDING0 + b) * 4 + g] += 1
    s.add_time(p, vd.TRAIN_TIME[b])
    if good != NONE_GOOD:
        s.add_time(p, vd.PRODUCE_TIME[b])
        _gain_good(s, p, good)
    end_action(s)


def do_mill(s: VillageState, code: Code) -> None:
    """V-CRF-5 / V-CRF-7: 2 time + 2 grain for 2 coins (what the supply holds)."""
    p = s.active
    s.add_time(p, vd.MILL_TIME)
    s.grain[p] -= vd.MILL_GRAIN
    s.sup_grain += vd.MILL_GRAIN
    k = min(vd.MILL_COINS, s.sup_coins)
    s.sup_coins -= k
    s.coins[p] += k
    end_action(s)


_MILL_TAIL: Block = ((MILL_ACT, DECLINE), ((do_mill,), DECLINE_CODE))
_DECLINE_TAIL: Block = ((DECLINE,), (DECLINE_CODE,))

# --- travel (V-DP-10) -------------------------------------------------------------------


def travel_options(s: VillageState) -> Options:
    """V-DP-10: TRAVEL per origin member, adjacent town and coin split; DECLINE."""
    p = s.active
    if not s.goods[p][vd.WAGON]:
        return DECLINE_ONLY
    m = s.mem[p]
    coins = s.coins[p]
    return _travel_block(
        bytes(m[:4] + m[_TOWN_CELLS]).translate(vd.OCCUPIED),
        bytes(s.cubes[p]).translate(_PATH_CAP),
        coins if coins < _PATH_NEED else _PATH_NEED,
    )


_TOWN_CELLS = slice(vd.TOWN0 * 4, (vd.TOWN0 + len(vd.TOWN_NAMES)) * 4)
# Paths ask at most this many cubes (or coins): larger counts are folded into the key.
_PATH_NEED = max(path[5] for path in vd.PATHS)
_PATH_CAP = bytes(min(i, _PATH_NEED) for i in range(256))


@lru_cache(maxsize=_BLOCKS_KEPT)
def _travel_block(occupied: bytes, cubes: bytes, coins: int) -> Block:
    """``occupied``: 0/1 per generation on the farmyard, then per town cell."""
    acts: list[Action] = []
    codes: list[Code] = []
    origins = [(vd.FARMYARD, g, 0) for g in range(4) if occupied[g]]  # V-TRV-1/2
    for t in range(len(vd.TOWN_NAMES)):
        base = (t + 1) * 4
        origins.extend((vd.TOWN0 + t, g, t + 1) for g in range(4) if occupied[base + g])
    for origin, g, node in origins:
        for dest, path in vd.ADJACENT[node]:
            colour, need = vd.PATHS[path][4], vd.PATHS[path][5]
            lo = max(0, need - cubes[colour])
            for k in range(lo, min(need, coins) + 1):
                acts.append(travel_act(origin, g, dest, k))
                codes.append((do_travel, origin, g, dest, path, k))
    acts.append(DECLINE)
    codes.append(DECLINE_CODE)
    return tuple(acts), tuple(codes)


def do_travel(s: VillageState, code: Code) -> None:
    """V-TRV-2..4, V-TRV-7: pay the path, move, mark a new town and take its reward."""
    origin, g, dest, path, k = code[1], code[2], code[3], code[4], code[5]
    p = s.active
    _a, _b, ptime, wagons, colour, need = vd.PATHS[path]
    s.goods[p][vd.WAGON] -= wagons
    s.sup_goods[vd.WAGON] += wagons
    s.pay_cube(p, colour, need - k, k)
    s.add_time(p, ptime)
    m = s.mem[p]
    m[origin * 4 + g] -= 1
    m[(vd.TOWN0 + dest) * 4 + g] += 1
    bit = 1 << dest
    marks = s.markers[p]
    if marks & bit or bin(marks).count("1") >= vd.TRAVEL_MARKERS:
        end_action(s)
        return
    s.markers[p] = marks | bit
    reward = vd.TOWN_REWARD[dest]
    if reward == vd.REWARD_PRESTIGE:
        s.prestige[p] += vd.TOWN_PRESTIGE
    elif reward == vd.REWARD_COIN:
        c = min(vd.TOWN_COINS, s.sup_coins)
        s.sup_coins -= c
        s.coins[p] += c
    else:
        offer_cubes(s)
        return
    end_action(s)
