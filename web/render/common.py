"""Helpers the game renderers share: numbers out of JSON, the header line, player panels."""

from __future__ import annotations

from web.render.svg import Svg

#: Cube and die colours of the games, each with a letter drawn on it (the second cue).
CUBE_FILL = {
    "brown": ("#8C564B", "B", "#fff"),
    "pink": ("#F4A6C8", "P", "#000"),
    "orange": ("#E69F00", "O", "#000"),
    "green": ("#009E73", "G", "#fff"),
    "plague": ("#222222", "X", "#fff"),
    "black": ("#222222", "B", "#fff"),
    "white": ("#FFFFFF", "W", "#000"),
}


def num(value: object) -> int:
    """An integer out of a JSON number (Struct numbers arrive as floats); 0 otherwise."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return int(value)
    return 0


def opt_seat(value: object) -> int | None:
    """A seat number, or None for JSON null."""
    return None if value is None else num(value)


def as_dict(value: object) -> dict[str, object]:
    """``value`` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def as_list(value: object) -> list[object]:
    """``value`` if it is a JSON list, else an empty one."""
    return value if isinstance(value, list) else []


def header(svg: Svg, text: str, active: int | None) -> None:
    """The top line: the position in the game and the seat to move, with its marker."""
    svg.rect(0, 0, svg.width, 30, fill="#f2f2f2")
    svg.text(10, 20, text, font_size="14", font_weight="bold")
    if active is not None:
        svg.marker(active, svg.width - 120, 15, 7, f"seat {active + 1} to move")
        svg.text(svg.width - 108, 20, f"seat {active + 1} to move", font_size="13")


def cube(svg: Svg, colour: str, count: int, x: float, y: float, size: float = 18) -> None:
    """A cube of ``colour`` with its letter and the count beside it."""
    fill, letter, ink = CUBE_FILL.get(colour, ("#bbbbbb", colour[:1].upper(), "#000"))
    svg.rect(x, y, size, size, f"{count} {colour}", fill=fill, stroke="#000", rx="2")
    svg.text(x + size / 2, y + size * 0.72, letter, font_size="11", text_anchor="middle", fill=ink)
    svg.text(x + size + 3, y + size * 0.75, str(count), font_size="12")


def seat_label(svg: Svg, seat: int, x: float, y: float, extra: str = "") -> None:
    """The seat's marker and name at the start of its panel."""
    svg.marker(seat, x + 8, y + 8, 8, f"seat {seat + 1}")
    svg.text(x + 22, y + 13, f"Seat {seat + 1}{extra}", font_size="14", font_weight="bold")


def stat(svg: Svg, label: str, value: object, x: float, y: float) -> None:
    """A labelled number ("coins 3")."""
    svg.text(x, y, f"{label} {value}", font_size="12")
