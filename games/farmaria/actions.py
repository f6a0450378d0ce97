"""Farmaria action values: one class per kind of answer (Part E of the spec).

Conventions: CM positions are numbered 1..K as in the spec; a player's fields are numbered
from 0 in the order they were acquired; ``stable`` is the index of a stable inside its field,
or -1 for the field's outside area. Cards of one type are interchangeable, so options name a
card type, not a card (FM-DEC-2).
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from games.core import Action


class Card(enum.StrEnum):
    """Every management card type (FM-COMP-3); order = data.CARD_IDS."""

    FIELD = "field"
    STABLE = "stable"
    TRACTOR = "tractor"
    APPLE = "apple"
    OLIVE = "olive"
    ORANGE = "orange"
    HEN = "hen"
    ROOSTER = "rooster"
    SHEEP = "sheep"
    RAM = "ram"
    COW = "cow"
    BULL = "bull"
    HORSE = "horse"
    ANIMAL_THIEF = "animal_thief"
    BURGLAR = "burglar"
    DOBERMAN = "doberman"
    POLICE = "police"
    DIPLOMACY = "diplomacy"
    AUCTION = "auction"
    OPPORTUNITY = "opportunity"
    INSECTICIDE = "insecticide"
    VET = "vet"
    TAX_EVASION = "tax_evasion"


#: card type index -> Card
CARDS: tuple[Card, ...] = tuple(Card)
CARD_INDEX: dict[Card, int] = {c: i for i, c in enumerate(CARDS)}


class CharacterName(enum.StrEnum):
    """The 14 characters (section 3.6); order = data.CHARACTERS."""

    VANGELIS = "vangelis"
    ALEXANDROS = "alexandros"
    LAMBIS = "lambis"
    MICHALIS = "michalis"
    IRINI = "irini"
    PARASKEVI = "paraskevi"
    ANTHI = "anthi"
    GIANNOS = "giannos"
    VALANTIS = "valantis"
    TASOS = "tasos"
    BABIS = "babis"
    IOANNA = "ioanna"
    ARGYRI = "argyri"
    NIKOS = "nikos"


CHARACTER_NAMES: tuple[CharacterName, ...] = tuple(CharacterName)


class Pool(enum.StrEnum):
    """A player's two hidden card pools (FM-ACT-6)."""

    SELECTED = "selected"
    FACE_DOWN = "face_down"


def _loc(field: int, stable: int) -> str:
    return f"F{field}" + (f"/S{stable}" if stable >= 0 else "")


@dataclass(frozen=True, slots=True)
class ChooseCharacter(Action):
    """FM-DEC-3: take a character (free-choice setup variant)."""

    character: CharacterName

    def __str__(self) -> str:
        return f"character {self.character.value}"


@dataclass(frozen=True, slots=True)
class TellEvents(Action):
    """FM-DEC-4: Tasos tells the coming events to a player (-1 = nobody; variant)."""

    player: int

    def __str__(self) -> str:
        return "tell nobody" if self.player < 0 else f"tell P{self.player}"


@dataclass(frozen=True, slots=True)
class Select(Action):
    """FM-DEC-5: select one more card of this type in 1b."""

    card: Card

    def __str__(self) -> str:
        return f"select {self.card.value}"


@dataclass(frozen=True, slots=True)
class PlayCard(Action):
    """FM-DEC-6/7: play an action card of this type from the selected cards."""

    card: Card

    def __str__(self) -> str:
        return f"play {self.card.value}"


@dataclass(frozen=True, slots=True)
class Done(Action):
    """FM-DEC-6: no (more) event-defence card now."""

    def __str__(self) -> str:
        return "done"


@dataclass(frozen=True, slots=True)
class BuyHand(Action):
    """FM-DEC-7.1: buy a selected goods card at its item price."""

    card: Card

    def __str__(self) -> str:
        return f"buy {self.card.value} from hand"


