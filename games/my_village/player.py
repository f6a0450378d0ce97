"""One player's village (B.4, spec C.16 "state per player"), with goods bookkeeping.

Plain ints and lists for speed; :meth:`Village.clone` is hand-written.
"""

from __future__ import annotations

from games.my_village.data import (
    CHURCH_BY_ID,
    CRAFT_BY_ID,
    MAX_MONKS,
    PLOUGH,
    PROFESSIONS,
    Source,
)

#: Field bits: a plough lies on it / its white banner was activated this turn.
PLOUGHED = 1
USED = 2


class Village:
    """Everything one player owns (B.4): villagers, school, money, SP, time and cards."""

    __slots__ = (
        "board",
        "chamber",
        "church",
        "coins",
        "craft_goods",
        "crafts",
        "day_labourers",
        "fields",
        "meeting_point",
        "monks",
        "mp_markers",
        "new_customers",
        "pending_deaths",
        "play_values",
        "registry",
        "school",
        "served",
        "sp_house",
        "sp_tree",
        "time_pos",
        "travel",
        "turns_taken",
        "villagers",
        "waiting",
        "wildcards",
    )

    def __init__(self, board: int, play_values: tuple[int, ...], coins: int) -> None:
        self.board = board
        self.play_values = play_values
        self.villagers = [True] * 5  # MV-SETUP-12: one marker on each villager space
        self.school = [False, False]  # LEFT, RIGHT
        self.coins = coins
        self.sp_tree = 0
        self.sp_house = 0
        self.time_pos = 1  # cloud 1, just after the bridge [source: S5]
        self.pending_deaths = 0
        self.church = ""
        self.monks: list[str] = []
        self.chamber = ""
        self.wildcards = 0
        self.registry = [False] * 6
        self.meeting_point = False
        self.mp_markers: list[int] = []  # round in which each marker was placed, oldest first
        self.fields: list[int] = []  # bitmask per field: PLOUGHED | USED
        self.crafts = [""] * 5  # building ID per craft kind ("" = none)
        self.craft_goods = [0] * 5
        self.travel: list[str] = []
        self.waiting: list[str] = []
        self.new_customers: list[str] = []  # entered the waiting row this turn (MV-CUST-4)
        self.served: list[str] = []
        self.day_labourers = 0
        self.turns_taken = 0

    def clone(self) -> Village:
        """An independent copy."""
        twin = Village.__new__(Village)
        twin.board = self.board
        twin.play_values = self.play_values
        twin.villagers = self.villagers[:]
        twin.school = self.school[:]
        twin.coins = self.coins
        twin.sp_tree = self.sp_tree
        twin.sp_house = self.sp_house
        twin.time_pos = self.time_pos
        twin.pending_deaths = self.pending_deaths
        twin.church = self.church
        twin.monks = self.monks[:]
        twin.chamber = self.chamber
        twin.wildcards = self.wildcards
        twin.registry = self.registry[:]
        twin.meeting_point = self.meeting_point
        twin.mp_markers = self.mp_markers[:]
        twin.fields = self.fields[:]
        twin.crafts = self.crafts[:]
        twin.craft_goods = self.craft_goods[:]
        twin.travel = self.travel[:]
        twin.waiting = self.waiting[:]
        twin.new_customers = self.new_customers[:]
        twin.served = self.served[:]
        twin.day_labourers = self.day_labourers
        twin.turns_taken = self.turns_taken
        return twin

    # --- time (MV-TIME-2, MV-TIME-3) -----------------------------------------------------

    def pay_time(self, amount: int, lap: int) -> None:
        """Advance the time marker; each bridge crossing adds a pending death (R-2)."""
        if amount <= 0:
            return
        new = self.time_pos + amount
        self.pending_deaths += (new - 1) // lap
        self.time_pos = (new - 1) % lap + 1

    # --- goods (MV-GOODS-1..3) -----------------------------------------------------------

    def ploughed_fields(self) -> int:
        """Fields with a plough on them."""
        return sum(1 for f in self.fields if f & PLOUGHED)

    def sources(self, good: int) -> list[Source]:
        """Sources holding at least one ``good`` (MV-DP-5), in canonical order."""
        out = []
        if self.craft_goods[good]:
            out.append(Source.BUILDING)
        if good == PLOUGH and self.ploughed_fields():
            out.append(Source.FIELD)
        if self.wildcards:
            out.append(Source.WILDCARD)
        return out

    def take_good(self, good: int, source: Source) -> None:
        """Return one good of kind ``good`` from ``source`` to the supply (MV-GOODS-3)."""
        if source is Source.BUILDING:
            self.craft_goods[good] -= 1
        elif source is Source.WILDCARD:
            self.wildcards -= 1
        else:
            # MV-GAP-5: which field gives up its plough is not asked; an already activated
            # field gives it first, which never costs the player anything.
            best = -1
            for i, f in enumerate(self.fields):
                if f & PLOUGHED and (best < 0 or f & USED):
                    best = i
            self.fields[best] &= ~PLOUGHED

    def place_ploughs(self) -> None:
        """MV-GAP-7: smithy ploughs move onto empty field plough spaces automatically
        (unused fields first, so the plough can still pay off this turn)."""
        for want_used in (0, USED):
            for i, f in enumerate(self.fields):
                if not self.craft_goods[PLOUGH]:
                    return
                if not f & PLOUGHED and f & USED == want_used:
                    self.fields[i] = f | PLOUGHED
                    self.craft_goods[PLOUGH] -= 1

    def goods_total(self) -> int:
        """Goods for the tie-break (MV-TIE-1): craft goods, ploughs on fields, wildcards."""
        return sum(self.craft_goods) + self.ploughed_fields() + self.wildcards

    # --- areas ----------------------------------------------------------------------------

    def windows(self) -> int:
        """Church windows: monks + the monastery church (MV-CH-2), capped (MV-GAP-11)."""
        extra = CHURCH_BY_ID[self.church].windows if self.church else 0
        return len(self.monks) + extra

    def monk_limit(self) -> int:
        """Most monks allowed now (MV-MONK-2)."""
        return CHURCH_BY_ID[self.church].monk_limit if self.church else MAX_MONKS

    def category_count(self, category: int) -> int:
        """Cards in a land registry category (B.13, MV-SCORE-3)."""
        if category == 0:
            return len(self.monks) + (1 if self.church else 0)
        if category == 1:
            return (1 if self.chamber else 0) + (1 if self.meeting_point else 0)
        if category == 2:
            return len(self.fields)
        if category == 3:
            return len(self.travel)
        if category == 4:
            return sum(1 for c in self.crafts if c)
        return len(self.served)

    def card_count(self) -> int:
        """Village cards owned (for conservation)."""
        return (
            (1 if self.church else 0)
            + len(self.monks)
            + (1 if self.chamber else 0)
            + (1 if self.meeting_point else 0)
            + len(self.fields)
            + sum(1 for c in self.crafts if c)
            + len(self.travel)
            + len(self.waiting)
            + len(self.served)
        )

    def describe(self) -> dict[str, object]:
        """The public view of this village (JSON-like)."""
        return {
            "board": self.board,
            "play_values": list(self.play_values),
            "villagers": {
                p.value: alive for p, alive in zip(PROFESSIONS, self.villagers, strict=True)
            },
            "school": {"left": self.school[0], "right": self.school[1]},
            "coins": self.coins,
            "sp_tree": self.sp_tree,
            "sp_house": self.sp_house,
            "time": self.time_pos,
            "pending_deaths": self.pending_deaths,
            "church": self.church or None,
            "monks": self.monks[:],
            "chamber": self.chamber or None,
            "wildcards": self.wildcards,
            "registry": list(self.registry),
            "meeting_point": self.meeting_point,
            "meeting_point_markers": self.mp_markers[:],
            "fields": [bool(f & PLOUGHED) for f in self.fields],
            "fields_used": [bool(f & USED) for f in self.fields],
            "crafts": [
                {"id": c, "goods": self.craft_goods[i], "spaces": CRAFT_BY_ID[c].spaces}
                for i, c in enumerate(self.crafts)
                if c
            ],
            "travel": self.travel[:],
            "waiting": self.waiting[:],
            "new_customers": self.new_customers[:],
            "served": self.served[:],
            "day_labourers": self.day_labourers,
            "windows": self.windows(),
        }


__all__ = ["PLOUGHED", "USED", "Village"]
