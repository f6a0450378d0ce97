"""All My Village game data, straight from ``shared/rules/my-village.md`` (Part B).

Every value the spec tags ``reconstructed`` lives here (and only here), marked with its
``R-n`` tag, so that a player holding the printed cards can correct it with a data change.
The rules modules read these tables; they never hard-code a number of their own.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Good(enum.StrEnum):
    """The five goods (B.11); index order = craft kind order."""

    HORSE = "horse"
    BEER = "beer"
    PLOUGH = "plough"
    PARCHMENT = "parchment"
    CART = "cart"


GOODS: tuple[Good, ...] = tuple(Good)
GOOD_INDEX: dict[Good, int] = {g: i for i, g in enumerate(GOODS)}
PLOUGH = GOOD_INDEX[Good.PLOUGH]

#: Craft kind per good index (B.2, B.17).
CRAFT_KINDS: tuple[str, ...] = ("stable", "brewery", "smithy", "office", "wainwright")


class Profession(enum.StrEnum):
    """The five villager spaces (B.4); index order is the canonical order."""

    ABBOT = "abbot"
    COUNCILMAN = "councilman"
    TRAVELLER = "traveller"
    CRAFTSMAN = "craftsman"
    MERCHANT = "merchant"


PROFESSIONS: tuple[Profession, ...] = tuple(Profession)
ABBOT, COUNCILMAN, TRAVELLER, CRAFTSMAN, MERCHANT = range(5)


class Category(enum.StrEnum):
    """Land registry category spaces (B.13). [reconstructed: R-21] for the last three."""

    CHURCH = "church"  # church + monks
    COUNCIL = "council"  # council chamber + meeting point
    HARVEST = "harvest"  # fields
    TRAVEL = "travel"
    CRAFT = "craft"
    CUSTOMERS = "customers"  # served customers


CATEGORIES: tuple[Category, ...] = tuple(Category)


class Source(enum.StrEnum):
    """Where a good is paid from (MV-DP-5, MV-GOODS-1)."""

    BUILDING = "building"
    FIELD = "field"
    WILDCARD = "wildcard"


# --- Player-count table (B.3) ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CountRules:
    """Per-player-count parameters (B.3)."""

    white_dice: int
    black_dice: int
    turns_per_player: int
    end_coffins: int
    rat_start: int  # [reconstructed: R-5]


PLAYER_COUNTS: dict[int, CountRules] = {
    2: CountRules(white_dice=8, black_dice=3, turns_per_player=2, end_coffins=9, rat_start=5),
    3: CountRules(white_dice=6, black_dice=2, turns_per_player=1, end_coffins=14, rat_start=3),
    4: CountRules(white_dice=8, black_dice=3, turns_per_player=1, end_coffins=18, rat_start=1),
}

#: Starting coins by seat counted from the first player (MV-SETUP-14) [source: S4, S3].
START_COINS: tuple[int, ...] = (1, 2, 3, 4)

BLACK_DIE_TIME = 2  # MV-DICE-2 [seed]
TIME_TRACK = 10  # cloud spaces per lap (MV-TIME-1) [reconstructed: R-1]
MAX_ROUNDS = 100  # engine safeguard (MV-GAP-16), not a game rule

# --- Village board (B.4) -----------------------------------------------------------------

#: Play banner values per board I-IV. [reconstructed: R-11]
PLAY_VALUES: tuple[tuple[int, ...], ...] = ((5, 8), (6, 9), (3, 7), (4, 10))
PLAY_TIME = 0  # [reconstructed: R-11]
PLAY_SP = 1  # [seed]
SCHOOL_VALUES: tuple[int, ...] = (3, 11)  # 3 [seed], 11 [reconstructed: R-10]
SCHOOL_MOVE_TIME = 1  # [seed]
SCHOOL_RIGHT_SP = 2  # [seed]
CHRONICLE_TIME = 1  # black "?" banner [reconstructed: R-7] (revised, F.3)
#: Chronicle space rewards: first space of a profession, then the second. [reconstructed: R-3]
CHRONICLE_SP: tuple[int, ...] = (2, 1)
DAY_LABOURER_PP = -5  # [seed]
HAND_PP = 1  # [seed]

#: Church-window table, PP for 0..6 windows. [reconstructed: R-20]
WINDOW_PP: tuple[int, ...] = (0, 1, 3, 5, 8, 11, 15)
MAX_WINDOWS = 6  # [seed]
MAX_MONKS = 6  # [seed]

# --- Rat track (B.6) [reconstructed: R-5] ------------------------------------------------

RAT_TRACK = 12
RAT_RED: frozenset[int] = frozenset({0})
RAT_GREY: frozenset[int] = frozenset({4, 8})
RAT_HALT: frozenset[int] = RAT_RED | RAT_GREY
#: A plague loses story tree SP // this ("half" [source: S7]; rounded down [reconstructed: R-30]).
PLAGUE_DIVISOR = 2

# --- Public black banners (B.8, B.9) -----------------------------------------------------

HAND_VALUES: tuple[int, ...] = (4, 10)  # [seed]
HAND_TIME = 0  # [reconstructed: R-28]
OVERSEER_VALUES: tuple[int, ...] = (4, 10)  # [seed]
#: Overseer cost by number of customers taken: (coins, time). [seed]
OVERSEER_COST: dict[int, tuple[int, int]] = {1: (0, 1), 2: (0, 2), 3: (1, 2), 4: (1, 3)}
DISPLAY_SIZE = 6  # [seed]

# --- Cards -------------------------------------------------------------------------------


class ChurchAction(enum.StrEnum):
    """White actions of church cards."""

    SP = "sp"
    CUSTOMER = "customer"


@dataclass(frozen=True, slots=True)
class Church:
    """A church card (B.12). All numbers [reconstructed: R-16]."""

    id: str
    name: str
    values: tuple[int, ...]
    black_time: int
    black_coins: int
    white_time: int
    white_action: ChurchAction
    white_sp: int
    pp: int
    windows: int = 0  # the monastery church counts as one window [seed]
    monk_limit: int = MAX_MONKS
    plague_immune: bool = False


CHURCHES: tuple[Church, ...] = (
    Church("CH-1", "Monastery church", (5, 9), 3, 0, 1, ChurchAction.SP, 1, 2, 1, 5),
    Church(
        "CH-2", "Church of Salvation", (3, 8), 4, 1, 1, ChurchAction.SP, 1, 3, plague_immune=True
    ),
    Church("CH-3", "Trade church", (6, 10), 3, 1, 1, ChurchAction.CUSTOMER, 0, 2),
    Church("CH-4", "Cathedral", (7,), 5, 2, 1, ChurchAction.SP, 2, 5),
)


class ChamberAction(enum.StrEnum):
    """Actions of the council chambers (B.13)."""

    COINS = "coins"
    WILDCARD = "wildcard"
    REGISTRY = "registry"
    SAVE_SP = "save_sp"


@dataclass(frozen=True, slots=True)
class Chamber:
    """A council chamber card (B.13). [reconstructed: R-14] except CC-1's seed numbers."""

    id: str
    name: str
    values: tuple[int, ...]
    black_time: int
    black_coins: int
    black_goods: tuple[Good, ...]
    white_time: int
    action: ChamberAction
    amount: int  # coins gained / SP saved; for the registry and guild council unused
    pp: int


