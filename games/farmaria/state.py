"""The Farmaria state (FM-STATE-1): plain lists and ints, a hand-written clone, the API."""

from __future__ import annotations

import random
from typing import Any

from games.chance import Chance
from games.core import JSON, Action, IllegalAction, Result, State
from games.farmaria import data as d
from games.farmaria.farm import Field

# Decision kinds (Part E). Values index DECISION_NAMES.
(
    CHARACTER,
    TASOS_TELL,
    SELECT,
    EVENT_DEFENCE,
    ACTION_3A,
    PLACE,
    MOVE_TO,
    RELOCATE,
    THEFT_TARGET,
    THEFT_DEFENCE,
    DIPLOMACY_TARGET,
    BABIS_KEEP,
    AUCTION_LOT,
    AUCTION_BID,
    OPPORTUNITY_REJECT,
    DISCARD_OPPORTUNITY,
    DISCARD_LIMIT,
    DISCARD_MINIMUM,
    DISCARD_MORE,
    GIANNOS_PICK,
    ALEXANDROS_REJECT,
    PAY_4A,
    REPAY_4A,
    GAME_OVER,
) = range(24)

DECISION_NAMES = (
    "character",
    "tasos_tell",
    "select",
    "event_defence",
    "action_3a",
    "place",
    "move_to",
    "relocate",
    "theft_target",
    "theft_defence",
    "diplomacy_target",
    "babis_keep",
    "auction_lot",
    "auction_bid",
    "opportunity_reject",
    "discard_opportunity",
    "discard_limit",
    "discard_minimum",
    "discard_more",
    "giannos_pick",
    "alexandros_reject",
    "pay_4a",
    "repay_4a",
    "game_over",
)

_LIST_ATTRS = (
    "char", "wallet", "debt", "defam", "jailed_now", "jailed_next", "evaded_last",
    "evaded_amt_last", "evaded_amt_now", "audit_pen", "gift_pending", "vp", "played",
    "dip_received", "stole", "theft_targeted", "dip_attack", "ioanna_used", "nikos_used",
    "phase3_done", "ye_current", "removed", "order", "reloc", "drawn", "passed", "deck",
    "ye_discard", "chars_free",
)  # fmt: skip
_SCALAR_ATTRS = (
    "n", "k", "cond", "year_limit", "marker", "deck_shuffles", "ye_shuffles", "effective",
    "year", "end_triggered", "over", "dec", "actor", "idx", "sel_left", "active",
    "discarded_any", "pending", "pending_owner", "move_card", "move_from", "thief", "victim",
    "theft_card", "theft_kind", "auctioneer", "lot", "lot_hand", "high", "high_bidder",
    "bidder", "drawn_owner", "babis_target", "babis_pools", "pay_stage", "bridge",
    "bridge_interest", "ye_known", "tell_variant", "told", "lot_by_card", "reloc_to",
    "reloc_field",
)  # fmt: skip


_RULES: list[Any] = []


def _rules() -> Any:
    """The rules module (imported late: it imports this one)."""
    if not _RULES:
        import games.farmaria.rules as rules

        _RULES.append(rules)
    return _RULES[0]


