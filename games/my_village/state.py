"""The My Village game state: the shared table, the villages and the pending decision."""

from __future__ import annotations

import random

from games.chance import Chance
from games.core import Action, IllegalAction, Result, State
from games.my_village import observe, scoring, turn
from games.my_village.data import CRAFT_ONLY_TOP_VISIBLE, PLAYER_COUNTS, CountRules
from games.my_village.player import Village
from games.my_village.rounds import Phase


class MyVillageState(State):
    """One position of a My Village game. Mutable; :meth:`clone` copies it."""

    __slots__ = (
        "_legal",
        "banner",
        "chance",
        "choice_kind",
        "chronicle",
        "church_col",
        "council_col",
        "craft_cols",
        "deck",
        "dice",
        "dice_taken",
        "display",
        "field_stack",
        "first_player",
        "graves",
        "hand_holder",
        "hand_palm",
        "hand_sp",
        "monk_stacks",
        "mp_stack",
        "n",
        "phase",
        "picks",
        "plagues",
        "player",
        "pool",
        "rat",
        "rat_rolls",
        "round_no",
        "rules",
        "travel_stacks",
        "turn_idx",
        "turn_order",
        "unfinished",
        "value",
        "villages",
        "white_count",
        "white_used",
    )

    def __init__(self, n: int, chance: Chance) -> None:
        self.n = n
        self.chance = chance
        self.rules: CountRules = PLAYER_COUNTS[n]
        self.villages: list[Village] = []
        self.round_no = 0
        self.first_player = 0
        self.hand_holder = 0
        self.hand_palm = True
        self.hand_sp = 0
        self.pool: list[int] = []  # dice codes (rounds.BLACK), sorted
        self.dice_taken = 0
        self.turn_order: list[int] = []
        self.turn_idx = 0
        self.church_col: list[str] = []
        self.council_col: list[str] = []
        self.mp_stack = 0
        self.field_stack = 0
        self.monk_stacks: list[list[str]] = []  # top card last
        self.travel_stacks: list[list[str]] = []  # top card last
        self.craft_cols: list[list[str]] = []
        self.deck: list[str] = []  # top card last; hidden
        self.display: list[str] = []
        self.chronicle: list[list[int]] = [[] for _ in range(5)]  # players per profession
        self.graves: list[int] = []  # players, lowest number first (MV-DEATH-2, MV-DEATH-4)
        self.rat = 0
        self.rat_rolls = 0
        self.plagues = 0
        self.phase = Phase.DICE
        self.player = 0
        self.dice: tuple[int, int] = (0, 0)  # values of the two dice taken this turn
        self.value = 0  # the banner value (MV-DICE-5)
        self.banner = ""  # black banner awaiting payment or a card choice
        self.choice_kind = ""  # MV-DP-7: "registry" or "school"
        self.white_used: list[str] = []  # white banners activated this turn (MV-WHT-3)
        self.white_count = 0
        self.picks: list[str] = []  # overseer picks so far (MV-DP-4)
        self.unfinished = False
        self._legal: list[Action] | None = None

    # --- engine API ----------------------------------------------------------------------

    @property
    def num_players(self) -> int:
        return self.n

    def to_move(self) -> int | None:
        return None if self.phase is Phase.OVER else self.player

    def legal_actions(self) -> list[Action]:
        if self._legal is None:
            self._legal = turn.legal(self)
        return list(self._legal)

    def apply(self, action: Action) -> None:
        if self.phase is Phase.OVER:
            raise IllegalAction(f"{action} is not legal: the game is over")
        legal = self._legal
        if legal is None:
            legal = self._legal = turn.legal(self)
        # Identity first: bots hand back the very objects they were offered, and
        # dataclass equality is the slow part of "in".
        for offered in legal:
            if offered is action:
                break
        else:
            if action in legal:
                turn.play(self, action)
                return
            raise IllegalAction(
                f"{action} is not legal for player {self.player} now ({self.phase.value})"
            )
        turn.play(self, action)

    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def result(self) -> Result:
        if self.phase is not Phase.OVER:
            raise ValueError("the game is not over")
        return scoring.result(self)

    def observation(self, player: int) -> dict[str, object]:
        return observe.observation(self, player)

    def public_state(self) -> dict[str, object]:
        return observe.public(self)

    def clone(self) -> MyVillageState:
        twin = MyVillageState.__new__(MyVillageState)
        twin.n = self.n
        twin.chance = self.chance.clone()
        twin.rules = self.rules
        twin.villages = [v.clone() for v in self.villages]
        twin.round_no = self.round_no
        twin.first_player = self.first_player
        twin.hand_holder = self.hand_holder
        twin.hand_palm = self.hand_palm
        twin.hand_sp = self.hand_sp
        twin.pool = self.pool[:]
        twin.dice_taken = self.dice_taken
        twin.turn_order = self.turn_order[:]
        twin.turn_idx = self.turn_idx
        twin.church_col = self.church_col[:]
        twin.council_col = self.council_col[:]
        twin.mp_stack = self.mp_stack
        twin.field_stack = self.field_stack
        twin.monk_stacks = [s[:] for s in self.monk_stacks]
        twin.travel_stacks = [s[:] for s in self.travel_stacks]
        twin.craft_cols = [s[:] for s in self.craft_cols]
        twin.deck = self.deck[:]
        twin.display = self.display[:]
        twin.chronicle = [c[:] for c in self.chronicle]
        twin.graves = self.graves[:]
        twin.rat = self.rat
        twin.rat_rolls = self.rat_rolls
        twin.plagues = self.plagues
        twin.phase = self.phase
        twin.player = self.player
        twin.dice = self.dice
        twin.value = self.value
        twin.banner = self.banner
        twin.choice_kind = self.choice_kind
        twin.white_used = self.white_used[:]
        twin.white_count = self.white_count
        twin.picks = self.picks[:]
        twin.unfinished = self.unfinished
        twin._legal = self._legal
        return twin

    def determinize(self, player: int, rng: random.Random) -> MyVillageState:
        """Re-draw what ``player`` cannot see: the customer deck order and the cards below
        the top of every monk and travel stack (MV-SETUP-7, -9, -10) and craft column
        (MV-SETUP-11 by the Greek text); reseed chance."""
        twin = self.clone()
        rng.shuffle(twin.deck)
        hidden = twin.monk_stacks + twin.travel_stacks
        if CRAFT_ONLY_TOP_VISIBLE:
            hidden += twin.craft_cols
        for stack in hidden:
            if len(stack) > 2:
                below = stack[:-1]
                rng.shuffle(below)
                stack[:-1] = below
        twin.chance = self.chance.reseeded(rng)
        return twin

    def conserved_totals(self) -> dict[str, int]:
        owned = sum(v.card_count() for v in self.villages)
        table = (
            len(self.church_col)
            + len(self.council_col)
            + self.mp_stack
            + self.field_stack
            + sum(len(s) for s in self.monk_stacks)
            + sum(len(s) for s in self.travel_stacks)
            + sum(len(s) for s in self.craft_cols)
            + len(self.deck)
            + len(self.display)
        )
        return {
            "cards": owned + table,
            "dice": len(self.pool) + self.dice_taken,
        }