CHAMBERS: tuple[Chamber, ...] = (
    Chamber("CC-1", "Treasury", (3,), 4, 0, (), 1, ChamberAction.COINS, 2, 2),
    Chamber("CC-2", "Guild council", (5, 9), 3, 1, (), 1, ChamberAction.WILDCARD, 1, 2),
    Chamber("CC-3", "Land registry", (4, 9), 3, 0, (), 1, ChamberAction.REGISTRY, 1, 0),
    Chamber(
        "CC-4", "Scriptorium", (2, 11), 3, 0, (Good.PARCHMENT,), 0, ChamberAction.SAVE_SP, 3, 3
    ),
)
WILDCARD_SPACES = 3  # guild council [reconstructed: R-31]
REGISTRY_MARKERS = 3  # land registry [seed example; R-21]

# Meeting point (B.14) [reconstructed: R-15]
MEETING_POINTS = 4
MP_BLACK_VALUES: tuple[int, ...] = (6, 8)
MP_BLACK_TIME = 2
MP_BLACK_COINS = 1
MP_WHITE_VALUES: tuple[int, ...] = (2, 12)  # the "2/12" tile covers the printed values
MP_WHITE_TIME = 0
MP_WHITE_COINS = 1
MP_CAPACITY = 3
MP_PP = 2


