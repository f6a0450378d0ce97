"""Farmaria's board: the year and VP tracks, the Common Market with its basket, the deck, the
two Year Event piles with this year's events, and the used events set aside.

The tracks' lengths come from the printed end conditions for the number of players
(``games.farmaria.data``: static data, not the engine).
"""

from __future__ import annotations

from games.farmaria import data
from web.render.common import as_dict, as_list, num
from web.render.farmaria_farm import TOKEN, card_name, token
from web.render.svg import Svg

CARD_W, CARD_H, SLOT_W = 84, 96, 94
GOODS = {g.id: g for g in data.GOODS}
#: What each event reads as on its card.
EVENT_TEXT = {
    "apple_plus": "apples +1",
    "apple_minus": "apples −1",
    "olive_plus": "olives +1",
    "olive_minus": "olives −1",
    "orange_plus": "oranges +1",
    "orange_minus": "oranges −1",
    "horse_subsidy": "horse subsidy",
    "bad_weather": "bad weather",
    "merchant": "merchant",
    "disease": "disease",
    "insects": "insects",
    "tax": "tax",
    "tax_audit": "tax audit",
    "discount": "discount",
}


STATUS_TIP = {
    "in force": "in force",
    "counts once": "the same event as the other card: it counts once",
    "cancelled": "cancelled by its opposite, or overridden by bad weather or insects",
}


def event_text(event: str) -> str:
    """An event id as its card reads."""
    return EVENT_TEXT.get(event, card_name(event))


def tracks(svg: Svg, state: dict[str, object], players: int, y: float) -> float:
    """The year track with its pin and the VP track with a marker per seat; returns the
    height used."""
    end = data.END_CONDITIONS.get(players)
    years = end.years if end else max(num(state.get("year")), 1)
    goal = end.vp if end else 50
    year = num(state.get("year"))
    svg.text(8, y + 15, "Year", font_size="13", font_weight="bold")
    step = min(38.0, (svg.width - 70) / years)
    for i in range(1, years + 1):
        x = 60 + (i - 1) * step
        now = i == year
        svg.rect(
            x,
            y,
            step - 2,
            20,
            f"year {i}" + (" (now)" if now else ""),
            fill="#2E7D32" if now else ("#C8E6C9" if i < year else "#fff"),
            stroke="#5A7D2A",
        )
        svg.text(
            x + (step - 2) / 2,
            y + 15,
            str(i),
            font_size="12",
            text_anchor="middle",
            fill="#fff" if now else "#000",
        )
    if state.get("end_triggered"):
        svg.text(
            svg.width - 8,
            y + 15,
            "end triggered: last year",
            font_size="12",
            font_weight="bold",
            fill="#B00020",
            text_anchor="end",
        )
    vy = y + 28
    svg.text(8, vy + 15, "VP", font_size="13", font_weight="bold")
    cell = (svg.width - 130) / (goal + 1)
    for v in range(goal + 1):
        x = 60 + v * cell
        svg.rect(
            x,
            vy,
            cell,
            20,
            f"{v} VP",
            fill="#FFF8E1" if v % 5 else "#FFE082",
            stroke="#C9A227",
            stroke_width="0.5",
        )
        if v % 5 == 0:
            svg.text(x + cell / 2, vy + 15, str(v), font_size="12", text_anchor="middle")
    svg.text(svg.width - 8, vy + 15, f"goal {goal}", font_size="12", text_anchor="end")
    stack: dict[int, int] = {}
    for seat, p in enumerate(as_list(state.get("players"))):
        vp = num(as_dict(p).get("vp"))
        v = min(max(vp, 0), goal)
        level = stack.get(v, 0)
        stack[v] = level + 1
        svg.marker(seat, 60 + v * cell + cell / 2, vy + 30 + level * 15, 6, f"seat {seat}: {vp} VP")
    return 28 + 36 + max(stack.values(), default=1) * 15


