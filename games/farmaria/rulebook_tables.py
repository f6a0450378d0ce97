"""The data tables of the Farmaria rulebook (``docs/rules/farmaria.md``), as markdown.

Every table is built from :mod:`games.farmaria.data` at call time, so the rulebook shows the
values the engine plays with: a change in ``data.py`` changes the table, and the rulebook
test (which splices these tables into the document and compares) fails until the document
is regenerated. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from games.farmaria import data as d

#: ``Good.cls`` -> the class as the rulebook names it
_CLASS_NAMES = {
    "field": "field",
    "building": "building",
    "machine": "machine",
    "plant": "plant",
    "small": "small animal",
    "large": "large animal",
}
#: the columns of ``GOODS_PROVENANCE`` in the order of the value tables
_PROVENANCE_COLUMNS = ("item", "cm", "emergency", "merchant", "tax", "upkeep", "income", "vp")
_COLUMN_TITLES = {
    "item": "item",
    "cm": "CM",
    "emergency": "emergency",
    "merchant": "merchant",
    "tax": "tax",
    "upkeep": "upkeep",
    "income": "income",
    "vp": "VP",
}


def _table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A markdown table (no trailing newline)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines.extend("| " + " | ".join(str(cell) for cell in row) + " |" for row in rows)
    return "\n".join(lines)


def _half(n: int) -> str:
    """Half-units (FM-CONV-3) as spaces: 1 -> "0.5", 2 -> "1"."""
    return str(n // 2) if n % 2 == 0 else f"{n / 2:g}"


def _ceil_half(n: int) -> int:
    return -(-n // 2)


def goods_prices() -> str:
    """Copies and every price of each good; the auction opening prices follow FM-ACT-7."""
    rows: list[tuple[object, ...]] = [
        (
            f"`{g.id}`",
            g.copies,
            _CLASS_NAMES[g.cls],
            g.item,
            g.cm,
            g.emergency,
            g.merchant,
            _ceil_half(g.cm),
            _ceil_half(g.item),
        )
        for g in d.GOODS
    ]
    rows.append(("**all goods**", sum(g.copies for g in d.GOODS), "", "", "", "", "", "", ""))
    return _table(
        (
            "good",
            "copies",
            "class",
            "item price",
            "CM price",
            "emergency sale",
            "merchant sale",
            "auction opens at",
            "auction opens at (Discount)",
        ),
        rows,
    )


def _space(g: d.Good) -> str:
    if g.id == d.CARD_IDS[d.FIELD]:
        return f"none (holds {_half(d.FIELD_HALF_SPACES)})"
    if g.id == d.CARD_IDS[d.STABLE]:
        return f"{_half(g.half_space)} (shelters {_half(d.STABLE_HALF_CAPACITY)} spaces of animals)"
    return _half(g.half_space)


def _income(t: int) -> str:
    g = d.GOODS[t]
    if t == d.TRACTOR:
        return f"{g.income} (+{d.TRACTOR_BONUS} to each of the owner's plants)"
    females = [d.CARD_IDS[f] for f, m in d.MALE_OF.items() if m == t]
    if females:
        return f"{g.income} (+{d.MALE_BONUS} to each `{females[0]}`)"
    return str(g.income)


def goods_holdings() -> str:
    """What owning each good means each year: room, tax, upkeep, income, VP."""
    rows = [
        (
            f"`{g.id}`",
            _space(g),
            ", ".join(x for x in (g.sex, g.species) if x) or "",
            g.tax,
            g.upkeep,
            _income(t),
            g.vp,
        )
        for t, g in enumerate(d.GOODS)
    ]
    return _table(
        ("good", "space", "sex, species", "tax (Tax years)", "upkeep", "income", "VP"), rows
    )


def goods_provenance() -> str:
    """Each good's values with their source: ``seed`` (the Greek rulebook states it), else the
    spec's derivation (``D-xx``, ``seed-derived ...``) as ``data.GOODS_PROVENANCE`` records."""
    rows = []
    for g in d.GOODS:
        tags = d.GOODS_PROVENANCE[g.id]
        values = g._asdict()
        cells = [
            f"{values[col]} ({tags[col]})" if col in tags else f"{values[col]} (seed)"
            for col in _PROVENANCE_COLUMNS
        ]
        rows.append((f"`{g.id}`", *cells))
    return _table(("good", *(_COLUMN_TITLES[c] for c in _PROVENANCE_COLUMNS)), rows)


def actions() -> str:
    """The action cards of the management deck."""
    rows: list[tuple[object, ...]] = [(f"`{a}`", n) for a, n in d.ACTIONS]
    rows.append(("**all actions**", sum(n for _, n in d.ACTIONS)))
    return _table(("action card", "copies"), rows)


def deck() -> str:
    """The two decks in numbers (FM-COMP-3, FM-COMP-4)."""
    goods = sum(g.copies for g in d.GOODS)
    acts = sum(n for _, n in d.ACTIONS)
    return _table(
        ("deck", "cards"),
        (
            ("goods cards", goods),
            ("action cards", acts),
            ("management deck (goods + actions)", goods + acts),
            ("Year Event cards", sum(n for _, n in d.EVENTS)),
        ),
    )