class MonkSymbol(enum.StrEnum):
    """The three monk stacks (B.15) [seed]."""

    PEN = "pen"
    CUP = "cup"
    ROSARY = "rosary"


MONK_SYMBOLS: tuple[MonkSymbol, ...] = tuple(MonkSymbol)


@dataclass(frozen=True, slots=True)
class Monk:
    """A monk card (B.15). Everything but the symbol counts [reconstructed: R-17]."""

    id: str
    symbol: MonkSymbol
    values: tuple[int, ...]
    time: int
    coins: int
    goods: tuple[Good, ...]
    save_sp: int = 0
    gain_coins: int = 0
    gain_sp: int = 0
    school: bool = False


P, BE = Good.PARCHMENT, Good.BEER
MONKS: tuple[Monk, ...] = (
    Monk("M-P1", MonkSymbol.PEN, (4, 9), 2, 0, (P,), save_sp=3),
    Monk("M-P2", MonkSymbol.PEN, (5, 10), 2, 0, (P,), save_sp=4),
    Monk("M-P3", MonkSymbol.PEN, (3, 11), 1, 0, (P,), save_sp=5),
    Monk("M-C1", MonkSymbol.CUP, (6,), 2, 0, (BE,), gain_coins=3),
    Monk("M-C2", MonkSymbol.CUP, (8,), 2, 0, (BE,), gain_coins=3),
    Monk("M-C3", MonkSymbol.CUP, (5, 12), 2, 0, (BE,), gain_coins=2, gain_sp=1),
    Monk("M-C4", MonkSymbol.CUP, (2, 9), 2, 0, (BE,), gain_coins=2, gain_sp=1),
    Monk("M-R1", MonkSymbol.ROSARY, (7,), 3, 0, (), gain_sp=2),
    Monk("M-R2", MonkSymbol.ROSARY, (4, 11), 2, 1, (), gain_sp=2),
    Monk("M-R3", MonkSymbol.ROSARY, (3, 10), 2, 1, (), gain_sp=2),
    Monk("M-R4", MonkSymbol.ROSARY, (6, 12), 2, 0, (), school=True),
    Monk("M-R5", MonkSymbol.ROSARY, (2, 8), 2, 0, (), school=True),
)

# Field cards (B.16) [reconstructed: R-13]
FIELDS = 8
FIELD_VALUES: tuple[int, ...] = (7,)
FIELD_BLACK_TIME = 2
FIELD_ACQUIRE_COINS = 1
FIELD_WHITE_TIME = 1
FIELD_WHITE_COINS = 1  # [seed]
FIELD_PLOUGH_BONUS = 1  # [seed]
FIELD_PP = 1  # [seed]


@dataclass(frozen=True, slots=True)
class Craft:
    """A craft building (B.17). Numbers [reconstructed: R-12] (one 5/8 brewery [S9])."""

    id: str
    good: int  # index into GOODS
    values: tuple[int, ...]
    black_time: int
    black_coins: int
    white_time: int
    spaces: int


