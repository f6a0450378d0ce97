"""The market day (V-MKT, V-DP-16): every player takes part in turn, the starter's first
sale is free, every other sale costs 1 green (or a coin) and 1 time; deaths caused during
the day are resolved at once (V-DTH-1)."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from games.core import Action
from games.village import actions as va
from games.village import data as vd
from games.village.flow import end_action, resolve_deaths
from games.village.state import MARKET

if TYPE_CHECKING:
    from games.village.state import Code, VillageState

Options = tuple[list[Action], list["Code"]]

EXTRA_FREE, EXTRA_GREEN, EXTRA_COIN = range(3)
_EXTRAS = tuple(va.Extra)
PASS = va.Pass()


@cache
def serve_act(stall: int, extra: int) -> va.Serve:
    """The interned SERVE value for a stall index and extra kind."""
    return va.Serve(stall + 1, _EXTRAS[extra])


@cache
def _needs(demand: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """(goods type, count) pairs a demand asks for."""
    return tuple((g, k) for g, k in enumerate(demand) if k)


def _stall_customer(s: VillageState) -> bool:
    return any(t >= 0 for t in s.stalls[: vd.STALLS_IN_USE[s.n]])


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
    s.phase = MARKET


def market_options(s: VillageState) -> Options:
    """V-DP-16: SERVE per servable stall (free, green or coin), then PASS."""
    p = s.mk_cur
    goods = s.goods[p]
    grain = s.grain[p]
    if p == s.mk_starter and s.mk_first:
        extras = [EXTRA_FREE]
    else:
        extras = []
        if s.cubes[p][vd.GREEN] >= vd.EXTRA_SALE_GREEN:
            extras.append(EXTRA_GREEN)
        if s.coins[p] >= vd.EXTRA_SALE_GREEN:
            extras.append(EXTRA_COIN)
    acts: list[Action] = []
    codes: list[Code] = []
    if extras:
        seen: set[tuple[tuple[int, ...], int, int]] = set()
        for i in range(vd.STALLS_IN_USE[s.n]):
            t = s.stalls[i]
            if t < 0:
                continue
            _id, demand, dgrain, _pts = vd.CUSTOMERS[t]
            if dgrain > grain:
                continue
            ok = True
            for g, k in _needs(demand):
                if goods[g] < k:
                    ok = False
                    break
            if not ok:
                continue
            sig = (demand, dgrain, _pts)
            if sig in seen:  # identical tiles: the lower stall only (V-DP-16)
                continue
            seen.add(sig)
            for e in extras:
                acts.append(serve_act(i, e))
                codes.append((do_serve, i, e))
    acts.append(PASS)
    codes.append((do_pass,))
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


def next_seller(s: VillageState) -> None:
    """V-MKT-6: next participant clockwise, or the end of the day and the refill."""
    passed = s.mk_passed
    if all(passed) or not _stall_customer(s):
        if s.mk_sold:
            refill(s)
        end_action(s)
        return
    c = (s.mk_cur + 1) % s.n
    while passed[c]:
        c = (c + 1) % s.n
    s.mk_cur = c
    s.phase = MARKET


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