class FarmariaState(State):
    """One position of a Farmaria game. See FM-STATE-1 for the zones."""

    __slots__ = (
        *_LIST_ATTRS,
        *_SCALAR_ATTRS,
        "chance",
        "cm",
        "bundles",
        "ye_piles",
        "farm",
        "sel",
        "fd",
        "opp",
        "moved",
        "cm_put",
        "known_all",
        "known_by",
        "_legal",
        "_legal_set",
        "_result",
    )

    def __init__(self, n: int, seed: int) -> None:
        self.n = n
        self.chance = Chance(seed)
        self.k = n + 2  # FM-CM-1
        self.cond = d.END_CONDITIONS[n]
        self.year_limit = self.cond.years
        self.cm: list[list[int]] = [[] for _ in range(self.k)]
        self.marker = 0
        self.bundles: dict[int, Field] = {}
        self.removed: list[int] = []
        self.deck: list[int] = []
        self.deck_shuffles = 0
        self.ye_piles: list[list[int]] = [[], []]
        self.ye_discard: list[int] = []
        self.ye_current: list[int] = []
        self.ye_shuffles = 0
        self.effective = 0
        self.year = 0
        self.order: list[int] = list(range(n))
        self.end_triggered = False
        self.over = False
        self.dec = SELECT
        self.actor = 0
        self.char = [0] * n
        self.chars_free: list[int] = []
        self.wallet = [d.STARTING_MONEY] * n
        self.debt = [0] * n
        self.defam = [0] * n
        self.jailed_now = [False] * n
        self.jailed_next = [False] * n
        self.evaded_last = [False] * n
        self.evaded_amt_last = [0] * n
        self.evaded_amt_now = [0] * n
        self.audit_pen = [0] * n
        self.gift_pending = [False] * n
        self.vp = [0] * n
        self.played = [0] * n
        self.dip_received = [False] * n
        self.stole = [False] * n
        self.theft_targeted = [False] * n
        self.dip_attack = [False] * n
        self.ioanna_used = [False] * n
        self.nikos_used = [False] * n
        self.phase3_done = [False] * n
        self.farm: list[list[Field]] = [[] for _ in range(n)]
        self.sel: list[list[int]] = [[] for _ in range(n)]
        self.fd: list[list[int]] = [[] for _ in range(n)]
        self.opp: list[list[int]] = [[] for _ in range(n)]
        self.moved: set[int] = set()
        self.cm_put: dict[int, int] = {}
        self.known_all: set[int] = set()
        self.known_by: list[set[int]] = [set() for _ in range(n)]
        self.ye_known = 0
        self.tell_variant = False
        self.told = -1
        # flow context
        self.idx = 0
        self.sel_left = 0
        self.active = 0
        self.discarded_any = False
        self.pending = -1
        self.pending_owner = -1
        self.move_card = -1
        self.move_from = (0, -1)
        self.reloc: list[int] = []
        self.reloc_to = ACTION_3A  # the decision kind a demolition's relocations return to
        self.reloc_field = -1  # the field of the demolished stable (FM-AMB-46: not a target)
        self.thief = -1
        self.victim = -1
        self.theft_card = -1
        self.theft_kind = -1
        self.auctioneer = -1
        self.lot = -1
        self.lot_hand = False
        self.lot_by_card = False
        self.high = 0
        self.high_bidder = -1
        self.bidder = -1
        self.passed: list[bool] = [False] * n
        self.drawn: list[int] = []
        self.drawn_owner = -1
        self.babis_target = -1
        self.babis_pools: tuple[int, ...] = ()
        self.pay_stage = 0
        self.bridge = 0  # this year's bridge loan with its interest (FM-LOAN-1)
        self.bridge_interest = 0  # the interest part of it
        self._legal: list[Action] | None = None
        self._legal_set: set[Action] | None = None
        self._result: Result | None = None

    # -- the engine API -------------------------------------------------------------------

    @property
    def num_players(self) -> int:
        return self.n

    def to_move(self) -> int | None:
        return None if self.over else self.actor

    def legal_actions(self) -> list[Action]:
        if self.over:
            return []
        if self._legal is None:
            self._legal = _rules().legal(self)
            self._legal_set = None
        return list(self._legal)

    def apply(self, action: Action) -> None:
        if self.over:
            raise IllegalAction(f"{action} is not legal: the game is over")
        if self._legal is None:
            self.legal_actions()
        legal = self._legal or []
        for a in legal:  # fast path: an object from legal_actions()
            if a is action:
                break
        else:
            if self._legal_set is None:
                self._legal_set = set(legal)
            if action not in self._legal_set:
                raise IllegalAction(f"{action} is not legal for player {self.actor} now")
        (_RULES[0] if _RULES else _rules()).apply_and_settle(self, action)

    def is_over(self) -> bool:
        return self.over

    def result(self) -> Result:
        if not self.over:
            raise ValueError("the game is not over")
        if self._result is None:
            from games.farmaria import accounting

            self._result = accounting.final_result(self)
        return self._result

    def observation(self, player: int) -> dict[str, JSON]:
        from games.farmaria import observe

        return observe.observation(self, player)

    def public_state(self) -> dict[str, JSON]:
        from games.farmaria import observe

        return observe.observation(self, -1)

    def determinize(self, player: int, rng: random.Random) -> State:
        from games.farmaria import determinize

        return determinize.determinize(self, player, rng)

    def conserved_totals(self) -> dict[str, int]:
        from games.farmaria import observe

        return observe.conserved_totals(self)

    def clone(self) -> FarmariaState:
        s = FarmariaState.__new__(FarmariaState)
        for a in _SCALAR_ATTRS:
            setattr(s, a, getattr(self, a))
        for a in _LIST_ATTRS:
            setattr(s, a, getattr(self, a)[:])
        s.chance = self.chance.clone()
        s.cm = [x[:] for x in self.cm]
        s.bundles = {c: f.clone() for c, f in self.bundles.items()}
        s.ye_piles = [self.ye_piles[0][:], self.ye_piles[1][:]]
        s.farm = [[f.clone() for f in fs] for fs in self.farm]
        s.sel = [x[:] for x in self.sel]
        s.fd = [x[:] for x in self.fd]
        s.opp = [x[:] for x in self.opp]
        s.moved = set(self.moved)
        s.cm_put = dict(self.cm_put)
        s.known_all = set(self.known_all)
        s.known_by = [set(x) for x in self.known_by]
        s._legal = self._legal
        s._legal_set = self._legal_set
        s._result = self._result
        return s

    def invalidate(self) -> None:
        """Drop the cached legal actions (after any change)."""
        self._legal = None
        self._legal_set = None

    def debug(self) -> dict[str, Any]:
        """Internal view for tests (never for bots)."""
        return {"dec": DECISION_NAMES[self.dec], "actor": self.actor, "year": self.year}