def _crafts() -> tuple[Craft, ...]:
    prefixes = ("ST", "BR", "SM", "OF", "WW")
    # [reconstructed: R-12]: one card per play-banner pair in every kind.
    pattern = (((5, 8), 3, 1, 1, 3), ((6, 9), 3, 1, 1, 3), ((3, 7), 2, 0, 0, 2),
               ((4, 10), 2, 0, 1, 2))  # fmt: skip
    return tuple(
        Craft(f"{prefix}-{n + 1}", g, values, bt, bc, wt, sp)
        for g, prefix in enumerate(prefixes)
        for n, (values, bt, bc, wt, sp) in enumerate(pattern)
    )


CRAFTS: tuple[Craft, ...] = _crafts()

#: Which craft building cards can be taken (MV-SETUP-11, MV-BLK-1). The Greek rulebook says
#: each craft column is laid "with only the first card of each column visible"; the spec
#: reads that as a slip and makes all four available ([reconstructed: R-26], Part E.9).
#: The Greek text wins where it disagrees with the spec, so only the visible top card of
#: each column is available and the cards below it are hidden. Set to False for the
#: spec's R-26 reading (every card of a column available, column order public).
CRAFT_ONLY_TOP_VISIBLE = True


@dataclass(frozen=True, slots=True)
class Surcharge:
    """The cost printed top right on a travel card, paid for the next letter (MV-TRAVEL-2)."""

    coins: int = 0
    time: int = 0
    good: int = -1  # index into GOODS, -1 = none


@dataclass(frozen=True, slots=True)
class Travel:
    """A travel card (B.18). All numbers [reconstructed: R-18]."""

    id: str
    letter: int  # 0 = A ... 4 = E
    values: tuple[int, ...]
    time: int
    coins: int
    sp: int
    surcharge: Surcharge
    pp: int


LETTERS = "ABCDE"
_H, _B, _W, _C = (GOOD_INDEX[g] for g in (Good.HORSE, Good.BEER, Good.PARCHMENT, Good.CART))
# [reconstructed: R-18] for every number below.
TRAVELS: tuple[Travel, ...] = (
    Travel("T-A1", 0, (3, 8), 2, 0, 1, Surcharge(coins=1), 1),
    Travel("T-A2", 0, (4, 9), 2, 0, 1, Surcharge(time=2), 1),
    Travel("T-A3", 0, (5, 10), 2, 0, 1, Surcharge(coins=1), 1),
    Travel("T-A4", 0, (6, 11), 2, 0, 1, Surcharge(time=1), 1),
    Travel("T-B1", 1, (2, 7), 3, 0, 1, Surcharge(good=_H), 2),
    Travel("T-B2", 1, (3, 9), 3, 0, 1, Surcharge(coins=1), 2),
    Travel("T-B3", 1, (5, 11), 3, 0, 1, Surcharge(time=3), 2),
    Travel("T-B4", 1, (6, 10), 3, 0, 1, Surcharge(good=_C), 2),
    Travel("T-C1", 2, (4, 8), 3, 1, 2, Surcharge(coins=1), 4),
    Travel("T-C2", 2, (5, 9), 3, 1, 2, Surcharge(time=2), 4),
    Travel("T-C3", 2, (3, 12), 3, 1, 2, Surcharge(good=_H), 4),
    Travel("T-C4", 2, (6, 7), 3, 1, 2, Surcharge(good=_B), 4),
    Travel("T-D1", 3, (2, 10), 4, 1, 2, Surcharge(coins=2), 6),
    Travel("T-D2", 3, (4, 11), 4, 1, 2, Surcharge(time=3), 6),
    Travel("T-D3", 3, (5, 8), 4, 1, 2, Surcharge(good=_C), 6),
    Travel("T-D4", 3, (6, 9), 4, 1, 2, Surcharge(good=_W), 6),
    Travel("T-E1", 4, (3, 7), 4, 2, 3, Surcharge(), 9),
    Travel("T-E2", 4, (4, 12), 4, 2, 3, Surcharge(), 9),
    Travel("T-E3", 4, (8, 10), 4, 2, 3, Surcharge(), 9),
)


