"""A turn: taking a cube or the well, the free last action, and the simple action points
(harvest, family, church) plus the cubes/good of choice (V-TRN, V-WEL, V-HAR, V-FAM,
V-CHU, V-DP-4 ... V-DP-8, V-DP-13 ... V-DP-15)."""

from __future__ import annotations

from functools import cache
from itertools import chain, compress
from typing import TYPE_CHECKING

from games.core import Action
from games.village import actions as va
from games.village import data as vd
from games.village.flow import end_action
from games.village.state import ACTION, CUBES, GOODS, WELL_PAY

if TYPE_CHECKING:
    from games.village.state import Code, VillageState

Options = tuple[list[Action], list["Code"]]

# --- interned action values (options are built often; values never change) -------------


@cache
def take_act(sp: int, c: int) -> va.Take:
    """The interned TAKE value for a space and colour index."""
    return va.Take(va.SPACES[sp], va.COLOURS[c])


WELL_ACTS = tuple(va.Well(sp) for sp in va.SPACES)
FREE_ACTS = tuple(va.Act(sp) for sp in va.SPACES)
DECLINE = va.Decline()
HARVEST_ACT = va.Harvest()
BIRTH_ACT = va.Birth()


@cache
def pay_well_act(c: int, k: int) -> va.PayWell:
    """The interned PAY_WELL value for a colour index and coin count."""
    return va.PayWell(va.COLOURS[c], k)


PAY_WELL_COINS = va.PayWellCoins()


@cache
def return_act(g: int, loc: int) -> va.Return:
    """The interned RETURN value for a generation and location index."""
    return va.Return(g + 1, va.LOCS[loc])


_CHURCH_PAYS = tuple(va.ChurchPay)


@cache
def to_bag_act(g: int, pay: int) -> va.ToBag:
    """The interned TO_BAG value for a generation and payment index."""
    return va.ToBag(g + 1, _CHURCH_PAYS[pay])


@cache
def cubes_act(colours: tuple[int, ...]) -> va.Cubes:
    """The interned CUBES value for colour indices."""
    return va.Cubes(tuple(va.COLOURS[c] for c in colours))


TAKE_GOOD_ACTS = tuple(va.TakeGood(g) for g in va.GOODS)

# --- V-DP-4: the turn -------------------------------------------------------------------


def turn_options(s: VillageState) -> Options:
    # TAKE for every (space, colour) holding a cube, in canonical order; kept between
    # turns and updated by do_take (the board changes one cube at a time).
    """V-DP-4: TAKE per (space, colour) on the board, then WELL per space."""
    take = s._take
    if take is None:
        take = (
            list(compress(range(35), chain.from_iterable(s.spaces))),
            list(compress(_TAKE_ACTS, chain.from_iterable(s.spaces))),
            list(compress(_TAKE_CODES, chain.from_iterable(s.spaces))),
        )
        s._take = take
    acts = take[1][:]
    codes = take[2][:]
    p = s.active
    coins = s.coins[p]
    # V-WEL-1/4: three cubes of one colour, coins standing in for any of them (G-12).
    if coins >= vd.WELL_CUBES or max(s.cubes[p]) + coins >= vd.WELL_CUBES:
        acts.extend(WELL_ACTS)
        codes.extend(_WELL_CODES)
    return acts, codes


_TAKE_ACTS = tuple(take_act(sp, c) for sp in range(7) for c in range(5))


def do_take(s: VillageState, code: Code) -> None:
    """V-TRN-1..4: take the cube, then the action point (or the market day)."""
    sp, c = code[1], code[2]
    row = s.spaces[sp]
    row[c] -= 1
    s.board_cubes -= 1
    take = s._take
    if take is not None and not row[c]:
        i = take[0].index(sp * 5 + c)
        del take[0][i], take[1][i], take[2][i]
    p = s.active
    if c == vd.PLAGUE:
        s.sup_cubes[vd.PLAGUE] += 1  # V-TRN-3
        s.add_time(p, vd.PLAGUE_TIME)
    else:
        s.cubes[p][c] += 1  # V-TRN-2
    go_action(s, sp)


_TAKE_CODES = tuple((do_take, sp, c) for sp in range(7) for c in range(5))


def go_action(s: VillageState, sp: int) -> None:
    """Open the action point of space ``sp``; the market day is never optional."""
    if sp == vd.MARKET:
        from games.village.market import start_market

        start_market(s)
    else:
        s.act_space = sp
        s.phase = ACTION


