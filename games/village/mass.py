"""The mass after every round and at the game end (V-MAS; V-DP-18, V-DP-19), and the
final scoring with its tie-breakers (V-SCO)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import chain, repeat
from typing import TYPE_CHECKING

from games.core import Action, Result, competition_ranks
from games.village import actions as va
from games.village import data as vd
from games.village.state import BUYOUT, OVER, PROMOTE

if TYPE_CHECKING:
    from games.village.state import Code, VillageState

Options = tuple[Sequence[Action], Sequence["Code"]]

DONE = va.Done()


@cache
def buy_out_act(g: int) -> va.BuyOut:
    """The interned BUY_OUT value for a generation index."""
    return va.BuyOut(g + 1)


@cache
def promote_act(w: int, g: int) -> va.Promote:
    """The interned PROMOTE value for a window and generation index."""
    return va.Promote(w + 1, g + 1)


def start_mass(s: VillageState, final: bool) -> None:
    """V-MAS-1/2: visits in order from the starting player of the round just played."""
    s.final_mass = final
    s.mass_no += 1
    s.mass_order = [(s.start + i) % s.n for i in range(s.n)]
    s.mass_idx = 0
    s.bought = 0
    s.phase = BUYOUT
    _next_buyout(s)


def _can_buy(s: VillageState, p: int) -> bool:
    if s.coins[p] < vd.BUYOUT_COIN or s.bought >= vd.MASS_DRAW:
        return False
    m = s.mem[p]
    b = vd.BAG * 4
    return bool(m[b] or m[b + 1] or m[b + 2] or m[b + 3])


def _next_buyout(s: VillageState) -> None:
    """G-36: a player without coin or members in the bag is skipped."""
    while s.mass_idx < s.n and not _can_buy(s, s.mass_order[s.mass_idx]):
        s.mass_idx += 1
    if s.mass_idx >= s.n:
        _draw(s)
        s.mass_idx = 0
        s.phase = PROMOTE
        _next_promote(s)


def buyout_options(s: VillageState) -> Options:
    """V-DP-18: BUY_OUT per generation in the bag, then DONE."""
    p = s.mass_order[s.mass_idx]
    m = s.mem[p]
    acts: list[Action] = []
    codes: list[Code] = []
    for g in range(4):
        if m[vd.BAG * 4 + g]:
            acts.append(buy_out_act(g))
            codes.append((do_buy_out, g))
    acts.append(DONE)
    codes.append((do_buyout_done,))
    return acts, codes


def do_buy_out(s: VillageState, code: Code) -> None:
    """V-MAS-2: 1 coin per own member taken out; it goes to window 1 (V-MAS-4)."""
    g = code[1]
    p = s.mass_order[s.mass_idx]
    s.coins[p] -= vd.BUYOUT_COIN
    s.sup_coins += vd.BUYOUT_COIN
    m = s.mem[p]
    m[vd.BAG * 4 + g] -= 1
    m[vd.CHURCH0 * 4 + g] += 1
    s.bought += 1
    if not _can_buy(s, p):
        s.mass_idx += 1
    _next_buyout(s)


def do_buyout_done(s: VillageState, code: Code) -> None:
    """End this player's buy-out visit."""
    s.mass_idx += 1
    _next_buyout(s)


def _draw(s: VillageState) -> None:
    """V-MAS-3/4: draw until 4 pieces (bought + drawn) have left; monks go back."""
    need = vd.MASS_DRAW - s.bought
    if need <= 0:
        return
    getrandbits = s.once("mass", s.mass_no).getrandbits
    bag = vd.BAG * 4
    # The bag's pieces in draw order: the monks (-1), then p * 4 + generation index for
    # each member, players and generations ascending; drawing piece r pops it.
    pieces = [-1] * vd.MONKS
    for p, m in enumerate(s.mem):
        pieces.extend(chain.from_iterable(map(repeat, range(p * 4, p * 4 + 4), m[bag : bag + 4])))
    mem = s.mem
    for _ in range(need):
        total = len(pieces)
        if total == 0:
            break
        r = getrandbits(total.bit_length())
        while r >= total:
            r = getrandbits(total.bit_length())
        # r is exactly rng.randrange(total) (CPython's _randbelow, inlined as in
        # flow.seed_board: the same draws from the same stream).
        piece = pieces.pop(r)
        if piece >= 0:  # a monk simply goes back
            m = mem[piece >> 2]
            g = piece & 3
            m[bag + g] -= 1
            m[vd.CHURCH0 * 4 + g] += 1


def _can_promote(s: VillageState, p: int) -> bool:
    grain = s.grain[p]
    if grain < _CHEAPEST_STEP:
        return False
    m = s.mem[p]
    for w in range(3):
        if grain >= vd.WINDOW_STEP_GRAIN[w]:
            base = (vd.CHURCH0 + w) * 4
            if m[base] or m[base + 1] or m[base + 2] or m[base + 3]:
                return True
    return False


