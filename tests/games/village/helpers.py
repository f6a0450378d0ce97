"""Helpers to build and steer Village positions in tests.

Tests start from a real game (``new``), then move pieces between the supply and the
players/board with the transfer helpers below (so conservation still holds), put the
position at a chosen decision with ``turn_of``/``at_action``, and act through the public
API with ``play`` (by the action's ``str()``), which fails listing the legal options when
the wanted one is missing.
"""

from __future__ import annotations

import games
from games.village import data as vd
from games.village.state import ACTION, TURN, VillageState

COLOUR = {name: i for i, name in enumerate(vd.COLOUR_NAMES)}
GOOD = {name: i for i, name in enumerate(vd.GOOD_NAMES)}
SPACE = {name: i for i, name in enumerate(vd.SPACE_NAMES)}
LOC = {name: i for i, name in enumerate(vd.LOC_NAMES)}


def new(n: int = 4, seed: int = 0) -> VillageState:
    """A fresh game (round 1 seeded, player 0 to move)."""
    state = games.get("village").new_game(num_players=n, seed=seed)
    assert isinstance(state, VillageState)
    return state


def refresh(s: VillageState) -> None:
    """Recompute the options after fields were set by hand (single options auto-apply)."""
    s._acts = None
    s._take = None  # the board may have been edited by hand
    s.settle()


def clear_board(s: VillageState) -> None:
    """Move every cube on the action spaces back to the supply."""
    for row in s.spaces:
        for c in range(5):
            s.sup_cubes[c] += row[c]
            row[c] = 0
    s.board_cubes = 0


def put(s: VillageState, space: str, colour: str, k: int = 1) -> None:
    """Supply -> action space."""
    c = COLOUR[colour]
    assert s.sup_cubes[c] >= k
    s.sup_cubes[c] -= k
    s.spaces[SPACE[space]][c] += k
    s.board_cubes += k


def give(
    s: VillageState,
    p: int,
    *,
    cubes: dict[str, int] | None = None,
    coins: int = 0,
    grain: int = 0,
    goods: dict[str, int] | None = None,
) -> None:
    """Supply -> player p."""
    for name, k in (cubes or {}).items():
        c = COLOUR[name]
        s.sup_cubes[c] -= k
        s.cubes[p][c] += k
    s.sup_coins -= coins
    s.coins[p] += coins
    s.sup_grain -= grain
    s.grain[p] += grain
    for name, k in (goods or {}).items():
        g = GOOD[name]
        s.sup_goods[g] -= k
        s.goods[p][g] += k


def strip(s: VillageState, p: int) -> None:
    """Player p returns every cube, coin, grain and good to the supply."""
    for c in range(4):
        s.sup_cubes[c] += s.cubes[p][c]
        s.cubes[p][c] = 0
    s.sup_coins += s.coins[p]
    s.coins[p] = 0
    s.sup_grain += s.grain[p]
    s.grain[p] = 0
    for g in range(5):
        s.sup_goods[g] += s.goods[p][g]
        s.goods[p][g] = 0


def move(s: VillageState, p: int, src: str, dst: str, gen: int, k: int = 1) -> None:
    """Move k of p's generation-``gen`` figures from location ``src`` to ``dst``."""
    m = s.mem[p]
    i, j = LOC[src] * 4 + gen - 1, LOC[dst] * 4 + gen - 1
    assert m[i] >= k, f"player {p} has {m[i]} gen{gen} at {src}"
    m[i] -= k
    m[j] += k


def count(s: VillageState, p: int, loc: str, gen: int | None = None) -> int:
    """p's figures at ``loc`` (of one generation, or all)."""
    base = LOC[loc] * 4
    row = s.mem[p][base : base + 4]
    return sum(row) if gen is None else row[gen - 1]


def turn_of(s: VillageState, p: int) -> None:
    """Make it p's normal turn (board as it is)."""
    s.active = p
    s.phase = TURN
    refresh(s)


def at_action(s: VillageState, p: int, space: str) -> None:
    """Open the action point of ``space`` for p, as if he had just taken a cube there."""
    s.active = p
    s.act_space = SPACE[space]
    s.phase = ACTION
    refresh(s)


def legal(s: VillageState) -> list[str]:
    """The options as strings."""
    return [str(a) for a in s.legal_actions()]


def play(s: VillageState, text: str) -> None:
    """Apply the legal action whose ``str()`` is ``text``."""
    for a in s.legal_actions():
        if str(a) == text:
            s.apply(a)
            return
    raise AssertionError(f"{text!r} not legal; options: {legal(s)}")


def kind(s: VillageState) -> str:
    """The open decision's kind."""
    decision = s.public_state()["decision"]
    assert isinstance(decision, dict)
    return str(decision["kind"])