def do_well(s: VillageState, code: Code) -> None:
    """V-WEL-1: the well for a space; its payment is asked next (V-DP-5)."""
    s.act_space = code[1]
    s.phase = WELL_PAY


_WELL_CODES = tuple((do_well, sp) for sp in range(7))


def well_pay_options(s: VillageState) -> Options:
    """V-DP-5."""
    p = s.active
    coins = s.coins[p]
    cubes = s.cubes[p]
    acts: list[Action] = []
    codes: list[Code] = []
    kmax = min(vd.WELL_MAX_COINS_WITH_COLOUR, coins)
    for c in range(4):
        for k in range(max(0, vd.WELL_CUBES - cubes[c]), kmax + 1):
            acts.append(pay_well_act(c, k))
            codes.append((do_pay_well, c, k))
    if coins >= vd.WELL_CUBES:
        acts.append(PAY_WELL_COINS)
        codes.append((do_pay_well, 0, vd.WELL_CUBES))
    return acts, codes


def do_pay_well(s: VillageState, code: Code) -> None:
    """V-DP-5: pay 3 - k cubes of a colour and k coins, then the action."""
    c, k = code[1], code[2]
    s.pay_cube(s.active, c, vd.WELL_CUBES - k, k)
    go_action(s, s.act_space)


def free_options(s: VillageState) -> Options:
    """V-DP-6: any of the seven actions, without cube or well payment (V-END-3)."""
    return list(FREE_ACTS), [(do_free, sp) for sp in range(7)]


def do_free(s: VillageState, code: Code) -> None:
    """V-DP-6: the free last action of a space."""
    go_action(s, code[1])


def do_decline(s: VillageState, code: Code) -> None:
    """DECLINE / NONE: the action is over."""
    end_action(s)


DECLINE_CODE: Code = (do_decline,)

# --- V-DP-7: harvest --------------------------------------------------------------------


def farmyard_gens(s: VillageState, p: int) -> list[int]:
    """Generation indices present on p's farmyard."""
    m = s.mem[p]
    return [g for g in range(4) if m[vd.FARMYARD * 4 + g]]


def harvest_options(s: VillageState) -> Options:
    """V-DP-7."""
    m = s.mem[s.active]
    if m[0] or m[1] or m[2] or m[3]:  # V-HAR-1
        return [HARVEST_ACT, DECLINE], [(do_harvest,), DECLINE_CODE]
    return [DECLINE], [DECLINE_CODE]


def do_harvest(s: VillageState, code: Code) -> None:
    """V-HAR-2/3: 2, 3 (horse + plough) or 4 (ox + plough) grain, never above 5."""
    p = s.active
    goods = s.goods[p]
    gain = vd.HARVEST_BASE
    if goods[vd.PLOUGH]:
        if goods[vd.OX]:
            gain = vd.HARVEST_OX_PLOUGH
        elif goods[vd.HORSE]:
            gain = vd.HARVEST_HORSE_PLOUGH
    gain = min(gain, vd.GRAIN_CAPACITY - s.grain[p], s.sup_grain)
    s.grain[p] += gain
    s.sup_grain -= gain
    end_action(s)


# --- V-DP-8: family ---------------------------------------------------------------------


def family_options(s: VillageState) -> Options:
    """V-DP-8: BIRTH, RETURN per (generation, location), DECLINE."""
    p = s.active
    m = s.mem[p]
    acts: list[Action] = []
    codes: list[Code] = []
    if any(m[vd.UNBORN * 4 + g] for g in range(4)):  # G-29
        acts.append(BIRTH_ACT)
        codes.append((do_birth,))
    # V-FAM-1/2, G-22: placed members (buildings, council, church, towns), not the bag
    placed = m[4:76]
    acts.extend(compress(_RETURN_ACTS, placed))
    codes.extend(compress(_RETURN_CODES, placed))
    acts.append(DECLINE)
    codes.append(DECLINE_CODE)
    return acts, codes


def do_birth(s: VillageState, code: Code) -> None:
    """V-FAM-1 (a), T-07: the lowest unborn generation is born."""
    m = s.mem[s.active]
    g = 0
    while not m[vd.UNBORN * 4 + g]:
        g += 1
    m[vd.UNBORN * 4 + g] -= 1
    m[vd.FARMYARD * 4 + g] += 1
    end_action(s)