@dataclass(frozen=True, slots=True)
class BuyMarket(Action):
    """FM-DEC-7.2/3: buy the active card of CM position ``position`` (Ioanna's price if set)."""

    position: int
    ioanna: bool

    def __str__(self) -> str:
        return f"buy CM{self.position}" + (" at item price" if self.ioanna else "")


@dataclass(frozen=True, slots=True)
class Sell(Action):
    """FM-DEC-7.4/21/22: sell an animal or the tractor at a location, or a whole field."""

    card: Card
    field: int
    stable: int

    def __str__(self) -> str:
        return f"sell {self.card.value} {_loc(self.field, self.stable)}"


@dataclass(frozen=True, slots=True)
class Move(Action):
    """FM-DEC-7.5: move an animal or the tractor standing at this location."""

    card: Card
    field: int
    stable: int

    def __str__(self) -> str:
        return f"move {self.card.value} {_loc(self.field, self.stable)}"


@dataclass(frozen=True, slots=True)
class Demolish(Action):
    """FM-DEC-7.6: demolish a stable."""

    field: int
    stable: int

    def __str__(self) -> str:
        return f"demolish {_loc(self.field, self.stable)}"


@dataclass(frozen=True, slots=True)
class Uproot(Action):
    """FM-DEC-7.7: uproot a plant of this type in this field."""

    card: Card
    field: int

    def __str__(self) -> str:
        return f"uproot {self.card.value} F{self.field}"


@dataclass(frozen=True, slots=True)
class NikosAuction(Action):
    """FM-DEC-7.13: Nikos's free auction."""

    def __str__(self) -> str:
        return "nikos auction"


@dataclass(frozen=True, slots=True)
class EndTurn(Action):
    """FM-DEC-7.14: end 3a."""

    def __str__(self) -> str:
        return "end"


@dataclass(frozen=True, slots=True)
class Place(Action):
    """FM-DEC-8/9/10: put the good at this location."""

    field: int
    stable: int

    def __str__(self) -> str:
        return f"place {_loc(self.field, self.stable)}"


@dataclass(frozen=True, slots=True)
class SellInstead(Action):
    """FM-DEC-10: sell the animal of a demolished stable instead of placing it."""

    def __str__(self) -> str:
        return "sell it"


@dataclass(frozen=True, slots=True)
class StealFrom(Action):
    """FM-DEC-11: target ``player``'s animal of this type at this location."""

    player: int
    card: Card
    field: int
    stable: int

    def __str__(self) -> str:
        return f"steal P{self.player} {self.card.value} {_loc(self.field, self.stable)}"


@dataclass(frozen=True, slots=True)
class Defend(Action):
    """FM-DEC-12: answer a theft with doberman or police."""

    card: Card

    def __str__(self) -> str:
        return f"defend {self.card.value}"


@dataclass(frozen=True, slots=True)
class NoDefence(Action):
    """FM-DEC-12: let the theft happen."""

    def __str__(self) -> str:
        return "no defence"


@dataclass(frozen=True, slots=True)
class DiplomacyMarket(Action):
    """FM-DEC-13: take the active card of CM position ``position``."""

    position: int

    def __str__(self) -> str:
        return f"diplomacy CM{self.position}"


@dataclass(frozen=True, slots=True)
class DiplomacyPlayer(Action):
    """FM-DEC-13: take a random card of ``player`` from these pools (two for Babis)."""

    player: int
    pools: tuple[Pool, ...]

    def __str__(self) -> str:
        return f"diplomacy P{self.player} " + "+".join(p.value for p in self.pools)


@dataclass(frozen=True, slots=True)
class Keep(Action):
    """FM-DEC-14: Babis keeps this one of his two drawn cards."""

    card: Card

    def __str__(self) -> str:
        return f"keep {self.card.value}"


@dataclass(frozen=True, slots=True)
class Reject(Action):
    """FM-DEC-17/20: the drawn card of this type goes to the CM."""

    card: Card

    def __str__(self) -> str:
        return f"reject {self.card.value}"


