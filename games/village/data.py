"""All Village game data, straight from ``shared/rules/village.md`` (Part A, Appendix Y).

Rules code indexes these tables with small ints (see the ``*_NAMES`` tuples for the order,
which is the spec's canonical order, V-DP-21). Every value the spec tags ``reconstructed``
lives here and nowhere else, commented with its tag, so a player holding the printed
components can correct it with a data change only.
"""

from __future__ import annotations

# --- Indices (canonical order, V-DP-21) -------------------------------------------------

SPACE_NAMES = ("harvest", "family", "crafts", "market", "travel", "council", "church")
HARVEST, FAMILY, CRAFTS, MARKET, TRAVEL, COUNCIL, CHURCH = range(7)

COLOUR_NAMES = ("brown", "pink", "orange", "green", "plague")
BROWN, PINK, ORANGE, GREEN, PLAGUE = range(5)
INFLUENCE = (BROWN, PINK, ORANGE, GREEN)

GOOD_NAMES = ("scroll", "horse", "plough", "ox", "wagon")
SCROLL, HORSE, PLOUGH, OX, WAGON = range(5)

BUILDING_NAMES = ("wainwright", "stables", "office", "smithy")
WAINWRIGHT, STABLES, OFFICE, SMITHY = range(4)

TOWN_NAMES = ("T1", "T2", "T3", "T4", "T5", "T6")

# Member locations. 0..18 are the visible places an option may name (V-DP-2).
FARMYARD = 0
BUILDING0 = 1  # + building index
COUNCIL0 = 5  # + stage - 1
CHURCH0 = 9  # + window - 1
TOWN0 = 13  # + town index
BAG = 19
UNBORN = 20
CHRONICLE = 21
GRAVE = 22
REMOVED = 23
NUM_LOCS = 24
VISIBLE_LOCS = tuple(range(19))
LOC_NAMES = (
    "farmyard",
    *(f"building:{b}" for b in BUILDING_NAMES),
    *(f"council:{s}" for s in range(1, 5)),
    *(f"church:{w}" for w in range(1, 5)),
    *(f"town:{t}" for t in TOWN_NAMES),
    "bag",
    "unborn",
    "chronicle",
    "grave",
    "removed",
)

# Chronicle categories (D-CHRON) and the category of each visible location.
CATEGORY_NAMES = ("council", "crafts", "travel", "church", "farmyard")
CAT_COUNCIL, CAT_CRAFTS, CAT_TRAVEL, CAT_CHURCH, CAT_FARMYARD = range(5)
LOC_CATEGORY = (
    (CAT_FARMYARD,) + (CAT_CRAFTS,) * 4 + (CAT_COUNCIL,) * 4 + (CAT_CHURCH,) * 4 + (CAT_TRAVEL,) * 6
)

# --- D-COMP, D-GEN, D-MISC ------------------------------------------------------------

PLAYER_COUNTS = (2, 3, 4)
FIGURES_PER_COLOUR = 11
GENERATIONS = (4, 3, 2, 2)  # figures of generation 1..4 per colour [seed]
MARKERS_PER_COLOUR = 8
TRAVEL_MARKERS = 6  # 8 - time marker - score marker (derived)
PLAGUE_CUBES = 6
CUBES_PER_COLOUR = 18
GOODS_PER_TYPE = 8
CUSTOMER_TILES = 24
COINS = 15
GRAIN_SACKS = 20
MONKS = 4
STARTING_COINS = 1
GRAIN_CAPACITY = 5

# --- D-TIME ---------------------------------------------------------------------------

# [reconstructed: consistent with roughly 5-7 deaths per player per game] Low (G-06)
LAP_LENGTH = 14
PLAGUE_TIME = 2

# --- D-PC / D-SEED --------------------------------------------------------------------

ROUND_TOTAL = {2: 18, 3: 21, 4: 24}  # [source: S4] Medium
# [reconstructed: must exceed the draw so that cubes carry over] Low (G-07)
BAG_ADD_PER_COLOUR = {2: 5, 3: 6, 4: 7}
# [reconstructed: per-space split of the sourced totals] Low (G-07); order = SPACE_NAMES
CUBES_PER_SPACE = {
    2: (2, 2, 2, 3, 3, 3, 3),
    3: (3, 3, 3, 3, 3, 3, 3),
    4: (4, 4, 4, 3, 3, 3, 3),
}
# Shortfall fill order (V-RND-3, G-40): the space order above.

