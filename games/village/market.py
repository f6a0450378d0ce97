"""The market day (V-MKT, V-DP-16): every player takes part in turn, the starter's first
sale is free, every other sale costs 1 green (or a coin) and 1 time; deaths caused during
the day are resolved at once (V-DTH-1)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from games.core import Action
from games.village import actions as va
from games.village import data as vd
from games.village.flow import end_action, resolve_deaths
from games.village.state import MARKET

if TYPE_CHECKING:
    from games.village.state import Code, VillageState

Options = tuple[Sequence[Action], Sequence["Code"]]

EXTRA_FREE, EXTRA_GREEN, EXTRA_COIN = range(3)
_EXTRAS = tuple(va.Extra)
PASS = va.Pass()
# Extra kinds of a sale the player can pay, in option order (V-DP-16).
_FREE_EXTRAS = (EXTRA_FREE,)
_GREEN_COIN = (EXTRA_GREEN, EXTRA_COIN)
_GREEN = (EXTRA_GREEN,)
_COIN = (EXTRA_COIN,)


@cache
def serve_act(stall: int, extra: int) -> va.Serve:
    """The interned SERVE value for a stall index and extra kind."""
    return va.Serve(stall + 1, _EXTRAS[extra])


# Most market participants can only pass (a lone option, applied at once), so the stall
# check runs for every participant of every market day. It compares packed integers: one 8-bit
# lane per goods type and one for grain, each with a guard bit, so that
# ``(have - need) & _GUARDS == _GUARDS`` exactly when no lane of ``need`` exceeds ``have``
# (every count stays below 128: a player never holds more than the supply's total).
_LANES = 6
_GUARDS = sum(0x80 << (8 * i) for i in range(_LANES))
assert max(vd.GOODS_PER_TYPE, vd.GRAIN_SACKS) < 0x80


# Per customer tile: (packed demand, a bit shared by identical tiles: same demand and
# points, offered once, V-DP-16). Derived once per deck object: tests replace vd.CUSTOMERS.
TileNeeds = tuple[tuple[int, int], ...]
_needs_memo: list[tuple[object, TileNeeds]] = []


def _tile_needs() -> TileNeeds:
    deck = vd.CUSTOMERS
    if not _needs_memo or _needs_memo[0][0] is not deck:
        first: dict[tuple[object, ...], int] = {}
        needs = []
        for t, (_id, demand, dgrain, pts) in enumerate(deck):
            twin = first.setdefault((demand, dgrain, pts), t)
            assert max(*demand, dgrain) < 0x80  # fits a lane
            packed = sum(k << (8 * g) for g, k in enumerate(demand)) | dgrain << 40
            needs.append((packed, 1 << twin))
        _needs_memo[:] = [(deck, tuple(needs))]
    return _needs_memo[0][1]


def stall_plan(s: VillageState) -> tuple[tuple[int, int], ...]:
    """(stall index, packed demand) of the stalls in use worth checking: the lowest stall
    of each set of identical tiles (V-DP-16). Every participant of a market day checks
    the same stalls, so the state keeps this until a stall changes."""
    needs = _tile_needs()
    seen = 0
    plan = []
    for i, t in enumerate(s.stalls[: vd.STALLS_IN_USE[s.n]]):
        if t >= 0:
            need, bit = needs[t]
            if not seen & bit:
                seen |= bit
                plan.append((i, need))
    return tuple(plan)


def _stall_customer(s: VillageState) -> bool:
    in_use = vd.STALLS_IN_USE[s.n]
    return s.stalls[:in_use].count(-1) != in_use  # -1 marks an empty stall


def start_market(s: VillageState) -> None:
    """V-MKT-1: a market day starts; V-MKT-9: with no stall customer it ends at once."""
    p = s.active
    s.mk_starter = p
    if not _stall_customer(s):
        end_action(s)
        return
    s.mk_passed = [False] * s.n
    s.mk_first = True
    s.mk_sold = False
    s.mk_cur = p
    s._stall_plan = None  # the stalls may have changed since the last market day
    s.phase = MARKET


def market_options(s: VillageState) -> Options:
    """V-DP-16: SERVE per servable stall (free, green or coin), then PASS."""
    p = s.mk_cur
    extras: tuple[int, ...]
    if p == s.mk_starter and s.mk_first:
        extras = _FREE_EXTRAS
    elif s.cubes[p][vd.GREEN] >= vd.EXTRA_SALE_GREEN:
        extras = _GREEN_COIN if s.coins[p] >= vd.EXTRA_SALE_GREEN else _GREEN
    elif s.coins[p] >= vd.EXTRA_SALE_GREEN:
        extras = _COIN
    else:
        return _PASS_ONLY
    guards = _GUARDS
    g = s.goods[p]  # packed with the grain, guard bits set
    have = g[0] | g[1] << 8 | g[2] << 16 | g[3] << 24 | g[4] << 32 | s.grain[p] << 40 | guards
    plan = s._stall_plan
    if plan is None:  # kept for the day: every participant checks the same stalls
        plan = s._stall_plan = stall_plan(s)
    acts: list[Action] | None = None  # most participants can serve nothing
    codes: list[Code] = []
    for i, need in plan:
        if (have - need) & guards == guards:
            if acts is None:
                acts = []
            for e in extras:
                acts.append(_SERVE_ACTS[i][e])
                codes.append(_SERVE_CODES[i][e])
    if acts is None:
        return _PASS_ONLY
    acts.append(PASS)
    codes.append(_PASS_CODE)
    return acts, codes


def do_serve(s: VillageState, code: Code) -> None:
    """V-MKT-4/5: return the demand, take the tile; extra green (or coin) and time."""
    i, extra = code[1], code[2]
    p = s.mk_cur
    t = s.stalls[i]
    _id, demand, dgrain, _pts = vd.CUSTOMERS[t]
    goods = s.goods[p]
    for g in range(5):
        if demand[g]:
            goods[g] -= demand[g]
            s.sup_goods[g] += demand[g]
    s.grain[p] -= dgrain
    s.sup_grain += dgrain
    s.tiles[p].append(t)
    s.stalls[i] = -1
    s._stall_plan = None
    s.mk_sold = True
    if p == s.mk_starter:
        s.mk_first = False
    crossed = 0
    if extra != EXTRA_FREE:
        if extra == EXTRA_GREEN:
            s.pay_cube(p, vd.GREEN, vd.EXTRA_SALE_GREEN, 0)
        else:
            s.pay_cube(p, vd.GREEN, 0, vd.EXTRA_SALE_GREEN)
        crossed = s.add_time(p, vd.EXTRA_SALE_TIME)
    if crossed:
        # V-DTH-1 / V-MKT-8: resolve at once, every death then due (G-32).
        s.death_player = p
        s.death_in_market = True
        resolve_deaths(s)
    else:
        next_seller(s)


def do_pass(s: VillageState, code: Code) -> None:
    """V-MKT-3: a player who passes is out of this market day."""
    p = s.mk_cur
    s.mk_passed[p] = True
    if p == s.mk_starter:
        s.mk_first = False
    next_seller(s)


_SERVE_ACTS = tuple(tuple(serve_act(i, e) for e in range(3)) for i in range(vd.STALLS))
_SERVE_CODES = tuple(tuple((do_serve, i, e) for e in range(3)) for i in range(vd.STALLS))
_PASS_CODE: Code = (do_pass,)
_PASS_ONLY: Options = ((PASS,), (_PASS_CODE,))


def next_seller(s: VillageState) -> None:
    """V-MKT-6: next participant clockwise, or the end of the day and the refill."""
    passed = s.mk_passed
    n = s.n
    in_use = vd.STALLS_IN_USE[n]
    while True:
        if all(passed) or s.stalls[:in_use].count(-1) == in_use:  # no stall customer
            if s.mk_sold:
                refill(s)
            end_action(s)
            return
        c = (s.mk_cur + 1) % n
        while passed[c]:
            c = (c + 1) % n
        s.mk_cur = c
        s.phase = MARKET
        if market_options(s) is not _PASS_ONLY:
            return
        # Most participants can only pass: apply that lone option here, as settle()
        # would (G-25), without a round trip through it (do_pass, inlined).
        passed[c] = True
        if c == s.mk_starter:
            s.mk_first = False


def refill(s: VillageState) -> None:
    """V-MKT-7: queue front into empty stalls in use, shift the queue, refill from the pile."""
    q = [t for t in s.queue if t >= 0]
    stalls = s.stalls
    for i in range(vd.STALLS_IN_USE[s.n]):
        if stalls[i] < 0 and q:
            stalls[i] = q.pop(0)
    pile = s.pile
    while len(q) < vd.QUEUE and pile:
        q.append(pile.pop())
    s.queue = q + [-1] * (vd.QUEUE - len(q))
    s._stall_plan = None
