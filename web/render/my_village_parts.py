"""My Village drawing pieces: dice with pips, banners, goods, cards and short card names.

The board modules (:mod:`web.render.my_village_table`, :mod:`web.render.my_village_village`)
compose these. Printed card facts (banner values, demanded goods, prestige points) come from
``games.my_village.data``, the static card tables; the state only says which card is where.
Every text is at least 12 px at the board's natural size (800 units wide, shown at 800 px).
"""

from __future__ import annotations

from collections.abc import Sequence

from games.my_village import data
from web.render.svg import Svg

#: The smallest text size on the board (the issue asks for at least 12 px).
SMALL = "12"
#: Ink for secondary text (dark enough on white and on the pale card fills).
MUTED = "#444"

#: The edge of a banner that shows the turn's banner value.
LIT = "#E69F00"
#: Goods: fill, a two-letter mark (the second cue beside the colour), ink.
GOOD_STYLE: dict[str, tuple[str, str, str]] = {
    "horse": ("#8C564B", "Ho", "#fff"),
    "beer": ("#E69F00", "Be", "#000"),
    "plough": ("#7F7F7F", "Pl", "#fff"),
    "parchment": ("#F0E2B6", "Pa", "#000"),
    "cart": ("#0072B2", "Ca", "#fff"),
    "wildcard": ("#CC79A7", "Wi", "#000"),
}
#: Card fills by kind (pale, so the black text on them stays readable).
CARD_FILL = {
    "church": "#EDE7F6",
    "chamber": "#E3F2FD",
    "meeting": "#E0F2F1",
    "monk": "#F3E5F5",
    "field": "#F1F8E9",
    "travel": "#FFF3E0",
    "craft": "#EFEBE9",
    "customer": "#FFFDE7",
}
ROMAN = ("I", "II", "III", "IV")
PIPS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)),
}


def values_text(values: Sequence[int]) -> str:
    """A banner's values as printed ("5/8"; "?" for a customer that takes any value)."""
    return "/".join(str(v) for v in values) if values else "?"


def die(svg: Svg, colour: str, pips: int, x: float, y: float, size: float = 28) -> None:
    """A die showing ``pips`` as dots, with its value as the tooltip: ``colour`` is "white",
    "black", or "taken" (a die a seat took, its colour not in the state: grey)."""
    fill, ink = {"black": ("#222", "#fff"), "taken": ("#d9d9d9", "#222")}.get(
        colour, ("#fff", "#222")
    )
    tip = f"a die taken, showing {pips}" if colour == "taken" else f"{colour} die showing {pips}"
    svg.rect(x, y, size, size, tip, fill=fill, stroke="#000", rx="5")
    step = size / 4
    for col, row in PIPS.get(pips, ()):
        svg.el(
            "circle",
            cx=_n(x + step * (col + 1)),
            cy=_n(y + step * (row + 1)),
            r=_n(size / 11),
            fill=ink,
        )


def shows(values: Sequence[int], value: int) -> bool:
    """True if a banner with ``values`` takes the turn's banner ``value`` (0: none yet);
    a banner without values ("?") takes any."""
    return bool(value) and (value in values or not values)


def banner(
    svg: Svg, x: float, y: float, values: Sequence[int], black: bool, w: float = 40, value: int = 0
) -> None:
    """A banner flag (black or white) with its values; the notch marks it as a banner. A
    banner that shows the turn's banner ``value`` gets a thick orange edge."""
    fill, ink = ("#222", "#fff") if black else ("#fff", "#000")
    lit = shows(values, value)
    h = 18
    points = f"{_n(x)},{_n(y)} {_n(x + w)},{_n(y)} {_n(x + w - 5)},{_n(y + h / 2)} "
    points += f"{_n(x + w)},{_n(y + h)} {_n(x)},{_n(y + h)}"
    kind = "black" if black else "white"
    svg.el(
        "polygon",
        f"{kind} banner {values_text(values)}" + (f", shows the value {value}" if lit else ""),
        points=points,
        fill=fill,
        stroke=LIT if lit else "#000",
        stroke_width="3" if lit else "1",
    )
    svg.text(
        x + (w - 5) / 2,
        y + 13.5,
        values_text(values),
        font_size=SMALL,
        font_weight="bold",
        text_anchor="middle",
        fill=ink,
    )