# --- D-HARVEST ------------------------------------------------------------------------

HARVEST_BASE = 2
HARVEST_HORSE_PLOUGH = 3
HARVEST_OX_PLOUGH = 4

# --- D-CRAFT --------------------------------------------------------------------------

TRAIN_TIME = (2, 3, 1, 3)  # wainwright [seed], stables [S2], office [reconstructed G-14], smithy
PRODUCE_TIME = (2, 3, 4, 3)  # idem; office produce 4 is [reconstructed] Low (G-14)
BUILDING_GOODS = ((WAGON,), (HORSE, OX), (SCROLL,), (PLOUGH,))
# Influence price per colour (brown, pink, orange, green); None = paid in grain.
# office 2 pink and smithy 2 orange are [reconstructed] Low (G-14).
BUY_CUBES: tuple[tuple[int, int, int, int] | None, ...] = (
    (0, 1, 1, 0),
    None,
    (0, 2, 0, 0),
    (0, 0, 2, 0),
)
STABLES_BUY_GRAIN = 3
MILL_TIME = 2
MILL_GRAIN = 2
MILL_COINS = 2

# --- D-MKT ----------------------------------------------------------------------------

STALLS = 5
STALLS_IN_USE = {2: 3, 3: 4, 4: 5}
QUEUE = 5
EXTRA_SALE_GREEN = 1
EXTRA_SALE_TIME = 1

# --- D-CUST: PLACEHOLDER DECK ---------------------------------------------------------
# (id, goods demanded per type in GOOD_NAMES order, grain demanded, prestige)
# [reconstructed: placeholder] Very low (G-10), except C01 (sourced) and the demands of
# C02 and C03 (sourced; their points are placeholder-formula values).
CUSTOMERS: tuple[tuple[str, tuple[int, int, int, int, int], int, int], ...] = (
    ("C01", (0, 1, 1, 0, 0), 0, 6),
    ("C02", (0, 0, 0, 0, 0), 3, 3),
    ("C03", (1, 0, 0, 0, 0), 1, 3),
    ("C04", (0, 1, 0, 1, 0), 0, 6),
    ("C05", (0, 1, 0, 0, 1), 0, 5),
    ("C06", (1, 1, 0, 0, 0), 0, 5),
    ("C07", (0, 0, 1, 1, 0), 0, 6),
    ("C08", (0, 0, 0, 1, 1), 0, 5),
    ("C09", (1, 0, 0, 1, 0), 0, 5),
    ("C10", (0, 0, 1, 0, 1), 0, 5),
    ("C11", (1, 0, 1, 0, 0), 0, 5),
    ("C12", (1, 0, 0, 0, 1), 0, 4),
    ("C13", (0, 1, 0, 0, 0), 1, 4),
    ("C14", (0, 0, 0, 1, 0), 1, 4),
    ("C15", (0, 0, 1, 0, 0), 1, 4),
    ("C16", (0, 0, 0, 0, 1), 1, 3),
    ("C17", (0, 1, 0, 0, 0), 2, 5),
    ("C18", (0, 0, 0, 1, 0), 2, 5),
    ("C19", (0, 0, 1, 0, 0), 2, 5),
    ("C20", (0, 0, 0, 0, 1), 2, 4),
    ("C21", (1, 0, 0, 0, 0), 2, 4),
    ("C22", (0, 0, 0, 0, 0), 2, 2),
    ("C23", (0, 0, 0, 0, 0), 4, 4),
    ("C24", (0, 0, 0, 0, 0), 5, 5),
)

# --- D-TRV: PLACEHOLDER MAP -----------------------------------------------------------

