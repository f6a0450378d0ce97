"""Farmaria's piles: the management deck and the two Year Event piles face down, this
year's two events face up (in force, counted once, or cancelled) and the used events set
aside. Only pile sizes are public: the order of the cards in them is never drawn."""

from __future__ import annotations

from web.render.common import as_list, num
from web.render.farmaria_farm import card_name
from web.render.svg import Svg

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
        x = 282 + i * 110
        # identical events count once: the second card of a pair is not in force again
        live = event in effective and event not in events[:i]
        status = "in force" if live else "counts once" if event in effective else "cancelled"
        svg.open("g", class_="event", data_event=event)
        svg.rect(
            x,
            top,
            104,
            64,
            f"this year: {event_text(event)}, {STATUS_TIP[status]}",
            fill="#FFFDE7" if live else "#eeeeee",
            stroke="#2E7D32" if live else "#999",
            stroke_width="2",
            rx="4",
        )
        svg.text(
            x + 52,
            top + 26,
            event_text(event),
            font_size="12",
            text_anchor="middle",
            font_weight="bold",
            fill="#000" if live else "#666",
            text_decoration=None if live else "line-through",
        )
        svg.text(
            x + 52,
            top + 48,
            status,
            font_size="12",
            text_anchor="middle",
            fill="#2E7D32" if live else "#666",
        )
        svg.close("g")
    if not events:
        svg.text(282, top + 36, "no events revealed yet", font_size="12", fill="#555")
    used = [str(e) for e in as_list(state.get("used_events"))]
    counts: dict[str, int] = {}
    for event in used:
        counts[event] = counts.get(event, 0) + 1
    ux = 512
    svg.text(ux, top + 12, f"used events set aside ({len(used)})", font_size="12")
    for i, (event, count) in enumerate(counts.items()):
        row, col = divmod(i, 2)
        cx, cy = ux + col * 140, top + 20 + row * 22
        svg.rect(
            cx,
            cy,
            134,
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
