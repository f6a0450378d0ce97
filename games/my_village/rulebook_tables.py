"""The My Village rulebook's data tables, generated from :mod:`games.my_village.data`.

``docs/rules/my-village.md`` holds each table between ``<!-- table: NAME ... -->`` and
``<!-- /table -->`` marker lines; regenerating the rulebook replaces the text between them
with ``tables()[NAME]``, and a test checks that nothing changes, so the rulebook cannot
drift from the data the engine plays with. Every value is read from ``data`` when
:func:`tables` is called (never copied at import), so a data change is a table change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final

from games.my_village import data

#: A cost or effect of nothing.
NONE: Final = "—"
ROMAN: Final = ("I", "II", "III", "IV", "V", "VI")


def _table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A markdown table; every cell is ``str()`` of its value."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _values(values: Sequence[int]) -> str:
    """A banner's values as printed: ``5/9``; no value at all is the "?" banner."""
    return "/".join(str(v) for v in values) if values else "?"


def _amount(n: int, unit: str, plural: str = "") -> str:
    """``n`` of ``unit`` (``—`` for none)."""
    if not n:
        return NONE
    return f"{n} {unit if n == 1 else plural or unit + 's'}"


def _goods(goods: Iterable[int]) -> str:
    """Good indices as ``1 horse, 2 beer`` in the order the goods first appear."""
    counts: dict[int, int] = {}
    for g in goods:
        counts[g] = counts.get(g, 0) + 1
    return ", ".join(f"{n} {data.GOODS[g].value}" for g, n in counts.items()) or NONE


def _costs(coins: int, goods: Iterable[int] = ()) -> str:
    """An extra cost: coins and goods (``—`` for none)."""
    parts = [p for p in (_amount(coins, "coin"), _goods(goods)) if p != NONE]
    return " + ".join(parts) or NONE


def _good_ids(goods: Iterable[data.Good]) -> list[int]:
    return [data.GOOD_INDEX[g] for g in goods]


def card_counts() -> str:
    """B.2: the village cards by type."""
    rows = [
        ("Church", len(data.CHURCHES), "all different"),
        ("Council chamber", len(data.CHAMBERS), "all different"),
        ("Meeting point", data.MEETING_POINTS, "identical"),
        ("Monk", len(data.MONKS), _monk_mix()),
        ("Field", data.FIELDS, "identical"),
        ("Customer", len(data.CUSTOMERS), "all different"),
        ("Travel", len(data.TRAVELS), _letter_mix()),
        ("Craft building", len(data.CRAFTS), f"{len(data.CRAFT_KINDS)} kinds"),
        ("**All village cards**", f"**{data.TOTAL_CARDS}**", ""),
    ]
    return _table(("Card type", "Cards", "Make-up"), rows)


def _monk_mix() -> str:
    return ", ".join(
        f"{sum(1 for m in data.MONKS if m.symbol is s)} {s.value}" for s in data.MONK_SYMBOLS
    )


def _letter_mix() -> str:
    return ", ".join(
        f"{letter}×{sum(1 for t in data.TRAVELS if t.letter == i)}"
        for i, letter in enumerate(data.LETTERS)
    )


def goods() -> str:
    """B.11: the goods and the craft building that makes each."""
    rows = [
        (
            g.value,
            data.CRAFT_KINDS[i],
            "can lie on a field's plough space" if i == data.PLOUGH else "",
        )
        for i, g in enumerate(data.GOODS)
    ]
    rows.append(("wildcard", "guild council (CC-2)", "pays as any one good; can become a plough"))
    return _table(("Good", "Made by", "Note"), rows)


