"""The rulebook's tables (``docs/rules/village.md``), generated from :mod:`games.village.data`.

Every number in these tables is read from ``data.py``, so the rulebook and the engine cannot
drift apart: ``python -m hamlet.rulebooks`` splices :func:`tables` into the rulebook and
``tests/docs/test_rulebooks.py`` fails when the spliced text differs. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.village import data as vd


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A markdown table; cells are written with ``str``."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _amount(count: int, name: str) -> str:
    return f"{count} {name}"


def _cubes(counts: Sequence[int]) -> str:
    """Influence cubes per colour (brown, pink, orange, green order) as ``1 orange + 1 pink``."""
    parts = [_amount(k, vd.COLOUR_NAMES[c]) for c, k in enumerate(counts) if k]
    return " + ".join(parts) if parts else "nothing"


def _demand(goods: Sequence[int], grain: int) -> str:
    parts = [_amount(k, vd.GOOD_NAMES[g]) for g, k in enumerate(goods) if k]
    if grain:
        parts.append(_amount(grain, "grain"))
    return " + ".join(parts)


def _place(index: int) -> str:
    return "village" if index == vd.VILLAGE else vd.TOWN_NAMES[index]


def components() -> str:
    """D-COMP, D-GEN, D-MISC: what is in the box and what each player starts with."""
    gens = ", ".join(f"{k}× generation {g}" for g, k in enumerate(vd.GENERATIONS, 1))
    rows = [
        ("family members per player colour", vd.FIGURES_PER_COLOUR, gens),
        ("markers per player colour", vd.MARKERS_PER_COLOUR,
         f"1 time marker, 1 prestige marker, {vd.TRAVEL_MARKERS} for towns visited"),
        ("influence cubes per colour", vd.CUBES_PER_COLOUR,
         ", ".join(vd.COLOUR_NAMES[c] for c in vd.INFLUENCE)),
        ("plague cubes (black)", vd.PLAGUE_CUBES, "never a payment"),
        ("goods tiles per type", vd.GOODS_PER_TYPE, ", ".join(vd.GOOD_NAMES)),
        ("customer tiles", vd.CUSTOMER_TILES, "see the customer table"),
        ("coins", vd.COINS, f"each player starts with {vd.STARTING_COINS}"),
        ("grain sacks", vd.GRAIN_SACKS, f"a farmyard holds at most {vd.GRAIN_CAPACITY}"),
        ("black monks", vd.MONKS, "always in the black bag between masses"),
    ]  # fmt: skip
    return _table(("Component", "Count", "Notes"), rows)


def player_counts() -> str:
    """D-PC: the values that depend on the number of players."""
    counts = vd.PLAYER_COUNTS
    rows: list[list[object]] = [
        ["influence cubes of each colour added to the green bag per round",
         *(vd.BAG_ADD_PER_COLOUR[n] for n in counts)],
        ["cubes drawn onto the action spaces per round", *(vd.ROUND_TOTAL[n] for n in counts)],
        ["market stalls in use (of 5)", *(vd.STALLS_IN_USE[n] for n in counts)],
        ["market queue spaces", *(vd.QUEUE for _ in counts)],
        ["chronicle spaces per category (5 categories)",
         *(vd.CHRONICLE_PER_CATEGORY[n] for n in counts)],
        ["anonymous graves", *(vd.GRAVES[n] for n in counts)],
    ]  # fmt: skip
    return _table(("Quantity", *(f"{n} players" for n in counts)), rows)


def seeding() -> str:
    """D-SEED: cubes put on each action space at the start of a round."""
    counts = vd.PLAYER_COUNTS
    rows: list[list[object]] = [
        [name, *(vd.CUBES_PER_SPACE[n][sp] for n in counts)]
        for sp, name in enumerate(vd.SPACE_NAMES)
    ]
    rows.append(["**total**", *(f"**{sum(vd.CUBES_PER_SPACE[n])}**" for n in counts)])
    return _table(("Action space", *(f"{n} players" for n in counts)), rows)


def harvest() -> str:
    """D-HARVEST: grain gained by one harvest."""
    rows = [
        ("at least one own member on the farmyard", vd.HARVEST_BASE),
        ("... and at least 1 horse and 1 plough", vd.HARVEST_HORSE_PLOUGH),
        ("... and at least 1 ox and 1 plough", vd.HARVEST_OX_PLOUGH),
    ]
    return _table(("You hold", "Grain gained (the best line only)"), rows)


def crafts() -> str:
    """D-CRAFT: the four producing buildings and the mill."""
    rows: list[list[object]] = []
    for b, name in enumerate(vd.BUILDING_NAMES):
        goods = " or ".join(vd.GOOD_NAMES[g] for g in vd.BUILDING_GOODS[b])
        price = vd.BUY_CUBES[b]
        buy = _cubes(price) if price is not None else _amount(vd.STABLES_BUY_GRAIN, "grain")
        rows.append([name, goods, vd.TRAIN_TIME[b], vd.PRODUCE_TIME[b], buy])
    rows.append(
        [
            "mill",
            _amount(vd.MILL_COINS, "coins"),
            "(no member)",
            vd.MILL_TIME,
            f"(pay {vd.MILL_TIME} time + {vd.MILL_GRAIN} grain)",
        ]
    )
    header = ("Building", "Gives", "Train (time)", "Produce (time)", "Buy instead (no member)")
    return _table(header, rows)


def _stall(k: int) -> str:
    """``stall k``, with the player count printed on it when fewer players leave it empty."""
    first = min(n for n in vd.PLAYER_COUNTS if k <= vd.STALLS_IN_USE[n])
    return f"stall {k}" + (f" (marked {first})" if first > min(vd.PLAYER_COUNTS) else "")


def market() -> str:
    """D-MKT: the market's stalls (customers that may be served) and queue, by player count."""
    counts = vd.PLAYER_COUNTS
    used = {n: ("used",) * vd.STALLS_IN_USE[n] + ("empty",) * vd.STALLS for n in counts}
    rows: list[list[object]] = [
        [_stall(k), "may be served", *(used[n][k - 1] for n in counts)]
        for k in range(1, vd.STALLS + 1)
    ]
    rows += [
        [f"queue {k}", "waits, not served", *("used" for _ in counts)]
        for k in range(1, vd.QUEUE + 1)
    ]
    return _table(("Space", "Role", *(f"{n} players" for n in counts)), rows)


