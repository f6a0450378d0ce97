"""All Farmaria game data, straight from ``../shared/rules/farmaria.md`` (Part A).

Every value the spec tags ``[reconstructed: D-xx]`` is read from here and nowhere else, so a
player holding the printed cards can correct it with a data change only. Each table names
the provenance of its columns; ``GOODS_PROVENANCE`` keeps the per-value tags of section 3.2.
Indices: card types 0..12 are goods (in table order), 13..22 are action cards.
"""

from __future__ import annotations

from typing import Final, NamedTuple


class Good(NamedTuple):
    """One goods type (FM-COMP-3, section 3.1). Space is in half-units (FM-CONV-3)."""

    id: str
    copies: int
    cls: str  # field, building, machine, plant, small, large
    item: int
    cm: int
    emergency: int
    merchant: int
    half_space: int
    tax: int
    upkeep: int
    income: int
    vp: int
    sex: str  # female, male or "" (no pairing)
    species: str


# Section 3.1 / 3.9. Provenance per value: section 3.2 (GOODS_PROVENANCE below).
# [reconstructed: D-FIELD, D-STABLE, D-TRACTOR, D-PLANT, D-ANIMAL, D-MALE, D-HORSE, D-CM,
#  D-EMG, D-MER, D-TAX, D-UPK] for every non-seed value; the Cow row is all [seed].
GOODS: Final[tuple[Good, ...]] = (
    Good("field", 17, "field", 5, 8, 3, 6, 0, 1, 0, 0, 0, "", ""),
    Good("stable", 10, "building", 4, 7, 2, 5, 4, 1, 0, 0, 1, "", ""),
    Good("tractor", 4, "machine", 8, 11, 6, 9, 2, 1, 1, 0, 2, "", ""),
    Good("apple", 13, "plant", 4, 7, 2, 5, 2, 1, 0, 3, 1, "", ""),
    Good("olive", 11, "plant", 5, 8, 3, 6, 2, 1, 0, 3, 1, "", ""),
    Good("orange", 9, "plant", 6, 9, 4, 7, 2, 1, 0, 4, 1, "", ""),
    Good("hen", 7, "small", 3, 6, 1, 4, 1, 0, 0, 1, 1, "female", "poultry"),
    Good("rooster", 4, "small", 3, 6, 1, 4, 1, 1, 1, 0, 1, "male", "poultry"),
    Good("sheep", 7, "large", 5, 8, 3, 6, 2, 1, 1, 2, 2, "female", "ovine"),
    Good("ram", 3, "large", 5, 8, 3, 6, 2, 1, 1, 0, 2, "male", "ovine"),
    Good("cow", 5, "large", 7, 10, 5, 8, 2, 1, 1, 3, 3, "female", "bovine"),
    Good("bull", 3, "large", 7, 10, 5, 8, 2, 1, 1, 0, 3, "male", "bovine"),
    Good("horse", 4, "large", 10, 13, 8, 11, 2, 1, 1, 2, 5, "", "equine"),
)