def player_counts() -> str:
    """B.3: everything that depends on the number of players."""
    counts = sorted(data.PLAYER_COUNTS)
    rules = [data.PLAYER_COUNTS[n] for n in counts]

    def row(label: str, cell: Callable[[int, data.CountRules], object]) -> list[object]:
        return [label, *(cell(n, r) for n, r in zip(counts, rules, strict=True))]

    rows = [
        row("White dice rolled", lambda _, r: r.white_dice),
        row("Black dice rolled", lambda _, r: r.black_dice),
        row("Turns per player per round", lambda _, r: r.turns_per_player),
        row("Dice taken per round", lambda n, r: 2 * n * r.turns_per_player),
        row(
            "Dice left over",
            lambda n, r: r.white_dice + r.black_dice - 2 * n * r.turns_per_player,
        ),
        row("Filled coffins that end the game", lambda _, r: r.end_coffins),
        row("Rat start space", lambda _, r: r.rat_start),
        row("Starting coins, seat by seat from the first player",
            lambda n, _: ", ".join(str(c) for c in data.START_COINS[:n])),
    ]  # fmt: skip
    return _table(("", *(f"{n} players" for n in counts)), rows)


def board() -> str:
    """B.4, B.5, B.10: the fixed numbers of a village board and of the main board."""
    crafts = "top card of each column only" if data.CRAFT_ONLY_TOP_VISIBLE else "every card"
    rows: list[tuple[object, ...]] = [
        ("Villager spaces", ", ".join(p.value for p in data.PROFESSIONS)),
        ("Time track", f"{data.TIME_TRACK} cloud spaces per lap; each bridge crossing = 1 death"),
        ("Black die taken", f"{data.BLACK_DIE_TIME} time each"),
        ("Play banner (white)", f"{data.PLAY_TIME} time; +{data.PLAY_SP} SP"),
        ("School banner (white)", f"{_values(data.SCHOOL_VALUES)}; moving a marker onto a "
         f"villager space costs {data.SCHOOL_MOVE_TIME} time, from RIGHT it also gives "
         f"+{data.SCHOOL_RIGHT_SP} SP"),
        ("Chronicle, the village black ? banner", f"any value; {data.CHRONICLE_TIME} time; "
         "all story tree SP go to the main house"),
        ("Chronicle spaces (coffins)", f"{len(data.CHRONICLE_SP)} per profession: "
         + ", then ".join(f"+{sp} SP" for sp in data.CHRONICLE_SP)),
        ("Church windows", f"at most {data.MAX_WINDOWS} count; at most {data.MAX_MONKS} monks"),
        ("Customer display", f"{data.DISPLAY_SIZE} cards, refilled from the deck"),
        ("Craft buildings on offer", crafts),
        ("Day labourer tile", f"{data.DAY_LABOURER_PP} PP"),
        ("First-player hand at the end", f"+{data.HAND_PP} PP to its holder"),
        ("Round limit (engine safeguard, not a rule)", f"{data.MAX_ROUNDS} rounds"),
    ]  # fmt: skip
    return _table(("Element", "Value"), rows)


def play_banners() -> str:
    """B.4 / R-11: the play banner values of each village board."""
    rows = [(ROMAN[i], i, _values(v)) for i, v in enumerate(data.PLAY_VALUES)]
    return _table(("Board", "`board` in the observation", "Play banner"), rows)


def windows() -> str:
    """B.7: church windows to prestige points."""
    header = ("Windows", *(str(w) for w in range(len(data.WINDOW_PP))))
    return _table(header, [("PP", *data.WINDOW_PP)])


def rat_track() -> str:
    """B.6: the rat track, its halting spaces and start spaces."""
    rows = []
    for i in range(data.RAT_TRACK):
        colour = "red" if i in data.RAT_RED else "grey" if i in data.RAT_GREY else "normal"
        meaning = []
        if i in data.RAT_RED:
            meaning.append(f"plague: lose 1/{data.PLAGUE_DIVISOR} of the story tree (rounded down)")
        if i in data.RAT_HALT:
            meaning.append("the rat stops here")
        meaning += [f"{n}-player start" for n, r in data.PLAYER_COUNTS.items() if r.rat_start == i]
        rows.append((i, colour, "; ".join(meaning) or NONE))
    return _table(("Space (`rat`)", "Colour", "Meaning"), rows)