def customers() -> str:
    """D-CUST: the 24 customer tiles."""
    rows = [(cid, _demand(goods, grain), pts) for cid, goods, grain, pts in vd.CUSTOMERS]
    return _table(("Tile", "Demand (returned to the supply)", "Prestige at the end"), rows)


def towns() -> str:
    """D-TRV: the towns of the travel map and their first-visit rewards."""
    reward = {
        vd.REWARD_PRESTIGE: f"{vd.TOWN_PRESTIGE} prestige",
        vd.REWARD_COIN: _amount(vd.TOWN_COINS, "coin"),
        vd.REWARD_CUBES: f"{vd.TOWN_CUBES} influence cubes of your choice",
    }
    rows = []
    for t, name in enumerate(vd.TOWN_NAMES):
        links = ", ".join(_place(d) for d, _ in vd.ADJACENT[t + 1])
        village = any(a == vd.VILLAGE and b == t for a, b, *_ in vd.PATHS)
        rows.append((name, reward[vd.TOWN_REWARD[t]], links, "yes" if village else "no"))
    header = ("Town", "Reward (first visit)", "Paths to", "Next to the village")
    return _table(header, rows)


def paths() -> str:
    """D-TRV: the paths (both directions) and what one trip along each costs."""
    rows = [
        (f"{_place(a)} – {_place(b)}", time, wagons, _amount(k, vd.COLOUR_NAMES[c]))
        for a, b, time, wagons, c, k in vd.PATHS
    ]
    return _table(("Path", "Time", "Wagons", "Cubes"), rows)


def travel_score() -> str:
    """D-TRV-SCORE: end points by towns marked."""
    header = ("Towns marked", *(str(k) for k in range(len(vd.TRAVEL_SCORE))))
    return _table(header, [("Prestige", *vd.TRAVEL_SCORE)])