def good(svg: Svg, name: str, x: float, y: float, filled: bool = True) -> None:
    """One good (a marker on a card): its colour and two letters; an empty space if not
    ``filled``."""
    fill, mark, ink = GOOD_STYLE.get(name, ("#bbb", name[:2].title(), "#000"))
    if not filled:
        svg.rect(
            x,
            y,
            22,
            16,
            f"free {name} space",
            fill="#fff",
            stroke="#888",
            stroke_dasharray="3 2",
            rx="3",
        )
        return
    svg.rect(x, y, 22, 16, name, fill=fill, stroke="#000", rx="3")
    svg.text(x + 11, y + 12.5, mark, font_size=SMALL, text_anchor="middle", fill=ink)


def card(
    svg: Svg,
    x: float,
    y: float,
    w: float,
    h: float,
    kind: str,
    title: str,
    tip: str,
    dashed: bool = False,
) -> None:
    """A card's outline in its kind's fill with its title on the first line."""
    svg.rect(
        x,
        y,
        w,
        h,
        tip,
        fill="#fafafa" if dashed else CARD_FILL.get(kind, "#fff"),
        stroke="#999" if dashed else "#555",
        rx="4",
        stroke_dasharray="4 3" if dashed else None,
    )
    svg.text(
        x + 4, y + 14, title, font_size=SMALL, font_weight="bold", fill=MUTED if dashed else "#000"
    )


def card_values(card_id: str) -> tuple[int, ...]:
    """The banner values printed on a card, from the card tables (() when unknown)."""
    for table in (
        data.CHURCH_BY_ID,
        data.CHAMBER_BY_ID,
        data.MONK_BY_ID,
        data.CRAFT_BY_ID,
        data.TRAVEL_BY_ID,
        data.CUSTOMER_BY_ID,
    ):
        found = table.get(card_id)
        if found is not None:
            return tuple(found.values)
    return ()


def card_name(card_id: str) -> str:
    """A short name for a card: church and chamber names, a monk's symbol, a craft's kind."""
    if card_id in data.CHURCH_BY_ID:
        return data.CHURCH_BY_ID[card_id].name
    if card_id in data.CHAMBER_BY_ID:
        return data.CHAMBER_BY_ID[card_id].name
    if card_id in data.MONK_BY_ID:
        return f"{data.MONK_BY_ID[card_id].symbol.value} monk"
    if card_id in data.CRAFT_BY_ID:
        return data.CRAFT_KINDS[data.CRAFT_BY_ID[card_id].good]
    if card_id in data.TRAVEL_BY_ID:
        return f"travel {card_id[2]}, {data.TRAVEL_BY_ID[card_id].pp} PP"
    return card_id


def short_church(card_id: str) -> str:
    """The church's name without the word "church" (fits a small card)."""
    name = card_name(card_id)
    return name.replace("Church of ", "").replace(" church", "")


def customer_goods(card_id: str) -> list[str]:
    """The goods a customer demands, in the card's order."""
    found = data.CUSTOMER_BY_ID.get(card_id)
    return [data.GOODS[g].value for g in found.goods] if found else []


def customer_card(
    svg: Svg,
    x: float,
    y: float,
    card_id: str,
    new: bool = False,
    w: float = 96,
    compact: bool = False,
    value: int = 0,
) -> float:
    """A customer card: ID, banner values, the goods demanded, time and PP; a customer that
    arrived this turn (``new``) has a dashed orange edge. ``compact`` packs it in two lines
    (``w`` >= 120). Returns the card's height."""
    found = data.CUSTOMER_BY_ID.get(card_id)
    goods = customer_goods(card_id)
    pp = found.pp if found else 0
    time = found.time if found else 0
    tip = f"customer {card_id}: {values_text(card_values(card_id))}, wants {', '.join(goods)}"
    tip += f", {time} time, {pp} PP" + (" (new: arrived this turn)" if new else "")
    h = 42 if compact else 58
    svg.rect(
        x,
        y,
        w,
        h,
        tip,
        fill=CARD_FILL["customer"],
        rx="4",
        stroke="#D55E00" if new else "#555",
        stroke_width="2" if new else "1",
        stroke_dasharray="5 3" if new else None,
    )
    svg.text(x + 4, y + 14, card_id, font_size=SMALL, font_weight="bold")
    banner(svg, x + w - 44, y + 3, card_values(card_id), black=False, w=40, value=value)
    for i, name in enumerate(goods):
        good(svg, name, x + 4 + i * 25, y + 21)
    if compact:
        if time:
            svg.text(x + 34, y + 14, f"{time} time", font_size=SMALL, fill=MUTED)
        svg.text(x + w - 4, y + 34, f"{pp} PP", font_size=SMALL, fill=MUTED, text_anchor="end")
    else:
        svg.text(
            x + 4,
            y + 52,
            f"{pp} PP" + (f" · {time} time" if time else ""),
            font_size=SMALL,
            fill=MUTED,
        )
    return h


def _n(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")
