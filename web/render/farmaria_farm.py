"""Farmaria's goods as tokens, the fields of a farm and each seat's panel.

A good is a token in the colour of its kind with a two-letter name on it (the second cue;
the legend under the board spells them out): trees are round, animals are rounded, the
tractor is square. A field is a green plot with its stables as barns holding the animals
inside them, and the animals, trees and tractor standing outside below them.
"""

from __future__ import annotations

from games.farmaria import data
from web.render.common import as_dict, as_list, num, seat_label
from web.render.svg import Svg

# good -> (letters on the token, fill, ink, shape); printed names are the card ids.
TOKENS: dict[str, tuple[str, str, str, str]] = {
    "tractor": ("Tr", "#C0392B", "#fff", "square"),
    "apple": ("Ap", "#2E7D32", "#fff", "round"),
    "olive": ("Ol", "#6B8E23", "#fff", "round"),
    "orange": ("Or", "#E67E22", "#000", "round"),
    "hen": ("He", "#FFF3B0", "#000", "small"),
    "rooster": ("Ro", "#F1C40F", "#000", "small"),
    "sheep": ("Sh", "#FFFFFF", "#000", "animal"),
    "ram": ("Ra", "#BDBDBD", "#000", "animal"),
    "cow": ("Co", "#A1887F", "#000", "animal"),
    "bull": ("Bu", "#5D4037", "#fff", "animal"),
    "horse": ("Ho", "#8E44AD", "#fff", "animal"),
}
FIELD_W, FIELD_H, TOKEN = 152, 118, 22
#: Room (in half-spaces, as the printed cards count it) of the goods and of a field.
HALF_SPACE = {g.id: g.half_space for g in data.GOODS}
FIELD_HALF = data.FIELD_HALF_SPACES
FIELDS_PER_ROW = 5
PANEL_TOP = 62  # the panel's two lines of figures above its fields (a third if they wrap)
STATUS_X, PANEL_RIGHT = 430, 790
JAIL = (("jailed", "in jail"), ("jailed_next_year", "jail next year"))


def token(svg: Svg, good: str, x: float, y: float, tip: str | None = None) -> None:
    """The token of ``good`` with its top-left corner at (x, y), TOKEN wide."""
    letters, fill, ink, shape = TOKENS.get(good, (good[:2].title(), "#dddddd", "#000", "square"))
    label = tip or good
    common: dict[str, object] = {"fill": fill, "stroke": "#333", "stroke_width": "1"}
    if shape == "round":
        svg.el("circle", label, cx=x + TOKEN / 2, cy=y + TOKEN / 2, r=TOKEN / 2, **common)
    else:
        rx = {"square": "2", "small": "9", "animal": "6"}[shape]
        svg.rect(x, y, TOKEN, TOKEN, label, rx=rx, **common)
    svg.text(x + TOKEN / 2, y + 16, letters, font_size="12", text_anchor="middle", fill=ink)


def card_name(good: str) -> str:
    """A card id as printed on the board ("animal_thief" -> "animal thief")."""
    return good.replace("_", " ")


def field_goods(field: dict[str, object]) -> list[str]:
    """Every good on a field: the stables' animals first, then what stands outside."""
    inside = [str(a) for s in as_list(field.get("stables")) for a in as_list(s)]
    return inside + [str(a) for a in as_list(field.get("outside"))]


