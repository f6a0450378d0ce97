"""The council chamber (V-CNC; V-DP-11, V-DP-12) and the cubes/good of choice that its
privileges and the towns give (V-DP-13, V-DP-14)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from games.core import Action
from games.village import actions as va
from games.village import data as vd
from games.village.flow import end_action
from games.village.state import CUBES, GOODS, PRIV
from games.village.turn import DECLINE, DECLINE_CODE, farmyard_key

if TYPE_CHECKING:
    from games.village.state import Code, VillageState

Options = tuple[Sequence[Action], Sequence["Code"]]
Block = tuple[tuple[Action, ...], tuple["Code", ...]]
# Bound on the caches whose keys include member positions (a long-running process
# meets ever more of them; a few thousand cover nearly all lookups).
_BLOCKS_KEPT = 8192

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


@cache
def cubes_act(colours: tuple[int, ...]) -> va.Cubes:
    """The interned CUBES value for colour indices."""
    return va.Cubes(tuple(va.COLOURS[c] for c in colours))


TAKE_GOOD_ACTS = tuple(va.TakeGood(g) for g in va.GOODS)


USE_ACTS = tuple(va.Use(k) for k in range(5))
PRIVILEGE_ACTS = tuple(va.Privilege(k) for k in range(5))
NO_PRIVILEGE = va.NoPrivilege()


def effective_privileges(s: VillageState, p: int) -> int:
    """Bit k set: privilege k (1-4) would have an effect now (G-35)."""
    sup = s.sup_cubes
    return (
        (s.nsp < 0) << 1  # 1: the next-starting-player marker is still in the chamber
        | bool(sup[0] or sup[1] or sup[2] or sup[3]) << 2  # 2: an influence cube to take
        | any(s.sup_goods) << 3  # 3: a good to take
        | (s.coins[p] >= vd.STAGE4_COIN) << 4  # 4: a coin to pay
    )


_COUNCIL_CELLS = slice(vd.COUNCIL0 * 4, (vd.COUNCIL0 + 4) * 4)


def council_options(s: VillageState) -> Options:
    """V-DP-11: ENTER, ADVANCE, USE, DECLINE (cached by small keys)."""
    p = s.active
    coins = s.coins[p]
    lo = vd.COUNCIL_GREEN - s.cubes[p][vd.GREEN]
    return _council_block(
        farmyard_key(s, p),
        bytes(s.mem[p][_COUNCIL_CELLS]).translate(vd.OCCUPIED),
        s.goods[p][vd.SCROLL] >= vd.COUNCIL_SCROLL,
        lo if lo > 0 else 0,
        coins if coins < vd.COUNCIL_GREEN else vd.COUNCIL_GREEN,
        effective_privileges(s, p),
    )


@lru_cache(maxsize=_BLOCKS_KEPT)
def _council_block(
    farmyard: bytes, occupied: bytes, scroll: bool, lo: int, hi: int, effective: int
) -> Block:
    # Payment forms: 1 scroll, then 2 green with each affordable split (V-DP-21).
    pays = [(PAY_SCROLL, 0)] if scroll else []
    pays.extend((PAY_GREEN, k) for k in range(lo, hi + 1))
    acts: list[Action] = []
    codes: list[Code] = []
    for g in range(4):  # ENTER
        if farmyard[g]:
            for pay, k in pays:
                acts.append(enter_act(g, pay, k))
                codes.append((do_enter, g, pay, k))
    top = 0
    for stage in range(1, 5):
        for g in range(4):
            if occupied[(stage - 1) * 4 + g]:
                top = stage
                if stage < 4:  # ADVANCE
                    for pay, k in pays:
                        acts.append(advance_act(stage, g, pay, k))
                        codes.append((do_advance, stage, g, pay, k))
    for k in range(1, top + 1):  # USE
        if effective >> k & 1:
            acts.append(USE_ACTS[k])
            codes.append((do_privilege, k))
    acts.append(DECLINE)
    codes.append(DECLINE_CODE)
    return tuple(acts), tuple(codes)


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
    return _privilege_block(s.priv_stage, effective_privileges(s, s.active))


@cache
def _privilege_block(stage: int, effective: int) -> Block:
    acts: list[Action] = []
    codes: list[Code] = []
    for k in range(1, stage + 1):
        if effective >> k & 1:
            acts.append(PRIVILEGE_ACTS[k])
            codes.append((do_privilege, k))
    acts.append(NO_PRIVILEGE)
    codes.append(DECLINE_CODE)
    return tuple(acts), tuple(codes)


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