def events() -> str:
    """The Year Event deck; the split of the crop events is reconstructed (D-EVSPLIT)."""
    rows = []
    for e, (eid, n) in enumerate(d.EVENTS):
        crop = d.CROP_EVENTS.get(e)
        if crop is None:
            rows.append((f"`{eid}`", n, "seed", ""))
        else:
            t, delta = crop
            rows.append(
                (f"`{eid}`", n, "reconstructed (D-EVSPLIT)", f"`{d.CARD_IDS[t]}` {delta:+d}")
            )
    rows.append(("**all events**", sum(n for _, n in d.EVENTS), "", ""))
    return _table(("event", "copies", "copies are", "crop income per tree"), rows)


def characters() -> str:
    """The 14 characters: hand size (cards managed) and permanent income."""
    rows = [
        (i + 1, f"`{c.id}`", c.cards, c.income, d.SELECTION_SIZE + (i == d.VALANTIS))
        for i, c in enumerate(d.CHARACTERS)
    ]
    return _table(
        ("#", "character", "cards (hand size)", "permanent income", "cards selected in 1b"),
        rows,
    )


def constants() -> str:
    """The game's fixed numbers (section 3.7 of the spec)."""
    rows = (
        ("starting money (coins)", d.STARTING_MONEY, "`STARTING_MONEY`"),
        ("spaces per field", _half(d.FIELD_HALF_SPACES), "`FIELD_HALF_SPACES` / 2"),
        ("stable room (spaces)", _half(d.STABLE_HALF_CAPACITY), "`STABLE_HALF_CAPACITY` / 2"),
        ("stables per field, at most", d.MAX_STABLES_PER_FIELD, "`MAX_STABLES_PER_FIELD`"),
        ("Common Market positions on the board", d.CM_POSITIONS, "`CM_POSITIONS`"),
        ("cards dealt to the CM at setup", d.CM_INITIAL_CARDS, "`CM_INITIAL_CARDS`"),
        ("cards selected in 1b", d.SELECTION_SIZE, "`SELECTION_SIZE`"),
        ("coins per VP", d.COINS_PER_VP, "`COINS_PER_VP`"),
        ("VP per full field", d.FULL_FIELD_VP, "`FULL_FIELD_VP`"),
        ("VP lost per Defamation card", d.DEFAMATION_VP, "`DEFAMATION_VP`"),
        ("Horse Subsidy per horse (coins)", d.HORSE_SUBSIDY, "`HORSE_SUBSIDY`"),
        ("tractor bonus per plant (coins)", d.TRACTOR_BONUS, "`TRACTOR_BONUS`"),
        ("male bonus per female (coins)", d.MALE_BONUS, "`MALE_BONUS`"),
        ("cards drawn by an Opportunity", d.OPPORTUNITY_DRAW, "`OPPORTUNITY_DRAW`"),
        ("interest-free loan, up to (coins)", d.INTEREST_FREE_UP_TO, "`INTEREST_FREE_UP_TO`"),
        (
            "interest per started step",
            f"{d.INTEREST_PER_STEP} per {d.INTEREST_STEP} coins",
            "`INTEREST_PER_STEP`, `INTEREST_STEP`",
        ),
    )  # fmt: skip
    return _table(("constant", "value", "in `data.py`"), rows)


def player_counts() -> str:
    """Per player count: the active CM positions (FM-CM-1) and the end conditions."""
    rows = [(n, n + 2, c.years, c.vp, c.full_fields) for n, c in sorted(d.END_CONDITIONS.items())]
    return _table(
        (
            "players",
            "active CM positions (players + 2)",
            "year limit",
            "VP that end the game",
            "full fields (one player) that end the game",
        ),
        rows,
    )


def interest_rows(up_to: int = 20) -> list[tuple[int, int, int]]:
    """(smallest loan, largest loan, interest) bands up to ``up_to`` coins (FM-LOAN-1)."""
    bands = [(1, d.INTEREST_FREE_UP_TO, 0)]
    step = 1
    while step * d.INTEREST_STEP <= up_to:
        low = max(d.INTEREST_FREE_UP_TO + 1, (step - 1) * d.INTEREST_STEP + 1)
        bands.append((low, step * d.INTEREST_STEP, step * d.INTEREST_PER_STEP))
        step += 1
    return bands


def interest() -> str:
    """The loan interest table (FM-LOAN-1), continued by its pattern."""
    rows: list[tuple[object, ...]] = [(f"{lo}–{hi}", i) for lo, hi, i in interest_rows()]
    rows.append(("and so on", f"+{d.INTEREST_PER_STEP} per {d.INTEREST_STEP} more coins"))
    return _table(("loan (coins)", "interest (coins)"), rows)


def tables() -> dict[str, str]:
    """Every generated block of the rulebook, by the name its marker lines carry."""
    return {
        "deck": deck(),
        "goods-prices": goods_prices(),
        "goods-holdings": goods_holdings(),
        "actions": actions(),
        "events": events(),
        "characters": characters(),
        "constants": constants(),
        "player-counts": player_counts(),
        "interest": interest(),
        "goods-provenance": goods_provenance(),
    }