@dataclass(frozen=True, slots=True)
class Customer:
    """A customer card (B.19); ``values == ()`` is the "?" banner. [reconstructed: R-19]
    except K01's banner/demand and K29's "?"/2 parchments [seed]."""

    id: str
    values: tuple[int, ...]
    goods: tuple[int, ...]  # good indices, sorted
    time: int
    pp: int


def _k(n: int, values: tuple[int, ...], goods: tuple[Good, ...], time: int, pp: int) -> Customer:
    return Customer(f"K{n:02d}", values, tuple(sorted(GOOD_INDEX[g] for g in goods)), time, pp)


H, B, PL, W, C = GOODS
# [reconstructed: R-19] (PP of every card; banners and demands except K01 and K29).
CUSTOMERS: tuple[Customer, ...] = (
    _k(1, (3, 11), (C,), 0, 2), _k(2, (4, 9), (H,), 0, 2), _k(3, (5, 10), (B,), 0, 2),
    _k(4, (6, 11), (PL,), 0, 2), _k(5, (2, 8), (W,), 0, 2), _k(6, (3, 7), (H,), 0, 2),
    _k(7, (4, 12), (B,), 0, 2), _k(8, (5, 9), (PL,), 0, 2), _k(9, (6, 10), (W,), 0, 2),
    _k(10, (7,), (C,), 0, 2), _k(11, (2, 9), (H, H), 0, 4), _k(12, (3, 8), (B, B), 0, 4),
    _k(13, (4, 11), (PL, PL), 0, 4), _k(14, (5, 12), (W, W), 0, 4),
    _k(15, (6, 7), (C, C), 0, 4), _k(16, (3, 10), (H, B), 0, 5), _k(17, (4, 8), (B, PL), 0, 5),
    _k(18, (5, 11), (PL, W), 0, 5), _k(19, (2, 6), (W, C), 0, 5),
    _k(20, (7, 12), (C, H), 0, 5), _k(21, (3, 9), (H, PL), 0, 5), _k(22, (4, 10), (B, W), 0, 5),
    _k(23, (8, 11), (PL, C), 0, 5), _k(24, (6, 9), (H, B, PL), 1, 7),
    _k(25, (5, 8), (B, PL, W), 1, 7), _k(26, (2, 10), (PL, W, C), 1, 7),
    _k(27, (7, 11), (W, C, H), 1, 7), _k(28, (3, 12), (C, H, B), 1, 7),
    _k(29, (), (W, W), 0, 3), _k(30, (), (H, H), 0, 3), _k(31, (), (B, B), 0, 3),
    _k(32, (), (PL, PL), 0, 3), _k(33, (), (C, C), 0, 3),
)  # fmt: skip

CHURCH_BY_ID: dict[str, Church] = {c.id: c for c in CHURCHES}
CHAMBER_BY_ID: dict[str, Chamber] = {c.id: c for c in CHAMBERS}
MONK_BY_ID: dict[str, Monk] = {m.id: m for m in MONKS}
CRAFT_BY_ID: dict[str, Craft] = {c.id: c for c in CRAFTS}
TRAVEL_BY_ID: dict[str, Travel] = {t.id: t for t in TRAVELS}
CUSTOMER_BY_ID: dict[str, Customer] = {c.id: c for c in CUSTOMERS}

#: Total village cards (B.2): conserved through the game.
TOTAL_CARDS = (
    len(CHURCHES) + len(CHAMBERS) + MEETING_POINTS + len(MONKS) + FIELDS + len(CUSTOMERS)
    + len(TRAVELS) + len(CRAFTS)
)  # fmt: skip