#: Section 3.2: provenance of each reconstructed / derived value (value name -> tag).
GOODS_PROVENANCE: Final[dict[str, dict[str, str]]] = {
    "field": {
        "item": "D-FIELD",
        "cm": "D-CM",
        "emergency": "D-EMG",
        "merchant": "D-MER",
        "tax": "D-TAX",
        "upkeep": "D-UPK",
        "income": "D-FIELD",
        "vp": "seed-derived T-02",
    },
    "stable": {
        "item": "D-STABLE",
        "cm": "D-CM",
        "emergency": "D-EMG",
        "merchant": "D-MER",
        "tax": "D-TAX",
        "upkeep": "D-UPK",
        "income": "D-STABLE",
        "vp": "D-STABLE",
    },
    "tractor": {
        "item": "D-TRACTOR",
        "cm": "D-CM",
        "emergency": "D-EMG",
        "merchant": "D-MER",
        "tax": "D-TRACTOR",
        "upkeep": "D-TRACTOR",
        "vp": "D-TRACTOR",
    },
    "apple": {
        "item": "D-PLANT",
        "cm": "D-CM",
        "emergency": "D-EMG",
        "merchant": "D-MER",
        "tax": "D-TAX",
        "upkeep": "D-UPK",
        "vp": "D-PLANT",
    },
    "olive": {
        "item": "D-PLANT",
        "cm": "D-CM",
        "emergency": "D-EMG",
        "merchant": "D-MER",
        "tax": "D-TAX",
        "upkeep": "D-UPK",
    },
    "orange": {
        "item": "seed-derived CM 9 - D-CM",
        "emergency": "D-EMG",
        "merchant": "D-MER",
        "tax": "D-TAX",
        "upkeep": "D-UPK",
        "vp": "D-PLANT",
    },
    "hen": {
        "item": "D-ANIMAL",
        "cm": "D-CM",
        "emergency": "D-EMG",
        "merchant": "D-MER",
        "tax": "D-TAX",
        "upkeep": "D-UPK",
        "vp": "D-ANIMAL",
    },
    "rooster": {
        "item": "D-MALE",
        "cm": "D-CM",
        "emergency": "D-EMG",
        "merchant": "D-MER",
        "tax": "D-MALE",
        "upkeep": "D-MALE",
        "vp": "D-MALE",
    },
    "sheep": {
        "item": "D-ANIMAL",
        "cm": "D-CM",
        "emergency": "D-EMG",
        "merchant": "D-MER",
        "tax": "D-TAX",
        "upkeep": "D-UPK",
        "income": "D-ANIMAL",
    },
    "ram": {
        "item": "D-MALE",
        "cm": "D-CM",
        "emergency": "D-EMG",
        "merchant": "D-MER",
        "tax": "D-MALE",
        "upkeep": "D-MALE",
        "vp": "D-MALE",
    },
    "cow": {},
    "bull": {
        "item": "D-MALE",
        "cm": "D-CM",
        "emergency": "D-EMG",
        "merchant": "D-MER",
        "tax": "D-MALE",
        "upkeep": "D-MALE",
        "vp": "D-MALE",
    },
    "horse": {
        "item": "D-ANIMAL",
        "cm": "D-CM",
        "emergency": "D-EMG",
        "merchant": "D-MER",
        "tax": "D-TAX",
        "upkeep": "D-UPK",
        "income": "D-HORSE",
    },
}

#: Action cards (FM-COMP-3, section 3.5), all [seed]: (id, count, replacement draw on defence).
ACTIONS: Final[tuple[tuple[str, int], ...]] = (
    ("animal_thief", 3),
    ("burglar", 1),
    ("doberman", 6),
    ("police", 2),
    ("diplomacy", 7),
    ("auction", 4),
    ("opportunity", 4),
    ("insecticide", 4),
    ("vet", 4),
    ("tax_evasion", 4),
)

#: Every card type: the 13 goods then the 10 actions.
CARD_IDS: Final[tuple[str, ...]] = tuple(g.id for g in GOODS) + tuple(a for a, _ in ACTIONS)
NUM_GOODS: Final = len(GOODS)
CARD_COUNTS: Final[tuple[int, ...]] = tuple(g.copies for g in GOODS) + tuple(c for _, c in ACTIONS)

# Card type indices used by the rules code.
FIELD, STABLE, TRACTOR, APPLE, OLIVE, ORANGE = 0, 1, 2, 3, 4, 5
HEN, ROOSTER, SHEEP, RAM, COW, BULL, HORSE = 6, 7, 8, 9, 10, 11, 12
THIEF, BURGLAR, DOBERMAN, POLICE, DIPLOMACY = 13, 14, 15, 16, 17
AUCTION, OPPORTUNITY, INSECTICIDE, VET, TAX_EVASION = 18, 19, 20, 21, 22

PLANTS: Final = frozenset({APPLE, OLIVE, ORANGE})
ANIMALS: Final = frozenset({HEN, ROOSTER, SHEEP, RAM, COW, BULL, HORSE})
MALES: Final = frozenset({ROOSTER, RAM, BULL})
#: female -> the male of its species (FM-INC-2).
MALE_OF: Final[dict[int, int]] = {HEN: ROOSTER, SHEEP: RAM, COW: BULL}