REWARD_PRESTIGE, REWARD_COIN, REWARD_CUBES = range(3)
# Town rewards: T1 = 3 prestige [seed]; all others [reconstructed: placeholder] Very low (G-11)
TOWN_REWARD = (
    REWARD_PRESTIGE,
    REWARD_COIN,
    REWARD_CUBES,
    REWARD_COIN,
    REWARD_CUBES,
    REWARD_PRESTIGE,
)
TOWN_PRESTIGE = 3
TOWN_COINS = 1
TOWN_CUBES = 2
VILLAGE = -1
# (a, b, time, wagons, cube colour, cubes): VILLAGE-T1 [seed], VILLAGE-T2 [seed, Medium];
# every other path [reconstructed: placeholder] Very low (G-11).
PATHS = (
    (VILLAGE, 0, 2, 1, BROWN, 2),
    (VILLAGE, 1, 2, 1, PINK, 2),
    (0, 2, 2, 1, ORANGE, 2),
    (0, 3, 2, 1, PINK, 2),
    (1, 3, 2, 1, ORANGE, 2),
    (1, 4, 2, 1, BROWN, 2),
    (2, 5, 2, 1, PINK, 2),
    (3, 5, 2, 1, BROWN, 2),
    (4, 5, 2, 1, ORANGE, 2),
)
TRAVEL_SCORE = (0, 1, 3, 6, 10, 14, 18)  # D-TRV-SCORE [seed]

# --- D-CNC ----------------------------------------------------------------------------

COUNCIL_ENTER_TIME = 1
COUNCIL_GREEN = 2
COUNCIL_SCROLL = 1
# Time to advance to stage 2, 3, 4 [reconstructed: "2 or 3 depending on the stage"] Low (G-05)
COUNCIL_ADVANCE_TIME = {2: 2, 3: 2, 4: 3}
COUNCIL_POINTS = (0, 2, 4, 6)  # per member on stage 1..4 [seed]
PRIVILEGE_CUBES = 2
STAGE4_COIN = 1
STAGE4_PRESTIGE = 3

# --- D-CHU ----------------------------------------------------------------------------

CHURCH_BROWN = 1
CHURCH_TIME = 3
WINDOW_POINTS = (2, 3, 4, 6)  # windows 1..4 [seed]
# Grain to move from window w to w+1 (w = 1, 2, 3) [reconstructed: fits T-04] Low-Medium (G-04)
WINDOW_STEP_GRAIN = (1, 2, 2)
MASS_DRAW = 4
BUYOUT_COIN = 1
MAJORITY_POINTS = 2

# --- D-CHRON --------------------------------------------------------------------------

# [reconstructed] Low (G-09): usable chronicle spaces per category and graves.
CHRONICLE_PER_CATEGORY = {2: 2, 3: 3, 4: 4}
GRAVES = {2: 4, 3: 5, 4: 6}
CHRONICLE_SCORE = (0, 0, 0, 4, 7, 12)  # index = members, capped at 5 [seed]

# --- Well -----------------------------------------------------------------------------

WELL_CUBES = 3  # [seed]
WELL_MAX_COINS_WITH_COLOUR = 2  # V-DP-5: PAY_WELL(colour, k) with k <= 2; 3 coins = coins only

# --- Adjacency derived from PATHS -----------------------------------------------------


def _adjacency() -> tuple[tuple[tuple[int, int], ...], ...]:
    """For VILLAGE (index 0) and each town (index t + 1): (destination, path index) pairs."""
    out: list[list[tuple[int, int]]] = [[] for _ in range(len(TOWN_NAMES) + 1)]
    for i, (a, b, *_rest) in enumerate(PATHS):
        out[a + 1].append((b, i))
        if a != VILLAGE:
            out[b + 1].append((a, i))
    return tuple(tuple(sorted(x)) for x in out)


ADJACENT = _adjacency()

# --- Cache keys ------------------------------------------------------------------------

# bytes.translate tables: a player's counts (all < 256) become small, hashable cache keys
# at C speed, e.g. ``bytes(counts).translate(OCCUPIED)``. OCCUPIED maps a count to 0/1;
# CAP2 caps it at 2, the most a craft price asks of one colour (D-CRAFT).
OCCUPIED = bytes([0] + [1] * 255)
CAP2 = bytes(min(i, 2) for i in range(256))