_RETURN_ACTS = tuple(return_act(g, loc) for loc in range(1, 19) for g in range(4))


def do_return(s: VillageState, code: Code) -> None:
    """V-FAM-1 (b), V-FAM-3: markers placed by a returned traveller stay."""
    g, loc = code[1], code[2]
    m = s.mem[s.active]
    m[loc * 4 + g] -= 1
    m[vd.FARMYARD * 4 + g] += 1
    end_action(s)


_RETURN_CODES = tuple((do_return, g, loc) for loc in range(1, 19) for g in range(4))

# --- V-DP-15: church --------------------------------------------------------------------

PAY_BROWN, PAY_COIN, PAY_TIME = range(3)


def church_options(s: VillageState) -> Options:
    """V-DP-15: TO_BAG per farmyard generation and payment, DECLINE."""
    p = s.active
    acts: list[Action] = []
    codes: list[Code] = []
    pays = []
    if s.cubes[p][vd.BROWN] >= vd.CHURCH_BROWN:
        pays.append(PAY_BROWN)
    if s.coins[p] >= vd.CHURCH_BROWN:
        pays.append(PAY_COIN)
    pays.append(PAY_TIME)
    for g in farmyard_gens(s, p):
        for pay in pays:
            acts.append(to_bag_act(g, pay))
            codes.append((do_to_bag, g, pay))
    acts.append(DECLINE)
    codes.append(DECLINE_CODE)
    return acts, codes


def do_to_bag(s: VillageState, code: Code) -> None:
    """V-CHU-1: farmyard member into the black bag for 1 brown (or a coin) or 3 time."""
    g, pay = code[1], code[2]
    p = s.active
    if pay == PAY_BROWN:
        s.pay_cube(p, vd.BROWN, vd.CHURCH_BROWN, 0)
    elif pay == PAY_COIN:
        s.pay_cube(p, vd.BROWN, 0, vd.CHURCH_BROWN)
    else:
        s.add_time(p, vd.CHURCH_TIME)
    m = s.mem[p]
    m[vd.FARMYARD * 4 + g] -= 1
    m[vd.BAG * 4 + g] += 1
    end_action(s)


# --- V-DP-13 / V-DP-14: cubes and goods of choice ---------------------------------------


def offer_cubes(s: VillageState) -> None:
    """Stage-2 privilege or town reward: V-DP-13 unless the supply holds no cube (G-30)."""
    sup = s.sup_cubes
    if sup[0] or sup[1] or sup[2] or sup[3]:
        s.phase = CUBES
    else:
        end_action(s)


def cubes_options(s: VillageState) -> Options:
    """V-DP-13: unordered colour pairs the supply can give (or single cubes)."""
    sup = s.sup_cubes
    acts: list[Action] = []
    codes: list[Code] = []
    if sup[0] + sup[1] + sup[2] + sup[3] >= vd.PRIVILEGE_CUBES:
        for a in range(4):
            if not sup[a]:
                continue
            for b in range(a, 4):
                if sup[b] >= (2 if a == b else 1):
                    key = (a, b)
                    acts.append(cubes_act(key))
                    codes.append((do_cubes, key))
    else:
        for a in range(4):
            if sup[a]:
                acts.append(cubes_act((a,)))
                codes.append((do_cubes, (a,)))
    return acts, codes


def do_cubes(s: VillageState, code: Code) -> None:
    """Take the chosen cubes from the supply; the action is over."""
    p = s.active
    for c in code[1]:
        s.sup_cubes[c] -= 1
        s.cubes[p][c] += 1
    end_action(s)


def offer_good(s: VillageState) -> None:
    """Stage-3 privilege: V-DP-14 (offered only when the supply holds a good, G-35)."""
    if any(s.sup_goods):
        s.phase = GOODS
    else:
        end_action(s)


def goods_options(s: VillageState) -> Options:
    """V-DP-14: a goods type still in the supply."""
    acts: list[Action] = []
    codes: list[Code] = []
    for g in range(5):
        if s.sup_goods[g]:
            acts.append(TAKE_GOOD_ACTS[g])
            codes.append((do_take_good, g))
    return acts, codes


def do_take_good(s: VillageState, code: Code) -> None:
    """Take the chosen good from the supply; the action is over."""
    g = code[1]
    s.sup_goods[g] -= 1
    s.goods[s.active][g] += 1
    end_action(s)