#: Year Events (FM-COMP-4, section 3.4): (id, count). Crop splits are
#: [reconstructed: D-EVSPLIT] (configurable here); all other counts are [seed].
EVENTS: Final[tuple[tuple[str, int], ...]] = (
    ("apple_plus", 2),  # [reconstructed: D-EVSPLIT]
    ("apple_minus", 1),  # [reconstructed: D-EVSPLIT]
    ("olive_plus", 1),  # [reconstructed: D-EVSPLIT]
    ("olive_minus", 2),  # [reconstructed: D-EVSPLIT]
    ("orange_plus", 2),  # [reconstructed: D-EVSPLIT]
    ("orange_minus", 1),  # [reconstructed: D-EVSPLIT]
    ("horse_subsidy", 4),
    ("bad_weather", 2),
    ("merchant", 3),
    ("disease", 3),
    ("insects", 3),
    ("tax", 3),
    ("tax_audit", 6),
    ("discount", 3),
)
EV_APPLE_P, EV_APPLE_M, EV_OLIVE_P, EV_OLIVE_M, EV_ORANGE_P, EV_ORANGE_M = 0, 1, 2, 3, 4, 5
EV_HORSE, EV_BAD_WEATHER, EV_MERCHANT, EV_DISEASE, EV_INSECTS = 6, 7, 8, 9, 10
EV_TAX, EV_AUDIT, EV_DISCOUNT = 11, 12, 13
#: crop events: event -> (crop card type, delta).
CROP_EVENTS: Final[dict[int, tuple[int, int]]] = {
    EV_APPLE_P: (APPLE, 1),
    EV_APPLE_M: (APPLE, -1),
    EV_OLIVE_P: (OLIVE, 1),
    EV_OLIVE_M: (OLIVE, -1),
    EV_ORANGE_P: (ORANGE, 1),
    EV_ORANGE_M: (ORANGE, -1),
}


class Character(NamedTuple):
    """A character card (section 3.6, all [seed])."""

    id: str
    cards: int
    income: int


CHARACTERS: Final[tuple[Character, ...]] = (
    Character("vangelis", 6, 4),
    Character("alexandros", 4, 5),
    Character("lambis", 6, 3),
    Character("michalis", 4, 5),
    Character("irini", 4, 4),
    Character("paraskevi", 4, 6),
    Character("anthi", 5, 5),
    Character("giannos", 4, 5),
    Character("valantis", 5, 4),
    Character("tasos", 7, 3),
    Character("babis", 3, 7),
    Character("ioanna", 3, 4),
    Character("argyri", 4, 3),
    Character("nikos", 4, 6),
)
(
    VANGELIS,
    ALEXANDROS,
    LAMBIS,
    MICHALIS,
    IRINI,
    PARASKEVI,
    ANTHI,
    GIANNOS,
    VALANTIS,
    TASOS,
    BABIS,
    IOANNA,
    ARGYRI,
    NIKOS,
) = range(14)

# Constants (section 3.7), all [seed].
STARTING_MONEY: Final = 6
FIELD_HALF_SPACES: Final = 12  # 6 spaces
STABLE_HALF_CAPACITY: Final = 4  # 2 space units of animals
MAX_STABLES_PER_FIELD: Final = 3
CM_POSITIONS: Final = 8
CM_INITIAL_CARDS: Final = 2
SELECTION_SIZE: Final = 3
COINS_PER_VP: Final = 10
FULL_FIELD_VP: Final = 1
DEFAMATION_VP: Final = 1
HORSE_SUBSIDY: Final = 5
TRACTOR_BONUS: Final = 1
MALE_BONUS: Final = 1
OPPORTUNITY_DRAW: Final = 3
# Loan interest (FM-LOAN-1): 0 up to 2 coins, else 2 per started 5 coins.
INTEREST_FREE_UP_TO: Final = 2
INTEREST_PER_STEP: Final = 2
INTEREST_STEP: Final = 5


class EndCondition(NamedTuple):
    """Section 3.8 [seed]."""

    years: int
    vp: int
    full_fields: int


END_CONDITIONS: Final[dict[int, EndCondition]] = {
    2: EndCondition(18, 45, 3),
    3: EndCondition(12, 30, 2),
    4: EndCondition(12, 30, 2),
    5: EndCondition(10, 25, 2),
    6: EndCondition(10, 25, 2),
}
