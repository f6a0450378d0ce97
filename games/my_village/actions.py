"""My Village action values: one class per kind of decision of spec C.18 (MV-DP-1..8)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from games.core import Action
from games.my_village.data import Category, Profession, Source


def _die(value: int, black: bool) -> str:
    return f"{'B' if black else 'W'}{value}"


@dataclass(frozen=True, slots=True)
class TakeDice(Action):
    """MV-DP-1: take two dice from the pool (colour and value identify a die, MV-GAP-1)."""

    a: int
    a_black: bool
    b: int
    b_black: bool

    def __str__(self) -> str:
        return f"dice {_die(self.a, self.a_black)}+{_die(self.b, self.b_black)}"


@dataclass(frozen=True, slots=True)
class SetValue(Action):
    """MV-DP-2: the banner value, paid with ``markers`` meeting point markers and ``coins``."""

    value: int
    markers: int
    coins: int

    def __str__(self) -> str:
        extra = []
        if self.coins:
            extra.append(f"{self.coins} coin{'s' if self.coins > 1 else ''}")
        if self.markers:
            extra.append(f"{self.markers} marker{'s' if self.markers > 1 else ''}")
        return f"value {self.value}" + (f" ({', '.join(extra)})" if extra else "")


@dataclass(frozen=True, slots=True)
class Black(Action):
    """MV-DP-3: activate one black banner: HAND, OVERSEER, a card ID (churches, council
    chambers, craft buildings), MEETING_POINT, FIELD, MONK_PEN/MONK_CUP/MONK_ROSARY, TRAVEL."""

    banner: str

    def __str__(self) -> str:
        return f"black {self.banner}"


@dataclass(frozen=True, slots=True)
class WhiteMode(Action):
    """MV-DP-3: use the banner value on white banners (MV-DP-6 follows)."""

    def __str__(self) -> str:
        return "white banners"


@dataclass(frozen=True, slots=True)
class Chronicle(Action):
    """MV-DP-3: the village black "?" banner (MV-SP-4)."""

    def __str__(self) -> str:
        return "chronicle"


@dataclass(frozen=True, slots=True)
class PickCustomer(Action):
    """MV-DP-4: pick one more display customer for the overseer's office."""

    card: str

    def __str__(self) -> str:
        return f"pick {self.card}"


@dataclass(frozen=True, slots=True)
class StopPicking(Action):
    """MV-DP-4: take the customers picked so far."""

    def __str__(self) -> str:
        return "stop picking"


@dataclass(frozen=True, slots=True)
class PayWith(Action):
    """MV-DP-5: the source of the good a black banner demands."""

    source: Source

    def __str__(self) -> str:
        return f"pay from {self.source.value}"


class WhiteBanner(enum.StrEnum):
    """The kinds of white banner options of MV-DP-6."""

    PLAY = "play"
    SCHOOL = "school"
    CHURCH = "church"
    CHAMBER = "chamber"
    MEETING_POINT = "meeting_point"
    FIELD_PLOUGHED = "field_ploughed"
    FIELD_BARE = "field_bare"
    CRAFT = "craft"
    CUSTOMER = "customer"


@dataclass(frozen=True, slots=True)
class White(Action):
    """MV-DP-6: activate one white banner.

    ``choice``: the school outcome (NEW_LEFT, LEFT_TO_RIGHT, LEFT_TO_<profession>,
    RIGHT_TO_<profession>), the Trade church's customer ID, the land registry category,
    the craft good, or the customer ID. ``payment``: one source per demanded good of a
    customer, in the card's goods order.
    """

    banner: WhiteBanner
    choice: str = ""
    payment: tuple[Source, ...] = ()

    def __str__(self) -> str:
        text = f"white {self.banner.value}"
        if self.choice:
            text += f" {self.choice}"
        if self.payment:
            text += " paying " + ",".join(s.value for s in self.payment)
        return text


@dataclass(frozen=True, slots=True)
class MoveWildcard(Action):
    """MV-DP-6 / MV-GAP-8: move a guild council wildcard onto an empty field plough space."""

    def __str__(self) -> str:
        return "wildcard to field"


@dataclass(frozen=True, slots=True)
class EndWhite(Action):
    """MV-DP-6: stop activating white banners."""

    def __str__(self) -> str:
        return "end white banners"


@dataclass(frozen=True, slots=True)
class MarkCategory(Action):
    """MV-DP-7: the land registry category of its first marker."""

    category: Category

    def __str__(self) -> str:
        return f"registry {self.category.value}"


@dataclass(frozen=True, slots=True)
class SchoolSpace(Action):
    """MV-DP-7: the school space a rosary monk fills (LEFT or RIGHT)."""

    right: bool

    def __str__(self) -> str:
        return f"school {'RIGHT' if self.right else 'LEFT'}"


@dataclass(frozen=True, slots=True)
class Bury(Action):
    """MV-DP-8: the villager who dies."""

    profession: Profession

    def __str__(self) -> str:
        return f"bury {self.profession.value}"


ACTION_TYPES: tuple[type[Action], ...] = (
    TakeDice,
    SetValue,
    Black,
    WhiteMode,
    Chronicle,
    PickCustomer,
    StopPicking,
    PayWith,
    White,
    MoveWildcard,
    EndWhite,
    MarkCategory,
    SchoolSpace,
    Bury,
)