def public_banners() -> str:
    """B.8: the black banners on the table that are not cards."""
    rows = [
        ("`HAND`", "First-player hand", _values(data.HAND_VALUES), data.HAND_TIME, NONE),
        ("`OVERSEER`", "Overseer's office", _values(data.OVERSEER_VALUES), "by number taken",
         "by number taken"),
    ]  # fmt: skip
    return _table(("`banner`", "Banner", "Values", "Time", "Coins"), rows)


def overseer_costs() -> str:
    """B.9: the overseer's price by number of customers taken."""
    rows = [(n, coins, time) for n, (coins, time) in sorted(data.OVERSEER_COST.items())]
    return _table(("Customers taken", "Coins", "Time"), rows)


def churches() -> str:
    """B.12: the church cards."""
    rows = []
    for c in data.CHURCHES:
        passive = []
        if c.windows:
            passive.append(f"counts as {c.windows} window; at most {c.monk_limit} monks")
        if c.plague_immune:
            passive.append("no loss at rat plagues")
        if c.white_action is data.ChurchAction.CUSTOMER:
            white = "take 1 display customer into your waiting row"
        else:
            white = f"+{c.white_sp} SP"
        rows.append((c.id, c.name, _values(c.values), c.black_time, _costs(c.black_coins),
                     "; ".join(passive) or NONE, c.white_time, white, c.pp))  # fmt: skip
    header = ("ID", "Name", "Banner", "Black time", "Black cost", "Passive", "White time",
              "White action", "PP")  # fmt: skip
    return _table(header, rows)


def _chamber_action(c: data.Chamber) -> str:
    if c.action is data.ChamberAction.COINS:
        return f"+{c.amount} coins"
    if c.action is data.ChamberAction.WILDCARD:
        return f"+1 wildcard good (at most {data.WILDCARD_SPACES} on the card)"
    if c.action is data.ChamberAction.REGISTRY:
        return f"mark 1 unmarked category (at most {data.REGISTRY_MARKERS} marks)"
    return f"move up to {c.amount} SP from the story tree to the main house"


def council_chambers() -> str:
    """B.13: the council chamber cards (the action is the same on acquiring and white)."""
    rows = [
        (c.id, c.name, _values(c.values), c.black_time,
         _costs(c.black_coins, _good_ids(c.black_goods)), c.white_time, _chamber_action(c),
         c.pp if c.action is not data.ChamberAction.REGISTRY else f"{c.pp} + marked categories")
        for c in data.CHAMBERS
    ]  # fmt: skip
    header = ("ID", "Name", "Banner", "Black time", "Black cost", "White time",
              "Action (on acquiring and white)", "PP")  # fmt: skip
    return _table(header, rows)


def registry_categories() -> str:
    """B.13 / R-21: the land registry's categories, as ``MarkCategory.category`` names them."""
    counts = (
        "church card + monks",
        "council chamber + meeting point",
        "fields",
        "travel cards",
        "craft buildings",
        "served customers",
    )
    return _table(("`category`", "Counts 1 PP per"), zip(data.CATEGORIES, counts, strict=True))


def meeting_point() -> str:
    """B.14: the meeting point card (all copies identical)."""
    rows = [
        ("Black banner", f"{_values(data.MP_BLACK_VALUES)}; {data.MP_BLACK_TIME} time + "
         f"{_amount(data.MP_BLACK_COINS, 'coin')}; places its first marker"),
        ("White banner", f"{_values(data.MP_WHITE_VALUES)} (the 2/12 tile); "
         f"{data.MP_WHITE_TIME} time + {_amount(data.MP_WHITE_COINS, 'coin')}; +1 marker"),
        ("Marker capacity", data.MP_CAPACITY),
        ("PP", data.MP_PP),
    ]  # fmt: skip
    return _table(("Meeting point", "Value"), rows)


