"""Crafts, travel and the council chamber (V-CRF, V-TRV, V-CNC; V-DP-9 ... V-DP-12)."""

from __future__ import annotations

from functools import cache
from itertools import product
from typing import TYPE_CHECKING

from games.core import Action
from games.village import actions as va
from games.village import data as vd
from games.village.flow import end_action
from games.village.state import PRIV
from games.village.turn import DECLINE, DECLINE_CODE, farmyard_gens, offer_cubes, offer_good

if TYPE_CHECKING:
    from games.village.state import Code, VillageState

Options = tuple[list[Action], list["Code"]]

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


_COUNCIL_PAYS = tuple(va.CouncilPay)
PAY_SCROLL, PAY_GREEN = range(2)


@cache
def enter_act(g: int, pay: int, k: int) -> va.Enter:
    """The interned ENTER value."""
    return va.Enter(g + 1, _COUNCIL_PAYS[pay], k)


@cache
def advance_act(stage: int, g: int, pay: int, k: int) -> va.Advance:
    """The interned ADVANCE value."""
    return va.Advance(stage, g + 1, _COUNCIL_PAYS[pay], k)


USE_ACTS = tuple(va.Use(k) for k in range(5))
PRIVILEGE_ACTS = tuple(va.Privilege(k) for k in range(5))
NO_PRIVILEGE = va.NoPrivilege()


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


def crafts_options(s: VillageState) -> Options:
    """V-DP-9: BUY, PRODUCE, TRAIN, MILL, DECLINE (blocks cached by small keys)."""
    p = s.active
    sup = s.sup_goods
    supmask = (
        (sup[0] > 0) | (sup[1] > 0) << 1 | (sup[2] > 0) << 2 | (sup[3] > 0) << 3 | (sup[4] > 0) << 4
    )
    cubes = s.cubes[p]
    m = s.mem[p]
    grain = s.grain[p]
    held = (min(cubes[0], 2), min(cubes[1], 2), min(cubes[2], 2), min(cubes[3], 2))
    buy = _buy_block(supmask, grain >= vd.STABLES_BUY_GRAIN, held, min(s.coins[p], 2))
    bmask = 0
    for b in range(4):
        base = (vd.BUILDING0 + b) * 4
        if m[base] or m[base + 1] or m[base + 2] or m[base + 3]:
            bmask |= 1 << b
    gmask = (m[0] > 0) | (m[1] > 0) << 1 | (m[2] > 0) << 2 | (m[3] > 0) << 3
    prod = _produce_block(bmask, supmask)
    train = _train_block(gmask, supmask)
    acts: list[Action] = [*buy[0], *prod[0], *train[0]]
    codes: list[Code] = [*buy[1], *prod[1], *train[1]]
    if grain >= vd.MILL_GRAIN:  # V-CRF-5
        acts.append(MILL_ACT)
        codes.append((do_mill,))
    acts.append(DECLINE)
    codes.append(DECLINE_CODE)
    return acts, codes


@cache
def _buy_block(supmask: int, stables: bool, held: tuple[int, ...], coins: int) -> Block:
    """BUY options, buildings in canonical order (V-CRF-3, V-CRF-7, V-DP-3)."""
    acts: list[Action] = []
    codes: list[Code] = []
    cubes = list(held)
    for b in range(4):
        price = vd.BUY_CUBES[b]
        if price is None:
            if stables:
                for good in vd.BUILDING_GOODS[b]:
                    if supmask >> good & 1:
                        acts.append(buy_act(b, good, ()))
                        codes.append((do_buy, b, good, ()))
            continue
        good = vd.BUILDING_GOODS[b][0]
        if supmask >> good & 1:
            for sp in splits(price, cubes, coins):
                acts.append(buy_act(b, good, sp))
                codes.append((do_buy, b, good, sp))
    return tuple(acts), tuple(codes)


@cache
def _produce_block(bmask: int, supmask: int) -> Block:
    """PRODUCE with a member already on the building (V-CRF-2, V-CRF-4)."""
    acts: list[Action] = []
    codes: list[Code] = []
    for b in range(4):
        if bmask >> b & 1:
            for good in vd.BUILDING_GOODS[b]:
                if supmask >> good & 1:
                    acts.append(produce_act(b, good))
                    codes.append((do_produce, b, good))
    return tuple(acts), tuple(codes)


@cache
def _train_block(gmask: int, supmask: int) -> Block:
    """TRAIN a farmyard member, producing at once or not (V-CRF-2, G-20)."""
    acts: list[Action] = []
    codes: list[Code] = []
    if not gmask:
        return (), ()
    for b in range(4):
        goods = sorted(good for good in vd.BUILDING_GOODS[b] if supmask >> good & 1)
        goods.append(NONE_GOOD)
        for g in range(4):
            if gmask >> g & 1:
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


# --- travel (V-DP-10) -------------------------------------------------------------------


