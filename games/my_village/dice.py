"""Step I, the banner value (C.4): taking two dice (MV-DP-1) and the value (MV-DP-2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.core import Action
from games.my_village import black, white
from games.my_village.actions import SetValue, TakeDice
from games.my_village.data import BLACK_DIE_TIME
from games.my_village.rounds import BLACK, Phase, pay_time

if TYPE_CHECKING:
    from games.my_village.state import MyVillageState


#: Every possible TakeDice value, built once: ``_TAKE[x][y]`` for dice codes x <= y.
_TAKE = [
    [TakeDice(x % BLACK + 1, x >= BLACK, y % BLACK + 1, y >= BLACK) for y in range(2 * BLACK)]
    for x in range(2 * BLACK)
]
_VALUES: dict[tuple[int, int, int], SetValue] = {}
#: MV-DP-1 options by pool (the options depend on the pool only); a pure memo.
_DICE_CACHE: dict[tuple[int, ...], list[Action]] = {}
_DICE_CACHE_SIZE = 50_000


def dice_options(st: MyVillageState) -> list[Action]:
    """MV-DP-1: each distinct unordered pair of pool dice; a die is only its colour and
    value (MV-GAP-1), so equal dice give one option, and a pair of equal dice needs two
    of them. The pool is kept sorted, which makes the order canonical."""
    key = tuple(st.pool)
    cached = _DICE_CACHE.get(key)
    if cached is not None:
        return cached[:]
    kinds: list[int] = []
    doubles: set[int] = set()
    last = -1
    for die in key:
        if die == last:
            doubles.add(die)
        else:
            kinds.append(die)
            last = die
    out: list[Action] = []
    for i, first in enumerate(kinds):
        row = _TAKE[first]
        if first in doubles:
            out.append(row[first])
        out += [row[second] for second in kinds[i + 1 :]]
    if len(_DICE_CACHE) >= _DICE_CACHE_SIZE:
        _DICE_CACHE.clear()  # bounded memory in long-running workers
    _DICE_CACHE[key] = out
    return out[:]


def _set_value(value: int, markers: int, coins: int) -> SetValue:
    key = (value, markers, coins)
    action = _VALUES.get(key)
    if action is None:
        action = _VALUES[key] = SetValue(value, markers, coins)
    return action


def take_dice(st: MyVillageState, action: TakeDice) -> None:
    """MV-DICE-1/-2: both dice leave the pool; each black die costs 2 time at once."""
    pool = st.pool
    pool.remove(action.a - 1 + (BLACK if action.a_black else 0))
    pool.remove(action.b - 1 + (BLACK if action.b_black else 0))
    st.dice_taken += 2
    blacks = int(action.a_black) + int(action.b_black)
    if blacks:
        pay_time(st, BLACK_DIE_TIME * blacks)
    st.dice = (action.a, action.b)
    st.phase = Phase.VALUE


def _distance(x: int) -> int:
    """d(x) of MV-DP-2: 0 inside 1..6, otherwise the distance to the nearer end."""
    if x < 1:
        return 1 - x
    if x > 6:
        return x - 6
    return 0


def usable_markers(st: MyVillageState) -> int:
    """Meeting point markers placed in an earlier round (MV-DICE-4, R-25)."""
    rnd = st.round_no
    return sum(1 for r in st.villages[st.player].mp_markers if r < rnd)


def plans(a: int, b: int, target: int, markers: int) -> list[tuple[int, int]]:
    """The non-dominated (markers, coins) plans reaching ``target`` from dice a and b
    (MV-DP-2, MV-DICE-3/-4, MV-GAP-2)."""
    found = [(0, abs(target - a - b))]
    if markers >= 1:
        found.append((1, min(_distance(target - a), _distance(target - b))))
    if markers >= 2:
        found.append((2, 0))
    return [
        plan
        for plan in found
        if not any(o != plan and o[0] <= plan[0] and o[1] <= plan[1] for o in found)
    ]


def value_options(st: MyVillageState) -> list[Action]:
    """MV-DP-2: (value, markers, coins) triples, by value then markers. The unmodified sum
    is always offered; a modified value only if some banner printed with it could then be
    activated (MV-GAP-3)."""
    a, b = st.dice
    s = a + b
    v = st.villages[st.player]
    k = usable_markers(st)
    out: list[Action] = []
    coins = v.coins
    for target in range(2, 13):
        if target == s:
            out.append(_set_value(s, 0, 0))
            continue
        if not k:  # the common case: coins only
            c = abs(target - s)
            if c <= coins and _banner_after(st, target, 0, c):
                out.append(_set_value(target, 0, c))
            continue
        for m, c in plans(a, b, target, k):
            if c <= coins and _banner_after(st, target, m, c):
                out.append(_set_value(target, m, c))
    return out


def _banner_after(st: MyVillageState, target: int, markers: int, coins: int) -> bool:
    """Could a black banner, or a white banner printed with ``target``, be activated after
    paying ``coins`` and returning ``markers`` (MV-GAP-3)?"""
    v = st.villages[st.player]
    saved_coins = v.coins
    saved_markers = v.mp_markers
    v.coins -= coins
    v.mp_markers = saved_markers[markers:]
    try:
        return black.any_black(st, target) or white.any_printed(st, target)
    finally:
        v.coins = saved_coins
        v.mp_markers = saved_markers


def set_value(st: MyVillageState, action: SetValue) -> None:
    """MV-DICE-3/-4/-5/-6: pay the coins, return the oldest usable markers; the value is
    then fixed for step II."""
    v = st.villages[st.player]
    v.coins -= action.coins
    if action.markers:
        del v.mp_markers[: action.markers]
    st.value = action.value
    st.phase = Phase.MODE