def council() -> str:
    """D-CNC: the four stages of the council chamber."""
    cost = f"{vd.COUNCIL_GREEN} green or {vd.COUNCIL_SCROLL} scroll"
    privilege = (
        "take the next-starting-player marker, if it is still in the chamber",
        f"take {vd.PRIVILEGE_CUBES} influence cubes of your choice from the supply",
        "take 1 goods tile of your choice from the supply",
        f"pay {vd.STAGE4_COIN} coin, gain {vd.STAGE4_PRESTIGE} prestige",
    )
    rows = []
    for stage in range(1, 5):
        time = vd.COUNCIL_ENTER_TIME if stage == 1 else vd.COUNCIL_ADVANCE_TIME[stage]
        how = "enter from the farmyard" if stage == 1 else f"advance from stage {stage - 1}"
        rows.append(
            (stage, f"{how}: {time} time, and {cost}", privilege[stage - 1],
             vd.COUNCIL_POINTS[stage - 1])
        )  # fmt: skip
    header = ("Stage", "To get there", "Privilege", "Prestige per member at the end")
    return _table(header, rows)


def church() -> str:
    """D-CHU: the church windows (1 = the large rightmost one, where drawn members arrive)."""
    rows = []
    for w in range(1, 5):
        step = "arrive from the black bag" if w == 1 else f"{vd.WINDOW_STEP_GRAIN[w - 2]} grain"
        rows.append((w, step, vd.WINDOW_POINTS[w - 1]))
    header = ("Window", "To move here from the window before", "Prestige per member at the end")
    return _table(header, rows)


def chronicle() -> str:
    """D-CHRON: the chronicle's categories, who goes there, and the graves."""
    counts = vd.PLAYER_COUNTS
    rows: list[list[object]] = []
    for cat, name in enumerate(vd.CATEGORY_NAMES):
        places = [vd.LOC_NAMES[loc] for loc in vd.VISIBLE_LOCS if vd.LOC_CATEGORY[loc] == cat]
        where = ", ".join(f"`{p}`" for p in places)
        rows.append([name, where, *(vd.CHRONICLE_PER_CATEGORY[n] for n in counts)])
    rows.append(
        ["anonymous graves", "anyone whose category is full", *(vd.GRAVES[n] for n in counts)]
    )
    header = ("Chronicle category", "For members who die on", *(f"{n} players" for n in counts))
    return _table(header, rows)


def chronicle_score() -> str:
    """D-CHRON-SCORE: end points by own members in the chronicle."""
    top = len(vd.CHRONICLE_SCORE) - 1
    cols = [str(k) for k in range(top)] + [f"{top} or more"]
    return _table(("Members in the chronicle", *cols), [("Prestige", *vd.CHRONICLE_SCORE)])


def costs() -> str:
    """D-TIME, D-MISC: the fixed costs and values outside the tables above."""
    rows = [
        ("time track: spaces in one lap (one death per lap)", vd.LAP_LENGTH),
        ("taking a plague cube", f"{vd.PLAGUE_TIME} time"),
        ("the well", f"return {vd.WELL_CUBES} influence cubes of one colour"),
        ("an extra sale on a market day",
         f"{vd.EXTRA_SALE_GREEN} green + {vd.EXTRA_SALE_TIME} time"),
        ("church: a member into the black bag",
         f"{vd.CHURCH_BROWN} brown or {vd.CHURCH_TIME} time"),
        ("mass: pieces that leave the black bag", vd.MASS_DRAW),
        ("mass: buying an own member out of the bag", _amount(vd.BUYOUT_COIN, "coin")),
        ("mass: most members in the church", f"{vd.MAJORITY_POINTS} prestige"),
        ("a coin", "pays for any one influence cube; 1 prestige at the end"),
    ]  # fmt: skip
    return _table(("Item", "Value"), rows)


def tables() -> dict[str, str]:
    """Every generated block of the Village rulebook, by block name."""
    return {
        "components": components(),
        "player-counts": player_counts(),
        "seeding": seeding(),
        "costs": costs(),
        "harvest": harvest(),
        "crafts": crafts(),
        "market": market(),
        "customers": customers(),
        "towns": towns(),
        "paths": paths(),
        "travel-score": travel_score(),
        "council": council(),
        "church": church(),
        "chronicle": chronicle(),
        "chronicle-score": chronicle_score(),
    }