def _monk_effect(m: data.Monk) -> str:
    parts = []
    if m.save_sp:
        parts.append(f"move up to {m.save_sp} SP from the story tree to the main house")
    if m.gain_coins:
        parts.append(f"+{m.gain_coins} coins")
    if m.gain_sp:
        parts.append(f"+{m.gain_sp} SP")
    if m.school:
        parts.append("1 marker on an empty school space")
    return " and ".join(parts) or NONE


def monks() -> str:
    """B.15: the monk cards (no white banner; each is one church window)."""
    rows = [
        (m.id, m.symbol.value, f"`MONK_{m.symbol.name}`", _values(m.values), m.time,
         _costs(m.coins, _good_ids(m.goods)), _monk_effect(m))
        for m in data.MONKS
    ]  # fmt: skip
    return _table(("ID", "Stack", "`banner`", "Banner", "Time", "Cost", "On acquiring"), rows)


def fields() -> str:
    """B.16: the field card (all copies identical)."""
    rows = [
        ("Black banner", f"{_values(data.FIELD_VALUES)}; {data.FIELD_BLACK_TIME} time; "
         f"+{data.FIELD_ACQUIRE_COINS} coin on acquiring"),
        ("White banner", f"{_values(data.FIELD_VALUES)}; {data.FIELD_WHITE_TIME} time; "
         f"+{data.FIELD_WHITE_COINS} coin, +{data.FIELD_PLOUGH_BONUS} more with a plough on it"),
        ("PP", data.FIELD_PP),
    ]  # fmt: skip
    return _table(("Field", "Value"), rows)


def crafts() -> str:
    """B.17: the craft buildings (black and white banners show the same values)."""
    rows = [
        (c.id, data.CRAFT_KINDS[c.good], data.GOODS[c.good].value, _values(c.values),
         c.black_time, _costs(c.black_coins), c.white_time, c.spaces)
        for c in data.CRAFTS
    ]  # fmt: skip
    header = ("ID", "Kind", "Good", "Banner", "Black time", "Black cost", "White time",
              "Good spaces")  # fmt: skip
    return _table(header, rows)


def _surcharge(s: data.Surcharge) -> str:
    parts = [_amount(s.coins, "coin"), _amount(s.time, "time", "time")]
    if s.good >= 0:
        parts.append(f"1 {data.GOODS[s.good].value}")
    return " + ".join(p for p in parts if p != NONE) or NONE


def travel() -> str:
    """B.18: the travel cards (no white banner)."""
    rows = [
        (t.id, data.LETTERS[t.letter], _values(t.values), t.time, _costs(t.coins), t.sp,
         _surcharge(t.surcharge), t.pp)
        for t in data.TRAVELS
    ]  # fmt: skip
    header = ("ID", "Letter", "Banner", "Time", "Cost", "SP on acquiring",
              "Surcharge on the next letter", "PP")  # fmt: skip
    return _table(header, rows)


def customers() -> str:
    """B.19: the customer cards (white banner only)."""
    rows = [(c.id, _values(c.values), _goods(c.goods), c.time, c.pp) for c in data.CUSTOMERS]
    return _table(("ID", "Banner", "Goods demanded", "Time", "PP when served"), rows)


#: Block name -> generator, in rulebook order.
BLOCKS: Final[dict[str, Callable[[], str]]] = {
    "card-counts": card_counts,
    "goods": goods,
    "player-counts": player_counts,
    "board": board,
    "play-banners": play_banners,
    "windows": windows,
    "rat-track": rat_track,
    "public-banners": public_banners,
    "overseer-costs": overseer_costs,
    "churches": churches,
    "council-chambers": council_chambers,
    "registry-categories": registry_categories,
    "meeting-point": meeting_point,
    "monks": monks,
    "fields": fields,
    "crafts": crafts,
    "travel": travel,
    "customers": customers,
}


def tables() -> dict[str, str]:
    """Every generated table of the rulebook, markdown text by block name."""
    return {name: make() for name, make in BLOCKS.items()}


__all__ = ["BLOCKS", "tables"]
