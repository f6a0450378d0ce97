"""Village action values: one frozen dataclass per kind of option of the spec's decision
points (V-DP-4 ... V-DP-19). Members are named by (generation, location) (V-DP-2); payment
splits by the number of coins used in place of influence cubes (V-DP-3)."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from games.core import Action
from games.village import data as vd


class Space(enum.Enum):
    """The seven action spaces A-G."""

    HARVEST = "harvest"
    FAMILY = "family"
    CRAFTS = "crafts"
    MARKET = "market"
    TRAVEL = "travel"
    COUNCIL = "council"
    CHURCH = "church"


class Colour(enum.Enum):
    """Cube colours (plague last)."""

    BROWN = "brown"
    PINK = "pink"
    ORANGE = "orange"
    GREEN = "green"
    PLAGUE = "plague"


class Good(enum.Enum):
    """Goods types; ``NONE`` only in :class:`Train` (train without producing)."""

    SCROLL = "scroll"
    HORSE = "horse"
    PLOUGH = "plough"
    OX = "ox"
    WAGON = "wagon"
    NONE = "none"


class Building(enum.Enum):
    """The four producing craft buildings (the mill is :class:`Mill`)."""

    WAINWRIGHT = "wainwright"
    STABLES = "stables"
    OFFICE = "office"
    SMITHY = "smithy"


class Loc(enum.Enum):
    """Visible member locations (V-DP-2)."""

    FARMYARD = "farmyard"
    WAINWRIGHT = "building:wainwright"
    STABLES = "building:stables"
    OFFICE = "building:office"
    SMITHY = "building:smithy"
    COUNCIL_1 = "council:1"
    COUNCIL_2 = "council:2"
    COUNCIL_3 = "council:3"
    COUNCIL_4 = "council:4"
    CHURCH_1 = "church:1"
    CHURCH_2 = "church:2"
    CHURCH_3 = "church:3"
    CHURCH_4 = "church:4"
    T1 = "town:T1"
    T2 = "town:T2"
    T3 = "town:T3"
    T4 = "town:T4"
    T5 = "town:T5"
    T6 = "town:T6"


class CouncilPay(enum.Enum):
    """Council cost form: 1 scroll, or 2 green (with coins for some of them)."""

    SCROLL = "scroll"
    GREEN = "green"


class ChurchPay(enum.Enum):
    """Church cost form (V-DP-15)."""

    BROWN = "brown"
    COIN = "coin"
    TIME = "time"


class Extra(enum.Enum):
    """Extra cost of a sale (V-MKT-5)."""

    FREE = "free"
    GREEN = "green"
    COIN = "coin"


SPACES = tuple(Space)
COLOURS = tuple(Colour)
GOODS = tuple(Good)[:5]
BUILDINGS = tuple(Building)
LOCS = tuple(Loc)


def _coins(coins: int) -> str:
    return f" +{coins}coin" if coins else ""


@dataclass(frozen=True, slots=True)
class Take(Action):
    """V-DP-4: take a cube of ``colour`` from ``space``."""

    space: Space
    colour: Colour

    def __str__(self) -> str:
        return f"take {self.colour.value} from {self.space.value}"


@dataclass(frozen=True, slots=True)
class Well(Action):
    """V-DP-4: use the well to perform the action of ``space``."""

    space: Space

    def __str__(self) -> str:
        return f"well for {self.space.value}"


@dataclass(frozen=True, slots=True)
class PayWell(Action):
    """V-DP-5: pay the well with 3 - coins cubes of ``colour`` and ``coins`` coins."""

    colour: Colour
    coins: int

    def __str__(self) -> str:
        return f"pay well {3 - self.coins} {self.colour.value}{_coins(self.coins)}"


@dataclass(frozen=True, slots=True)
class PayWellCoins(Action):
    """V-DP-5: pay the well with 3 coins."""

    def __str__(self) -> str:
        return "pay well 3 coins"


@dataclass(frozen=True, slots=True)
class Act(Action):
    """V-DP-6: free last action on an empty board."""

    space: Space

    def __str__(self) -> str:
        return f"free action {self.space.value}"


@dataclass(frozen=True, slots=True)
class Decline(Action):
    """Do not perform the action (always legal at an action point)."""

    def __str__(self) -> str:
        return "decline"


@dataclass(frozen=True, slots=True)
class Harvest(Action):
    """V-DP-7."""

    def __str__(self) -> str:
        return "harvest"


@dataclass(frozen=True, slots=True)
class Birth(Action):
    """V-DP-8: the lowest unborn generation comes to the farmyard."""

    def __str__(self) -> str:
        return "birth"


@dataclass(frozen=True, slots=True)
class Return(Action):
    """V-DP-8: bring a placed member home."""

    generation: int
    location: Loc

    def __str__(self) -> str:
        return f"return gen{self.generation} from {self.location.value}"


@dataclass(frozen=True, slots=True)
class Buy(Action):
    """V-DP-9: buy a good; ``coins`` = coins used per colour of the price, in colour order
    (its ``str()`` names the colours they replace, so two splits never print alike)."""

    building: Building
    good: Good
    coins: tuple[int, ...]

    def __str__(self) -> str:
        # Two splits of the same total differ in the colour the coins replace: name it.
        price = vd.BUY_CUBES[BUILDINGS.index(self.building)] or ()
        priced = [COLOURS[c].value for c, need in enumerate(price) if need]
        used = [(priced[i], k) for i, k in enumerate(self.coins) if k]
        if len(used) == 1:
            where = f" for {used[0][0]}"
        else:
            where = "".join(f"{', ' if i else ' for '}{c} {k}" for i, (c, k) in enumerate(used))
        return f"buy {self.good.value} at {self.building.value}{_coins(sum(self.coins))}{where}"


@dataclass(frozen=True, slots=True)
class Produce(Action):
    """V-DP-9: produce with a member already on the building (pays time)."""

    building: Building
    good: Good

    def __str__(self) -> str:
        return f"produce {self.good.value} at {self.building.value}"


@dataclass(frozen=True, slots=True)
class Train(Action):
    """V-DP-9: move a farmyard member onto a building, then produce ``good`` (or NONE)."""

    building: Building
    generation: int
    good: Good

    def __str__(self) -> str:
        tail = "" if self.good is Good.NONE else f" and produce {self.good.value}"
        return f"train gen{self.generation} at {self.building.value}{tail}"


@dataclass(frozen=True, slots=True)
class Mill(Action):
    """V-DP-9: 2 time + 2 grain for 2 coins."""

    def __str__(self) -> str:
        return "mill"


@dataclass(frozen=True, slots=True)
class Travel(Action):
    """V-DP-10: move a member from ``origin`` (farmyard or a town) to ``destination``."""

    origin: Loc
    generation: int
    destination: Loc
    coins: int

    def __str__(self) -> str:
        return (
            f"travel gen{self.generation} {self.origin.value} -> "
            f"{self.destination.value}{_coins(self.coins)}"
        )


@dataclass(frozen=True, slots=True)
class Enter(Action):
    """V-DP-11: farmyard member to council stage 1."""

    generation: int
    payment: CouncilPay
    coins: int

    def __str__(self) -> str:
        return f"enter council gen{self.generation} pay {self.payment.value}{_coins(self.coins)}"


@dataclass(frozen=True, slots=True)
class Advance(Action):
    """V-DP-11: move a council member from ``stage`` to ``stage + 1``."""

    stage: int
    generation: int
    payment: CouncilPay
    coins: int

    def __str__(self) -> str:
        return (
            f"advance gen{self.generation} council {self.stage}->{self.stage + 1} "
            f"pay {self.payment.value}{_coins(self.coins)}"
        )


@dataclass(frozen=True, slots=True)
class Use(Action):
    """V-DP-11: use a privilege without moving."""

    privilege: int

    def __str__(self) -> str:
        return f"use privilege {self.privilege}"


@dataclass(frozen=True, slots=True)
class Privilege(Action):
    """V-DP-12: use a privilege after entering or advancing."""

    privilege: int

    def __str__(self) -> str:
        return f"privilege {self.privilege}"


@dataclass(frozen=True, slots=True)
class NoPrivilege(Action):
    """V-DP-12: ``NONE``."""

    def __str__(self) -> str:
        return "no privilege"


@dataclass(frozen=True, slots=True)
class Cubes(Action):
    """V-DP-13: influence cubes of choice (one or two, colours ascending)."""

    colours: tuple[Colour, ...]

    def __str__(self) -> str:
        return "cubes " + "+".join(c.value for c in self.colours)


@dataclass(frozen=True, slots=True)
class TakeGood(Action):
    """V-DP-14: a goods tile of choice."""

    good: Good

    def __str__(self) -> str:
        return f"take {self.good.value}"


@dataclass(frozen=True, slots=True)
class ToBag(Action):
    """V-DP-15: farmyard member into the black bag."""

    generation: int
    payment: ChurchPay

    def __str__(self) -> str:
        return f"church gen{self.generation} pay {self.payment.value}"


@dataclass(frozen=True, slots=True)
class Serve(Action):
    """V-DP-16: serve the customer on ``stall`` (1-5)."""

    stall: int
    extra: Extra

    def __str__(self) -> str:
        return f"serve stall {self.stall} ({self.extra.value})"


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """V-DP-16: leave this market day."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Die(Action):
    """V-DP-17: which lowest-generation member dies."""

    location: Loc

    def __str__(self) -> str:
        return f"die at {self.location.value}"


@dataclass(frozen=True, slots=True)
class BuyOut(Action):
    """V-DP-18: buy an own member of ``generation`` out of the black bag."""

    generation: int

    def __str__(self) -> str:
        return f"buy out gen{self.generation}"


@dataclass(frozen=True, slots=True)
class Promote(Action):
    """V-DP-19: move a church member from ``window`` to ``window + 1``."""

    window: int
    generation: int

    def __str__(self) -> str:
        return f"promote gen{self.generation} window {self.window}->{self.window + 1}"


@dataclass(frozen=True, slots=True)
class Done(Action):
    """V-DP-18/19: end the visit."""

    def __str__(self) -> str:
        return "done"


ACTION_TYPES: tuple[type[Action], ...] = (
    Take,
    Well,
    PayWell,
    PayWellCoins,
    Act,
    Decline,
    Harvest,
    Birth,
    Return,
    Buy,
    Produce,
    Train,
    Mill,
    Travel,
    Enter,
    Advance,
    Use,
    Privilege,
    NoPrivilege,
    Cubes,
    TakeGood,
    ToBag,
    Serve,
    Pass,
    Die,
    BuyOut,
    Promote,
    Done,
)