def draw_field(
    svg: Svg, field: dict[str, object], x: float, y: float, name: str, mark: int | None = None
) -> None:
    """One field at (x, y): stables as barns with their animals, then the goods outside,
    and the field's room in use. A group per field (``data-field``) and per stable
    (``data-stable``) keeps the drawing addressable.

    ``mark`` is the index into the field's goods (as :func:`field_goods` orders them) to ring
    in red: the animal a pending theft is after."""
    stables = [[str(a) for a in as_list(s)] for s in as_list(field.get("stables"))]
    outside = [str(a) for a in as_list(field.get("outside"))]
    tip = f"{name}: {len(stables)} stable(s); " + (", ".join(field_goods(field)) or "empty")
    svg.rect(x, y, FIELD_W - 6, FIELD_H, tip, fill="#E8F3D6", stroke="#5A7D2A", rx="4")
    svg.text(x + 5, y + 15, name, font_size="12", font_weight="bold")
    if field.get("full"):
        svg.rect(x + FIELD_W - 70, y + 3, 60, 16, f"{name} is full: +1 VP", fill="#5A7D2A", rx="3")
        svg.text(
            x + FIELD_W - 40, y + 15, "full +1", font_size="12", text_anchor="middle", fill="#fff"
        )
    # FM-FARM-8: a stable's spaces are covered only by the animals inside it
    used = sum(HALF_SPACE.get(g, 2) for g in field_goods(field))
    room = f"{_half(used)}/{FIELD_HALF // 2}"
    svg.open("g", class_="room")
    svg.el("title", f"{room} spaces covered (6 covered: the field is full, +1 VP)")
    svg.text(x + 56, y + 15, room, font_size="12", fill="#3B5A1A")
    svg.close("g")
    index = 0
    cy = y + 20
    for s, animals in enumerate(stables):
        bx = x + 4 + s * 47
        svg.open("g", class_="stable", data_stable=s)
        svg.el(
            "polygon",
            f"{name}, stable {s + 1}",
            points=f"{bx},{cy + 10} {bx + 22},{cy} {bx + 44},{cy + 10}",
            fill="#8D6E63",
            stroke="#4E342E",
        )
        svg.rect(
            bx,
            cy + 10,
            44,
            48,
            f"{name}, stable {s + 1}: " + (", ".join(animals) or "empty"),
            fill="#EFE0D0",
            stroke="#4E342E",
        )
        for i, animal in enumerate(animals[:4]):
            tx, ty = bx + 1 + (i % 2) * 21, cy + 12 + (i // 2) * 23
            _placed(svg, animal, tx, ty, index == mark, f"{animal} in stable {s + 1} of {name}")
            index += 1
        index += len(animals[4:])
        svg.close("g")
    svg.open("g", class_="outside")
    slots = _outside_slots(len(stables))
    for i, good in enumerate(outside):
        if i >= len(slots):  # more than a field can hold: never in a legal state
            svg.text(
                x + FIELD_W - 12,
                y + FIELD_H - 4,
                f"+{len(outside) - i}",
                font_size="12",
                text_anchor="end",
            )
            break
        col, row = slots[i]
        tx, ty = x + 4 + col * 23.5, y + 20 + row * 24
        _placed(svg, good, tx, ty, index == mark, f"{good} outside on {name}")
        index += 1
    svg.close("g")
    if not stables and not outside:
        svg.text(x + 5, y + 40, "empty", font_size="12", fill="#555")


def _outside_slots(stables: int) -> list[tuple[int, int]]:
    """The (column, row) cells for goods outside, in reading order: six columns and four
    rows, less the two columns by three rows each stable stands on."""
    return [
        (col, row) for row in range(4) for col in range(6) if not (row < 3 and col < 2 * stables)
    ]


def _half(halves: int) -> str:
    """Half-spaces as spaces: 9 -> "4½"."""
    return f"{halves // 2}{'½' if halves % 2 else ''}"


def _placed(svg: Svg, good: str, x: float, y: float, marked: bool, tip: str) -> None:
    if marked:
        svg.el(
            "circle",
            "the animal the thief is after",
            cx=x + TOKEN / 2,
            cy=y + TOKEN / 2,
            r=TOKEN / 2 + 4,
            fill="none",
            stroke="#D00000",
            stroke_width="3",
        )
    token(svg, good, x, y, tip)


def panel_height(player: dict[str, object]) -> float:
    """The height of one seat's panel: its figures, then a row per five fields (a farm
    without fields keeps one line for its note)."""
    fields = len(as_list(player.get("farm")))
    rows = -(-fields // FIELDS_PER_ROW)
    return _top(player) + (rows * (FIELD_H + 6) if rows else 26) + 4


def _top(player: dict[str, object]) -> float:
    """Where the fields start: below the figures and each wrapped line of badges."""
    return PANEL_TOP + 22 * max(line for *_, line in _status_items(player))


def draw_panel(
    svg: Svg,
    seat: int,
    p: dict[str, object],
    y: float,
    width: float,
    income: int | None,
    theft: tuple[int, int, int] | None,
) -> None:
    """Seat ``seat``'s panel at height ``y``: figures, hand, played cards, then the farm.

    ``theft`` is (field, goods index) of the animal a pending theft targets on this farm."""
    h = panel_height(p)
    svg.open("g", class_="seat", data_seat=seat)
    svg.rect(2, y, width - 4, h - 4, f"seat {seat + 1}", fill="#fff", stroke="#999")
    character = str(p.get("character") or "no character yet")
    vp = num(p.get("vp"))
    seat_label(svg, seat, 8, y + 6, f" · {character} · {vp} VP")
    if income is not None:
        svg.text(250, y + 19, f"income {income}/year", font_size="12", fill="#444")
    _money(svg, p, 370, y + 6)
    _hand(svg, p, 8, y + 32)
    _status(svg, p, y + 32)
    top = _top(p)
    farm = [as_dict(f) for f in as_list(p.get("farm"))]
    if not farm:
        svg.text(12, y + top + 16, "no fields yet", font_size="12", fill="#555")
    for i, field in enumerate(farm):
        row, col = divmod(i, FIELDS_PER_ROW)
        mark = theft[2] if theft is not None and theft[1] == i else None
        fx, fy = 8 + col * FIELD_W, y + top + row * (FIELD_H + 6)
        svg.open("g", class_="field", data_field=i)
        draw_field(svg, field, fx, fy, f"Field {i + 1}", mark)
        svg.close("g")
    svg.close("g")


def _money(svg: Svg, p: dict[str, object], x: float, y: float) -> None:
    """Wallet (a coin), debt (a red note) and Defamation cards (black cards)."""
    wallet, debt, defam = num(p.get("wallet")), num(p.get("debt")), num(p.get("defamations"))
    svg.el(
        "circle",
        f"wallet: {wallet} coins",
        cx=x + 8,
        cy=y + 8,
        r=8,
        fill="#F4C430",
        stroke="#8A6D00",
    )
    svg.text(x + 20, y + 13, f"wallet {wallet}", font_size="12")
    svg.rect(
        x + 90,
        y,
        16,
        16,
        f"debt: {debt} coins",
        fill="#FDE2E2" if debt else "#f4f4f4",
        stroke="#B00020" if debt else "#999",
    )
    svg.text(x + 110, y + 13, f"debt {debt}", font_size="12", fill="#B00020" if debt else "#000")
    for i in range(min(defam, 5)):
        svg.rect(x + 175 + i * 5, y, 12, 16, "a Defamation card", fill="#222", stroke="#fff")
    svg.text(
        x + 195 + min(defam, 5) * 5, y + 13, f"defamations {defam} (−{defam} VP)", font_size="12"
    )


def _hand(svg: Svg, p: dict[str, object], x: float, y: float) -> None:
    """The hand as card backs (their faces are hidden) with how they are split."""
    size = num(p.get("hand_size"))
    backs = min(size, 12)  # the count is in the text beside them
    for i in range(backs):
        svg.rect(
            x + i * 6,
            y,
            14,
            20,
            "a card in hand (face hidden)",
            fill="#3E6A8A",
            stroke="#fff",
            rx="2",
        )
    parts = [
        f"{num(p.get(key))} {word}"
        for key, word in (
            ("selected_count", "selected"),
            ("face_down_count", "face-down"),
            ("opportunity_count", "opportunity"),
        )
        if key in p
    ]
    split = f": {', '.join(parts)}" if parts else ""
    svg.text(x + backs * 6 + 14, y + 15, f"{size} in hand{split}", font_size="12")


def _status_items(p: dict[str, object]) -> list[tuple[str, str, float, int]]:
    """The jail badges and played action cards of a panel as (kind, label, x, line): laid
    out from STATUS_X on the hand's line, wrapping onto a third line of the panel."""
    items = [("jail", label) for key, label in JAIL if p.get(key)]
    played = [card_name(str(c)) for c in as_list(p.get("played"))]
    if played:
        items += [("label", "played:")] + [("card", name) for name in played]
    elif not items:
        items = [("label", "no action card played this year")]
    widths = [7 * len(label) + {"jail": 30, "label": 6, "card": 16}[kind] for kind, label in items]
    out, x, line = [], float(STATUS_X), 0
    for i, (kind, label) in enumerate(items):
        width = widths[i]
        # "played:" moves on with the first card rather than stay behind alone
        need = width + (widths[i + 1] if label == "played:" and i + 1 < len(items) else 0)
        if x + need > PANEL_RIGHT and x > 8:
            x, line = 8, line + 1
        out.append((kind, label, x, line))
        x += width
    return out


def _status(svg: Svg, p: dict[str, object], y: float) -> None:
    """Jail (bars), jail next year, and the action cards played this year (face up)."""
    for kind, label, x, line in _status_items(p):
        ty = y + line * 22
        if kind == "jail":
            svg.rect(x, ty + 2, 16, 16, label, fill="#fff", stroke="#000")
            for b in range(3):
                svg.rect(x + 3 + b * 4.5, ty + 2, 1.5, 16, None, fill="#000")
            svg.text(x + 20, ty + 15, label, font_size="12", font_weight="bold")
        elif kind == "card":
            svg.rect(
                x,
                ty + 1,
                7 * len(label) + 10,
                18,
                f"{label}: played this year",
                fill="#F3E5F5",
                stroke="#7B1FA2",
                rx="3",
            )
            svg.text(x + 5, ty + 15, label, font_size="12", fill="#4A148C")
        else:
            svg.text(x, ty + 15, label, font_size="12", fill="#555")
