"""A turn: taking a cube or the well, the free last action, and the simple action points
(harvest, family, church) (V-TRN, V-WEL, V-HAR, V-FAM, V-CHU, V-DP-4 ... V-DP-8, V-DP-15);
the cubes/good of choice are in ``council``."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import chain, compress
from typing import TYPE_CHECKING

from games.core import Action
from games.village import actions as va
from games.village import data as vd
from games.village.flow import end_action
from games.village.market import start_market
from games.village.state import ACTION, WELL_PAY

if TYPE_CHECKING:
    from games.village.state import Code, VillageState

Options = tuple[Sequence[Action], Sequence["Code"]]
# Options computed once per small key (functools.cache) are shared tuples.
Block = tuple[tuple[Action, ...], tuple["Code", ...]]

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


# --- V-DP-4: the turn -------------------------------------------------------------------


def turn_options(s: VillageState) -> Options:
    """V-DP-4: TAKE per (space, colour) on the board, then WELL per space."""
    # TAKE options are kept between turns and updated by do_take (the board changes one
    # cube at a time); they are tuples, so a turn without the well returns them as they are.
    take = s._take
    if take is None:
        flat = list(chain.from_iterable(s.spaces))
        take = (
            tuple(compress(range(35), flat)),
            tuple(compress(_TAKE_ACTS, flat)),
            tuple(compress(_TAKE_CODES, flat)),
        )
        s._take = take
    p = s.active
    # V-WEL-1/4: three cubes of one colour, coins standing in for any of them (G-12).
    # (Spelled out: builtin min/max calls cost more than these comparisons.)
    short = vd.WELL_CUBES - s.coins[p]
    cubes = s.cubes[p]
    if (
        short <= 0
        or cubes[0] >= short
        or cubes[1] >= short
        or cubes[2] >= short
        or cubes[3] >= short
    ):
        return take[1] + WELL_ACTS, take[2] + _WELL_CODES
    return take[1], take[2]


_TAKE_ACTS = tuple(take_act(sp, c) for sp in range(7) for c in range(5))


def do_take(s: VillageState, code: Code) -> None:
    """V-TRN-1..4: take the cube, then the action point (or the market day)."""
    _do, sp, c = code
    row = s.spaces[sp]
    left = row[c] - 1
    row[c] = left
    s.board_cubes -= 1
    if not left:
        take = s._take
        if take is not None:
            keys, acts, codes = take
            i = keys.index(sp * 5 + c)
            j = i + 1
            s._take = (keys[:i] + keys[j:], acts[:i] + acts[j:], codes[:i] + codes[j:])
    p = s.active
    if c == vd.PLAGUE:
        s.sup_cubes[vd.PLAGUE] += 1  # V-TRN-3
        s.add_time(p, vd.PLAGUE_TIME)
    else:
        s.cubes[p][c] += 1  # V-TRN-2
    if sp == vd.MARKET:
        start_market(s)
    else:  # go_action(), inlined on the most frequent path
        s.act_space = sp
        s.phase = ACTION


_TAKE_CODES = tuple((do_take, sp, c) for sp in range(7) for c in range(5))
# The option of each interned TAKE value, by identity (see VillageState.apply); the
# values live as long as this module, so their ids stay theirs.
TAKE_CODE_BY_ID: dict[int, Code] = {
    id(a): code for a, code in zip(_TAKE_ACTS, _TAKE_CODES, strict=True)
}


def go_action(s: VillageState, sp: int) -> None:
    """Open the action point of space ``sp``; the market day is never optional."""
    if sp == vd.MARKET:
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
    """V-DP-5 (cached: only counts up to the well's 3 matter)."""
    p = s.active
    coins = s.coins[p]
    return _well_pay_block(
        bytes(s.cubes[p]).translate(_WELL_CAP),
        coins if coins < vd.WELL_CUBES else vd.WELL_CUBES,
    )


_WELL_CAP = bytes(min(i, vd.WELL_CUBES) for i in range(256))


@cache
def _well_pay_block(cubes: bytes, coins: int) -> Block:
    acts: list[Action] = []
    codes: list[Code] = []
    kmax = min(vd.WELL_MAX_COINS_WITH_COLOUR, coins)
    for c, held in enumerate(cubes):
        for k in range(max(0, vd.WELL_CUBES - held), kmax + 1):
            acts.append(pay_well_act(c, k))
            codes.append((do_pay_well, c, k))
    if coins >= vd.WELL_CUBES:
        acts.append(PAY_WELL_COINS)
        codes.append((do_pay_well, 0, vd.WELL_CUBES))
    return tuple(acts), tuple(codes)


def do_pay_well(s: VillageState, code: Code) -> None:
    """V-DP-5: pay 3 - k cubes of a colour and k coins, then the action."""
    c, k = code[1], code[2]
    s.pay_cube(s.active, c, vd.WELL_CUBES - k, k)
    go_action(s, s.act_space)


def free_options(s: VillageState) -> Options:
    """V-DP-6: any of the seven actions, without cube or well payment (V-END-3)."""
    return FREE_ACTS, _FREE_CODES


def do_free(s: VillageState, code: Code) -> None:
    """V-DP-6: the free last action of a space."""
    go_action(s, code[1])


_FREE_CODES = tuple((do_free, sp) for sp in range(7))


def do_decline(s: VillageState, code: Code) -> None:
    """DECLINE / NONE: the action is over."""
    end_action(s)


DECLINE_CODE: Code = (do_decline,)

# --- V-DP-7: harvest --------------------------------------------------------------------


def farmyard_key(s: VillageState, p: int) -> bytes:
    """0/1 per generation on p's farmyard (a small cache key)."""
    return bytes(s.mem[p][:4]).translate(vd.OCCUPIED)


def harvest_options(s: VillageState) -> Options:
    """V-DP-7."""
    m = s.mem[s.active]
    if m[0] or m[1] or m[2] or m[3]:  # V-HAR-1
        return _HARVEST_OPTIONS
    return DECLINE_ONLY


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


_HARVEST_OPTIONS: Options = ((HARVEST_ACT, DECLINE), ((do_harvest,), DECLINE_CODE))
DECLINE_ONLY: Options = ((DECLINE,), (DECLINE_CODE,))


# --- V-DP-8: family ---------------------------------------------------------------------


def family_options(s: VillageState) -> Options:
    """V-DP-8: BIRTH, RETURN per (generation, location), DECLINE."""
    p = s.active
    m = s.mem[p]
    acts: list[Action] = []
    codes: list[Code] = []
    u = vd.UNBORN * 4
    if m[u] or m[u + 1] or m[u + 2] or m[u + 3]:  # G-29
        acts.append(BIRTH_ACT)
        codes.append(_BIRTH_CODE)
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


_BIRTH_CODE: Code = (do_birth,)
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
    return _church_block(
        farmyard_key(s, p),
        s.cubes[p][vd.BROWN] >= vd.CHURCH_BROWN,
        s.coins[p] >= vd.CHURCH_BROWN,
    )


@cache
def _church_block(farmyard: bytes, brown: bool, coin: bool) -> Block:
    pays = [PAY_BROWN] * brown + [PAY_COIN] * coin + [PAY_TIME]
    acts: list[Action] = []
    codes: list[Code] = []
    for g in range(4):
        if farmyard[g]:
            for pay in pays:
                acts.append(to_bag_act(g, pay))
                codes.append((do_to_bag, g, pay))
    acts.append(DECLINE)
    codes.append(DECLINE_CODE)
    return tuple(acts), tuple(codes)


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