_CHEAPEST_STEP = min(vd.WINDOW_STEP_GRAIN)


def _next_promote(s: VillageState) -> None:
    while s.mass_idx < s.n and not _can_promote(s, s.mass_order[s.mass_idx]):
        s.mass_idx += 1
    if s.mass_idx >= s.n:
        _majority(s)
        _finish(s)


def promote_options(s: VillageState) -> Options:
    """V-DP-19: PROMOTE per affordable step, then DONE."""
    p = s.mass_order[s.mass_idx]
    m = s.mem[p]
    grain = s.grain[p]
    acts: list[Action] = []
    codes: list[Code] = []
    for w in range(3):
        if grain >= vd.WINDOW_STEP_GRAIN[w]:
            base = (vd.CHURCH0 + w) * 4
            for g in range(4):
                if m[base + g]:
                    acts.append(promote_act(w, g))
                    codes.append((do_promote, w, g))
    acts.append(DONE)
    codes.append((do_promote_done,))
    return acts, codes


def do_promote(s: VillageState, code: Code) -> None:
    """V-MAS-5: one window left for the grain shown between the windows (D-CHU)."""
    w, g = code[1], code[2]
    p = s.mass_order[s.mass_idx]
    cost = vd.WINDOW_STEP_GRAIN[w]
    s.grain[p] -= cost
    s.sup_grain += cost
    m = s.mem[p]
    m[(vd.CHURCH0 + w) * 4 + g] -= 1
    m[(vd.CHURCH0 + w + 1) * 4 + g] += 1
    if not _can_promote(s, p):
        s.mass_idx += 1
    _next_promote(s)


def do_promote_done(s: VillageState, code: Code) -> None:
    """End this player's promotion visit."""
    s.mass_idx += 1
    _next_promote(s)


def church_key(s: VillageState, p: int) -> tuple[int, int]:
    """(members in the church, leftmost window occupied) for the majority (V-MAS-6)."""
    row = s.mem[p][_CHURCH_CELLS]
    # Highest occupied window: the cells up to the last nonzero one, in whole windows.
    return sum(row), (len(bytes(row).rstrip(b"\0")) + 3) // 4


_CHURCH_CELLS = slice(vd.CHURCH0 * 4, (vd.CHURCH0 + 4) * 4)


def _majority(s: VillageState) -> None:
    """V-MAS-6: most church members; tie -> leftmost member; still tied -> all score."""
    keys = [church_key(s, p) for p in range(s.n)]
    best = max(keys)
    if best[0] == 0:
        s.majority = []
        return
    s.majority = [p for p in range(s.n) if keys[p] == best]
    for p in s.majority:
        s.prestige[p] += vd.MAJORITY_POINTS


def _finish(s: VillageState) -> None:
    if s.final_mass:
        s.phase = OVER  # V-END-7: final scoring is computed by result()
    else:
        from games.village.flow import start_round

        start_round(s)


# --- final scoring (V-SCO) --------------------------------------------------------------


def score_detail(s: VillageState, p: int) -> dict[str, int]:
    """The end-of-game breakdown for player p (V-SCO-1 ... V-SCO-8)."""
    m = s.mem[p]
    travel = vd.TRAVEL_SCORE[min(bin(s.markers[p]).count("1"), len(vd.TRAVEL_SCORE) - 1)]
    council = sum(
        vd.COUNCIL_POINTS[st] * sum(m[(vd.COUNCIL0 + st) * 4 : (vd.COUNCIL0 + st) * 4 + 4])
        for st in range(4)
    )
    church = sum(
        vd.WINDOW_POINTS[w] * sum(m[(vd.CHURCH0 + w) * 4 : (vd.CHURCH0 + w) * 4 + 4])
        for w in range(4)
    )
    chron_members = sum(m[vd.CHRONICLE * 4 : vd.CHRONICLE * 4 + 4])
    chronicle = vd.CHRONICLE_SCORE[min(chron_members, len(vd.CHRONICLE_SCORE) - 1)]
    customers = sum(vd.CUSTOMERS[t][3] for t in s.tiles[p])
    coins = s.coins[p]
    during = s.prestige[p]
    living = sum(m[: (vd.BAG + 1) * 4])  # farmyard, board and black bag (V-SCO-8)
    total = during + travel + council + church + chronicle + customers + coins
    return {
        "during_play": during,
        "travel": travel,
        "council": council,
        "church": church,
        "chronicle": chronicle,
        "customers": customers,
        "coins": coins,
        "total": total,
        "customer_tiles": len(s.tiles[p]),
        "living_members": living,
    }


def final_result(s: VillageState) -> Result:
    """V-SCO-8: prestige, then customers served, then living members; then shared (G-41)."""
    details = [score_detail(s, p) for p in range(s.n)]
    keys = [(d["total"], d["customer_tiles"], d["living_members"]) for d in details]
    return Result(
        scores=tuple(d["total"] for d in details),
        ranks=competition_ranks(keys),
        detail=tuple(details),
    )