def market(svg: Svg, state: dict[str, object], y: float) -> float:
    """The Common Market's eight positions (the used ones hold stacks) and the basket on
    the position that received the last card; returns the height used."""
    svg.text(8, y + 15, "Common Market", font_size="13", font_weight="bold")
    stacks = [as_dict(s) for s in as_list(state.get("market"))]
    marker = num(state.get("marker"))
    top = y + 22
    for pos in range(data.CM_POSITIONS):
        x = 8 + pos * SLOT_W
        svg.open("g", class_="position", data_position=pos + 1)
        if pos >= len(stacks):
            svg.rect(
                x,
                top,
                CARD_W,
                CARD_H,
                f"position {pos + 1}: not used with this many players",
                fill="#f4f4f4",
                stroke="#ccc",
                stroke_dasharray="4 3",
            )
            svg.text(
                x + CARD_W / 2,
                top + 52,
                "unused",
                font_size="12",
                text_anchor="middle",
                fill="#777",
            )
        else:
            _stack(svg, stacks[pos], x, top, pos + 1)
        svg.text(
            x + CARD_W / 2, top + CARD_H + 16, f"{pos + 1}", font_size="12", text_anchor="middle"
        )
        if pos + 1 == marker:
            _basket(svg, x + CARD_W / 2 + 14, top + CARD_H + 11)
        svg.close("g")
    return 22 + CARD_H + 24


def _stack(svg: Svg, s: dict[str, object], x: float, y: float, pos: int) -> None:
    size, top = num(s.get("size")), s.get("top")
    for i in range(min(size - 1, 3), 0, -1):  # the cards under the top one
        svg.rect(x + i * 3, y - i * 3, CARD_W, CARD_H, None, fill="#e8e8e8", stroke="#999", rx="4")
    tip = f"position {pos}: {size} card(s)"
    if top is None:
        svg.rect(
            x,
            y,
            CARD_W,
            CARD_H,
            tip + ", empty",
            fill="#fafafa",
            stroke="#bbb",
            stroke_dasharray="4 3",
            rx="4",
        )
        svg.text(x + CARD_W / 2, y + 52, "empty", font_size="12", text_anchor="middle", fill="#777")
        return
    if isinstance(top, dict) and "bundle" in top:
        field = as_dict(top["bundle"])
        svg.rect(
            x,
            y,
            CARD_W,
            CARD_H,
            tip + ": a field sold with its goods",
            fill="#fff",
            stroke="#5A7D2A",
            rx="4",
        )
        _bundle(svg, field, x, y)
    else:
        name = str(top)
        good = GOODS.get(name)
        svg.rect(
            x,
            y,
            CARD_W,
            CARD_H,
            f"{tip}: {card_name(name)} on top",
            fill="#fff" if good else "#F3E5F5",
            stroke="#555",
            rx="4",
        )
        _card_face(svg, name, x, y)
    svg.text(
        x + CARD_W - 5,
        y + CARD_H - 6,
        f"×{size}",
        font_size="12",
        text_anchor="end",
        font_weight="bold",
    )


def _card_face(svg: Svg, name: str, x: float, y: float) -> None:
    """A management card: its name, a token for a good, and the good's CM price."""
    words = card_name(name).split(" ")
    for i, word in enumerate(words[:2]):
        svg.text(
            x + CARD_W / 2,
            y + 17 + i * 14,
            word,
            font_size="12",
            text_anchor="middle",
            font_weight="bold",
        )
    good = GOODS.get(name)
    if good is None:
        svg.text(
            x + CARD_W / 2, y + 62, "action", font_size="12", text_anchor="middle", fill="#7B1FA2"
        )
        return
    if name in ("field", "stable"):
        fill = "#E8F3D6" if name == "field" else "#EFE0D0"
        svg.rect(x + CARD_W / 2 - 14, y + 36, 28, 22, name, fill=fill, stroke="#5A7D2A")
    else:
        token(svg, name, x + CARD_W / 2 - TOKEN / 2, y + 36)
    svg.text(x + 5, y + CARD_H - 6, f"{good.cm}¢", font_size="12", fill="#444")