@dataclass(frozen=True, slots=True)
class LotFromHand(Action):
    """FM-DEC-15: auction a selected goods card of this type."""

    card: Card

    def __str__(self) -> str:
        return f"auction {self.card.value} from hand"


@dataclass(frozen=True, slots=True)
class LotFromMarket(Action):
    """FM-DEC-15: auction the active card of CM position ``position``."""

    position: int

    def __str__(self) -> str:
        return f"auction CM{self.position}"


@dataclass(frozen=True, slots=True)
class Bid(Action):
    """FM-DEC-16: raise the auction to ``amount``."""

    amount: int

    def __str__(self) -> str:
        return f"bid {self.amount}"


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """FM-DEC-16: pass (final)."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """FM-DEC-18: put a selected (or, FM-AMB-48, face-down) card of this type into the CM."""

    card: Card
    face_down: bool

    def __str__(self) -> str:
        return f"discard {self.card.value}" + (" (face-down)" if self.face_down else "")


@dataclass(frozen=True, slots=True)
class StopDiscarding(Action):
    """FM-DEC-18d: discard nothing more."""

    def __str__(self) -> str:
        return "stop"


@dataclass(frozen=True, slots=True)
class Pick(Action):
    """FM-DEC-19: Giannos takes the active card of CM position ``position``."""

    position: int

    def __str__(self) -> str:
        return f"pick CM{self.position}"


@dataclass(frozen=True, slots=True)
class NoPick(Action):
    """FM-DEC-19: Giannos draws all his cards from the deck."""

    def __str__(self) -> str:
        return "none"


@dataclass(frozen=True, slots=True)
class Borrow(Action):
    """FM-DEC-21/22: borrow exactly the shortfall (``borrow`` / ``reborrow``)."""

    def __str__(self) -> str:
        return "borrow"


def _memo(cls: type[A]) -> Callable[..., A]:
    """A memoised constructor: equal actions are built once (they are immutable)."""
    return functools.lru_cache(maxsize=None)(cls)


A = TypeVar("A", bound=Action)

buy_market = _memo(BuyMarket)
demolish = _memo(Demolish)
place = _memo(Place)
bid = _memo(Bid)
# Options naming a card type, indexed by the type's int (hashing an int is cheap).
BUY_HAND: tuple[BuyHand, ...] = tuple(BuyHand(c) for c in CARDS)
SELECT: tuple[Select, ...] = tuple(Select(c) for c in CARDS)
PLAY: tuple[PlayCard, ...] = tuple(PlayCard(c) for c in CARDS)
DISCARD: tuple[tuple[Discard, ...], ...] = (
    tuple(Discard(c, False) for c in CARDS),
    tuple(Discard(c, True) for c in CARDS),
)


@functools.cache
def sell_at(t: int, field: int, stable: int) -> Sell:
    """The (shared) ``Sell`` option for card type index t at a location."""
    return Sell(CARDS[t], field, stable)


@functools.cache
def move_at(t: int, field: int, stable: int) -> Move:
    """The (shared) ``Move`` option for card type index t at a location."""
    return Move(CARDS[t], field, stable)


@functools.cache
def uproot_at(t: int, field: int) -> Uproot:
    """The (shared) ``Uproot`` option for card type index t in a field."""
    return Uproot(CARDS[t], field)


END_TURN = EndTurn()
PASS = Pass()
STOP = StopDiscarding()
DONE = Done()

ACTION_TYPES: tuple[type[Action], ...] = (
    ChooseCharacter,
    TellEvents,
    Select,
    PlayCard,
    Done,
    BuyHand,
    BuyMarket,
    Sell,
    Move,
    Demolish,
    Uproot,
    NikosAuction,
    EndTurn,
    Place,
    SellInstead,
    StealFrom,
    Defend,
    NoDefence,
    DiplomacyMarket,
    DiplomacyPlayer,
    Keep,
    Reject,
    LotFromHand,
    LotFromMarket,
    Bid,
    Pass,
    Discard,
    StopDiscarding,
    Pick,
    NoPick,
    Borrow,
)