def travel_options(s: VillageState) -> Options:
    """V-DP-10: TRAVEL per origin member, adjacent town and coin split; DECLINE."""
    p = s.active
    acts: list[Action] = []
    codes: list[Code] = []
    if s.goods[p][vd.WAGON]:
        cubes = s.cubes[p]
        coins = s.coins[p]
        m = s.mem[p]
        origins = [(vd.FARMYARD, g, 0) for g in range(4) if m[g]]  # V-TRV-1/2
        for t in range(len(vd.TOWN_NAMES)):
            base = (vd.TOWN0 + t) * 4
            origins.extend((vd.TOWN0 + t, g, t + 1) for g in range(4) if m[base + g])
        for origin, g, node in origins:
            for dest, path in vd.ADJACENT[node]:
                colour, need = vd.PATHS[path][4], vd.PATHS[path][5]
                lo = max(0, need - cubes[colour])
                for k in range(lo, min(need, coins) + 1):
                    acts.append(travel_act(origin, g, dest, k))
                    codes.append((do_travel, origin, g, dest, path, k))
    acts.append(DECLINE)
    codes.append(DECLINE_CODE)
    return acts, codes


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


# --- council (V-DP-11, V-DP-12) ---------------------------------------------------------


def _council_pays(s: VillageState, p: int) -> list[tuple[int, int]]:
    """Payment forms: 1 scroll, then 2 green with each affordable split (V-DP-21)."""
    out = []
    if s.goods[p][vd.SCROLL] >= vd.COUNCIL_SCROLL:
        out.append((PAY_SCROLL, 0))
    coins = s.coins[p]
    for k in range(
        max(0, vd.COUNCIL_GREEN - s.cubes[p][vd.GREEN]), min(vd.COUNCIL_GREEN, coins) + 1
    ):
        out.append((PAY_GREEN, k))
    return out


def privilege_effective(s: VillageState, p: int, k: int) -> bool:
    """G-35: a privilege is offered only when it would have an effect now."""
    if k == 1:
        return s.nsp < 0
    if k == 2:
        sup = s.sup_cubes
        return bool(sup[0] or sup[1] or sup[2] or sup[3])
    if k == 3:
        return any(s.sup_goods)
    return s.coins[p] >= vd.STAGE4_COIN


def council_options(s: VillageState) -> Options:
    """V-DP-11: ENTER, ADVANCE, USE, DECLINE."""
    p = s.active
    acts: list[Action] = []
    codes: list[Code] = []
    m = s.mem[p]
    pays = _council_pays(s, p)
    for g in farmyard_gens(s, p):  # ENTER
        for pay, k in pays:
            acts.append(enter_act(g, pay, k))
            codes.append((do_enter, g, pay, k))
    top = 0
    for stage in range(1, 5):
        base = (vd.COUNCIL0 + stage - 1) * 4
        for g in range(4):
            if m[base + g]:
                top = stage
                if stage < 4:  # ADVANCE
                    for pay, k in pays:
                        acts.append(advance_act(stage, g, pay, k))
                        codes.append((do_advance, stage, g, pay, k))
    for k in range(1, top + 1):  # USE
        if privilege_effective(s, p, k):
            acts.append(USE_ACTS[k])
            codes.append((do_privilege, k))
    acts.append(DECLINE)
    codes.append(DECLINE_CODE)
    return acts, codes


def _pay_council(s: VillageState, p: int, pay: int, k: int) -> None:
    if pay == PAY_SCROLL:
        s.goods[p][vd.SCROLL] -= vd.COUNCIL_SCROLL
        s.sup_goods[vd.SCROLL] += vd.COUNCIL_SCROLL
    else:
        s.pay_cube(p, vd.GREEN, vd.COUNCIL_GREEN - k, k)


def do_enter(s: VillageState, code: Code) -> None:
    """V-CNC-1 (a): farmyard member to stage 1 for 1 time + the payment."""
    g, pay, k = code[1], code[2], code[3]
    p = s.active
    _pay_council(s, p, pay, k)
    s.add_time(p, vd.COUNCIL_ENTER_TIME)
    m = s.mem[p]
    m[vd.FARMYARD * 4 + g] -= 1
    m[vd.COUNCIL0 * 4 + g] += 1
    s.priv_stage = 1
    s.phase = PRIV


def do_advance(s: VillageState, code: Code) -> None:
    """V-CNC-1 (b): one stage up for the step's time + the payment."""
    stage, g, pay, k = code[1], code[2], code[3], code[4]
    p = s.active
    _pay_council(s, p, pay, k)
    s.add_time(p, vd.COUNCIL_ADVANCE_TIME[stage + 1])
    m = s.mem[p]
    m[(vd.COUNCIL0 + stage - 1) * 4 + g] -= 1
    m[(vd.COUNCIL0 + stage) * 4 + g] += 1
    s.priv_stage = stage + 1
    s.phase = PRIV


def privilege_options(s: VillageState) -> Options:
    """V-DP-12: an effective privilege up to the stage reached, or NONE."""
    p = s.active
    acts: list[Action] = []
    codes: list[Code] = []
    for k in range(1, s.priv_stage + 1):
        if privilege_effective(s, p, k):
            acts.append(PRIVILEGE_ACTS[k])
            codes.append((do_privilege, k))
    acts.append(NO_PRIVILEGE)
    codes.append(DECLINE_CODE)
    return acts, codes


def do_privilege(s: VillageState, code: Code) -> None:
    """V-CNC-3..6."""
    k = code[1]
    p = s.active
    if k == 1:
        s.nsp = p
    elif k == 2:
        offer_cubes(s)
        return
    elif k == 3:
        offer_good(s)
        return
    else:
        s.coins[p] -= vd.STAGE4_COIN
        s.sup_coins += vd.STAGE4_COIN
        s.prestige[p] += vd.STAGE4_PRESTIGE
    end_action(s)
