"""The Village position: plain ints and lists, a hand-written clone, the engine API.

Rules live in the sibling modules (``turn``, ``works``, ``market``, ``flow``, ``mass``);
each option of the current decision is stored as an (action, code) pair, where ``code`` is
a tuple whose first item is the function that carries the option out. A decision with a
single option is applied at once (V-DP-1, G-25).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from games.chance import Chance, derive_seed
from games.core import JSON, Action, IllegalAction, Result, State
from games.village import data as vd

# Phases: which decision point is open (V-DP-20).
TURN, FREE, WELL_PAY, ACTION, PRIV, CUBES, GOODS, MARKET, DEATH, BUYOUT, PROMOTE, OVER = range(12)
PHASE_NAMES = (
    "turn",
    "free_action",
    "well_payment",
    "action",
    "privilege",
    "cubes_of_choice",
    "good_of_choice",
    "market",
    "death",
    "buy_out",
    "promotion",
    "over",
)

Code = tuple[Any, ...]
Handler = Callable[["VillageState", Code], None]


class VillageState(State):
    """One position of a Village game (see module docstring)."""

    __slots__ = (
        "_acts",
        "_codes",
        "_stall_plan",
        "_take",
        "act_space",
        "active",
        "bag",
        "board_cubes",
        "bought",
        "chance",
        "chron_cat",
        "chron_free",
        "coins",
        "cubes",
        "death_in_market",
        "death_player",
        "due",
        "final_mass",
        "goods",
        "grain",
        "graves_free",
        "last_built",
        "last_queue",
        "majority",
        "markers",
        "mass_idx",
        "mass_no",
        "mass_order",
        "mem",
        "mk_cur",
        "mk_first",
        "mk_passed",
        "mk_sold",
        "mk_starter",
        "n",
        "nsp",
        "phase",
        "pile",
        "prestige",
        "priv_stage",
        "queue",
        "round_no",
        "spaces",
        "stalls",
        "start",
        "sup_coins",
        "sup_cubes",
        "sup_goods",
        "sup_grain",
        "tiles",
        "time",
        "trigger_player",
        "triggered",
    )

    def __init__(self, n: int, seed: int) -> None:
        self.n = n
        self.chance = Chance(seed)
        self.round_no = 0
        self.mass_no = 0
        self.start = 0  # V-SET-11: seat 0 starts
        self.nsp = -1  # -1: next-starting-player marker in the chamber (V-SET-7)
        self.active = 0
        self.time = [0] * n  # V-SET-3: cumulative time counter
        self.due = [0] * n  # deaths due, not yet resolved
        self.cubes = [[0, 0, 0, 0] for _ in range(n)]
        self.coins = [vd.STARTING_COINS] * n  # V-SET-4
        self.grain = [0] * n
        self.goods = [[0] * 5 for _ in range(n)]
        self.prestige = [0] * n
        self.tiles: list[list[int]] = [[] for _ in range(n)]
        self.markers = [0] * n  # bit t set: own marker in town t
        # mem[p][loc * 4 + generation - 1] = number of p's figures there (V-SET-2)
        self.mem: list[list[int]] = []
        for _ in range(n):
            m = [0] * (vd.NUM_LOCS * 4)
            m[vd.FARMYARD * 4] = vd.GENERATIONS[0]
            for g in (1, 2, 3):
                m[vd.UNBORN * 4 + g] = vd.GENERATIONS[g]
            self.mem.append(m)
        self.chron_cat = [[0] * 5 for _ in range(n)]
        self.spaces = [[0] * 5 for _ in range(7)]
        self.board_cubes = 0
        self.bag = [0] * 5  # green bag starts empty (V-SET-8)
        self.sup_cubes = [vd.CUBES_PER_COLOUR] * 4 + [vd.PLAGUE_CUBES]
        self.sup_coins = vd.COINS - vd.STARTING_COINS * n
        self.sup_grain = vd.GRAIN_SACKS
        self.sup_goods = [vd.GOODS_PER_TYPE] * 5
        self.stalls = [-1] * vd.STALLS  # tile id, -1 empty
        self.queue = [-1] * vd.QUEUE
        self.pile: list[int] = []
        # V-SET-6: blocked spaces simply are not free.
        self.chron_free = [vd.CHRONICLE_PER_CATEGORY[n]] * 5
        self.graves_free = vd.GRAVES[n]
        self.phase = TURN
        self.act_space = 0
        self.priv_stage = 0
        self.mk_starter = 0
        self.mk_cur = 0
        self.mk_passed = [False] * n
        self.mk_first = False
        self.mk_sold = False
        self.death_player = 0
        self.death_in_market = False
        self.triggered = False
        self.trigger_player = -1
        self.last_queue: list[int] = []
        self.last_built = False
        self.final_mass = False
        self.mass_order: list[int] = []
        self.mass_idx = 0
        self.bought = 0
        self.majority: list[int] = []  # who won the last mass majority (public record)
        # Options of the open decision; builders may return shared (cached) tuples, so
        # these are never mutated, only replaced.
        self._acts: Sequence[Action] | None = None
        self._codes: Sequence[Code] = ()
        # TAKE options of the current board: (keys, actions, codes), or None to rebuild;
        # immutable like the options, so clones share them.
        self._take: tuple[tuple[int, ...], tuple[Action, ...], tuple[Code, ...]] | None = None
        # The market day's stalls to check (market.stall_plan), or None to recompute.
        self._stall_plan: tuple[tuple[int, int], ...] | None = None

    # --- engine API ---------------------------------------------------------------------

    @property
    def num_players(self) -> int:
        """Number of seats at the table."""
        return self.n

    def to_move(self) -> int | None:
        """The player asked now: the active player, a market participant, a player with a
        death due or the mass visitor; None once the game is over."""
        ph = self.phase
        if ph <= GOODS:
            return self.active
        if ph == MARKET:
            return self.mk_cur
        if ph == DEATH:
            return self.death_player
        if ph == OVER:
            return None
        return self.mass_order[self.mass_idx]

    def legal_actions(self) -> list[Action]:
        """The options of the open decision point, in canonical order (V-DP-21)."""
        acts = self._acts
        if acts is None:
            self.settle()
            acts = self._acts
            assert acts is not None
        return list(acts)

    def apply(self, action: Action) -> None:
        """Carry out one legal option; raise IllegalAction naming it otherwise."""
        acts = self._acts
        if acts is None:
            self.settle()
            acts = self._acts
            assert acts is not None
        code = None
        if self.phase == TURN:
            # About half of all decisions are turns, with the longest option lists: an
            # interned TAKE names its option itself (legal while its cube is on the
            # board, V-DP-4), sparing the scan below.
            code = _TAKE_CODE_BY_ID.get(id(action))
            if code is not None and not self.spaces[code[1]][code[2]]:
                code = None
        if code is None:
            # The action is normally one of the listed objects: find it by identity (the
            # dataclasses' __eq__, which list.index would call, is far slower).
            i = 0
            for a in acts:
                if a is action:
                    break
                i += 1
            else:
                try:
                    i = acts.index(action)  # an equal value built by the caller
                except ValueError:
                    if self.phase == OVER:
                        raise IllegalAction(f"{action} is not legal: the game is over") from None
                    raise IllegalAction(
                        f"{action} is not legal for player {self.to_move()} now"
                    ) from None
            code = self._codes[i]
        self._acts = None
        code[0](self, code)
        # settle(), inlined: a Python call costs about as much as this whole loop.
        builders = _BUILDERS
        while True:
            ph = self.phase
            if ph == ACTION:
                acts, codes = _ACTION_BUILDERS[self.act_space](self)
            else:
                acts, codes = builders[ph](self)  # OVER too: no option
            if len(acts) != 1:
                self._acts = acts
                self._codes = codes
                return
            code = codes[0]
            code[0](self, code)

    def settle(self) -> None:
        """Compute the open decision's options, applying single-option decisions at once."""
        builders = _BUILDERS
        while True:
            ph = self.phase
            if ph == ACTION:
                acts, codes = _ACTION_BUILDERS[self.act_space](self)
            else:
                acts, codes = builders[ph](self)  # OVER too: no option
            if len(acts) != 1:
                self._acts = acts
                self._codes = codes
                return
            code = codes[0]
            code[0](self, code)

    def is_over(self) -> bool:
        """True once the final mass is over (scoring is computed by result())."""
        return self.phase == OVER

    def result(self) -> Result:
        """Final scores and ranks after the tie-breakers (V-SCO-8)."""
        from games.village.mass import final_result

        if self.phase != OVER:
            raise ValueError("the game is not over")
        return final_result(self)

    def observation(self, player: int) -> dict[str, JSON]:
        """What ``player`` sees (see observe.py: everything but the pile order)."""
        from games.village.observe import observation

        return observation(self, player)

    def public_state(self) -> dict[str, JSON]:
        """The spectator view."""
        from games.village.observe import public_state

        return public_state(self)

    def conserved_totals(self) -> dict[str, int]:
        """Totals that never change (see observe.conserved_totals)."""
        from games.village.observe import conserved_totals

        return conserved_totals(self)

    def clone(self) -> VillageState:
        """An independent copy (lists copied by hand, chance cloned)."""
        c = VillageState.__new__(VillageState)
        c.n = self.n
        c.chance = self.chance.clone()
        c.round_no = self.round_no
        c.mass_no = self.mass_no
        c.start = self.start
        c.nsp = self.nsp
        c.active = self.active
        c.time = self.time[:]
        c.due = self.due[:]
        c.cubes = [x[:] for x in self.cubes]
        c.coins = self.coins[:]
        c.grain = self.grain[:]
        c.goods = [x[:] for x in self.goods]
        c.prestige = self.prestige[:]
        c.tiles = [x[:] for x in self.tiles]
        c.markers = self.markers[:]
        c.mem = [x[:] for x in self.mem]
        c.chron_cat = [x[:] for x in self.chron_cat]
        c.spaces = [x[:] for x in self.spaces]
        c.board_cubes = self.board_cubes
        c.bag = self.bag[:]
        c.sup_cubes = self.sup_cubes[:]
        c.sup_coins = self.sup_coins
        c.sup_grain = self.sup_grain
        c.sup_goods = self.sup_goods[:]
        c.stalls = self.stalls[:]
        c.queue = self.queue[:]
        c.pile = self.pile[:]
        c.chron_free = self.chron_free[:]
        c.graves_free = self.graves_free
        c.phase = self.phase
        c.act_space = self.act_space
        c.priv_stage = self.priv_stage
        c.mk_starter = self.mk_starter
        c.mk_cur = self.mk_cur
        c.mk_passed = self.mk_passed[:]
        c.mk_first = self.mk_first
        c.mk_sold = self.mk_sold
        c.death_player = self.death_player
        c.death_in_market = self.death_in_market
        c.triggered = self.triggered
        c.trigger_player = self.trigger_player
        c.last_queue = self.last_queue[:]
        c.last_built = self.last_built
        c.final_mass = self.final_mass
        c.mass_order = self.mass_order[:]
        c.mass_idx = self.mass_idx
        c.bought = self.bought
        c.majority = self.majority[:]
        c._acts = self._acts  # options are never mutated (see __init__): sharing is safe
        c._codes = self._codes
        c._take = self._take
        c._stall_plan = self._stall_plan
        return c

    def determinize(self, player: int, rng: random.Random) -> VillageState:
        """Re-draw what nobody at the table can see (G-39): the order of the customer pile;
        every future chance stream is re-seeded from ``rng``. Bags are drawn blind, their
        contents are public, so only their future draws change (through the streams)."""
        c = self.clone()
        rng.shuffle(c.pile)
        c.chance = self.chance.reseeded(rng)
        return c

    # --- helpers used by the rules modules ---------------------------------------------

    def once(self, name: str, index: int) -> random.Random:
        """The generator ``self.chance.stream(name, index)`` would give, for a one-shot use
        (a shuffle, one round's draw); not kept in the Chance, so clones stay cheap."""
        return random.Random(derive_seed(self.chance.seed, name, index))

    def add_time(self, p: int, amount: int) -> int:
        """V-TIME-1/2: move p's marker; returns the number of bridge crossings."""
        t0 = self.time[p]
        t1 = t0 + amount
        self.time[p] = t1
        crossed = t1 // vd.LAP_LENGTH - t0 // vd.LAP_LENGTH
        if crossed:
            self.due[p] += crossed
        return crossed

    def pay_cube(self, p: int, colour: int, cubes: int, coins: int) -> None:
        """Pay ``cubes`` cubes of ``colour`` and ``coins`` coins to the supply (V-PAY-1)."""
        if cubes:
            self.cubes[p][colour] -= cubes
            self.sup_cubes[colour] += cubes
        if coins:
            self.coins[p] -= coins
            self.sup_coins += coins


# Imported last: the rules modules import this one (phases, the state class).
from games.village.options import ACTION_BUILDERS as _ACTION_BUILDERS  # noqa: E402
from games.village.options import BUILDERS as _BUILDERS  # noqa: E402
from games.village.turn import TAKE_CODE_BY_ID as _TAKE_CODE_BY_ID  # noqa: E402