def _bundle(svg: Svg, field: dict[str, object], x: float, y: float) -> None:
    """A field for sale with its goods, drawn small inside the card."""
    svg.text(
        x + CARD_W / 2, y + 16, "field +", font_size="12", text_anchor="middle", font_weight="bold"
    )
    goods = [str(a) for st in as_list(field.get("stables")) for a in as_list(st)]
    goods = ["stable"] * len(as_list(field.get("stables"))) + goods
    goods += [str(a) for a in as_list(field.get("outside"))]
    for i, good in enumerate(goods[:6]):
        gx, gy = x + 6 + (i % 3) * 25, y + 24 + (i // 3) * 25
        if good == "stable":
            svg.rect(gx, gy, TOKEN, TOKEN, "stable", fill="#EFE0D0", stroke="#4E342E")
            svg.text(gx + TOKEN / 2, gy + 16, "St", font_size="12", text_anchor="middle")
        else:
            token(svg, good, gx, gy)
    if len(goods) > 6:
        svg.text(x + 5, y + CARD_H - 6, f"+{len(goods) - 6}", font_size="12")


def _basket(svg: Svg, x: float, y: float) -> None:
    svg.el(
        "path",
        "the basket: this position received the last card",
        d=f"M{x - 8},{y - 6} h16 l-3,10 h-10 z",
        fill="#C68E17",
        stroke="#6D4C07",
    )


def piles(svg: Svg, state: dict[str, object], y: float) -> float:
    """The deck, the two Year Event piles, this year's events (in force or cancelled) and
    the used events set aside; returns the height used."""
    svg.text(8, y + 15, "Piles and this year's events", font_size="13", font_weight="bold")
    top = y + 24
    _back(svg, 8, top, num(state.get("deck_size")), "deck", "#3E6A8A")
    for i, size in enumerate(as_list(state.get("event_piles"))[:2]):
        _back(svg, 100 + i * 88, top, num(size), f"events {i + 1}", "#2E7D32")
    effective = {str(e) for e in as_list(state.get("effective_events"))}
    events = [str(e) for e in as_list(state.get("events"))]
    for i, event in enumerate(events):
        x = 290 + i * 100
        # identical events count once: the second card of a pair is not in force again
        live = event in effective and event not in events[:i]
        status = "in force" if live else "counts once" if event in effective else "cancelled"
        svg.open("g", class_="event", data_event=event)
        svg.rect(
            x,
            top,
            92,
            64,
            f"this year: {event_text(event)}, {STATUS_TIP[status]}",
            fill="#FFFDE7" if live else "#eeeeee",
            stroke="#2E7D32" if live else "#999",
            stroke_width="2",
            rx="4",
        )
        svg.text(
            x + 46,
            top + 26,
            event_text(event),
            font_size="12",
            text_anchor="middle",
            font_weight="bold",
            fill="#000" if live else "#666",
            text_decoration=None if live else "line-through",
        )
        svg.text(
            x + 46,
            top + 48,
            status,
            font_size="12",
            text_anchor="middle",
            fill="#2E7D32" if live else "#666",
        )
        svg.close("g")
    if not events:
        svg.text(290, top + 36, "no events revealed yet", font_size="12", fill="#555")
    used = [str(e) for e in as_list(state.get("used_events"))]
    counts: dict[str, int] = {}
    for event in used:
        counts[event] = counts.get(event, 0) + 1
    ux = 500
    svg.text(ux, top + 12, f"used events set aside ({len(used)})", font_size="12")
    for i, (event, count) in enumerate(counts.items()):
        row, col = divmod(i, 2)
        cx, cy = ux + col * 146, top + 20 + row * 22
        svg.rect(
            cx,
            cy,
            140,
            19,
            f"used: {event_text(event)} ×{count}",
            fill="#f4f4f4",
            stroke="#999",
            rx="3",
        )
        svg.text(
            cx + 5,
            cy + 14,
            f"{event_text(event)}" + (f" ×{count}" if count > 1 else ""),
            font_size="12",
        )
    rows = -(-len(counts) // 2)
    return 24 + max(84, 20 + rows * 22 + 4)


def _back(svg: Svg, x: float, y: float, size: int, name: str, fill: str) -> None:
    for i in range(2, 0, -1):
        if size > i:
            svg.rect(
                x + i * 3, y - i * 3, 64, 64, None, fill=fill, stroke="#fff", rx="4", opacity="0.6"
            )
    svg.rect(
        x,
        y,
        64,
        64,
        f"{name}: {size} cards, face down",
        fill=fill if size else "#eee",
        stroke="#333",
        rx="4",
    )
    ink = "#fff" if size else "#000"
    svg.text(x + 32, y + 28, name, font_size="12", text_anchor="middle", fill=ink)
    svg.text(
        x + 32,
        y + 48,
        str(size),
        font_size="14",
        text_anchor="middle",
        fill=ink,
        font_weight="bold",
    )


def lot(svg: Svg, item: object, x: float, y: float) -> None:
    """The card (or field bundle) up for auction, drawn as a market card."""
    if isinstance(item, dict) and "bundle" in item:
        svg.rect(
            x,
            y,
            CARD_W,
            CARD_H,
            "the lot: a field with its goods",
            fill="#fff",
            stroke="#5A7D2A",
            rx="4",
        )
        _bundle(svg, as_dict(item["bundle"]), x, y)
    else:
        svg.rect(
            x,
            y,
            CARD_W,
            CARD_H,
            f"the lot: {card_name(str(item))}",
            fill="#fff",
            stroke="#555",
            rx="4",
        )
        _card_face(svg, str(item), x, y)
