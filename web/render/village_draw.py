"""Drawing pieces of the Village board: the SVG document, member tokens, cubes, coins, grain
sacks and customer tiles. Every text here is at least 12 px, so the board reads at its
natural size; the document carries its width so the page can show it one to one."""

from __future__ import annotations

from markupsafe import Markup

from games.village import data as vd
from web.render.common import num
from web.render.svg import Svg, player_shape

#: Influence cubes and plague: fill, the letter drawn on it (the second cue), its ink.
CUBES = {
    "brown": ("#8C564B", "B", "#fff"),
    "pink": ("#F4A6C8", "P", "#000"),
    "orange": ("#E69F00", "O", "#000"),
    "green": ("#009E73", "G", "#fff"),
    "plague": ("#222222", "X", "#fff"),
}
#: The ink of a generation number on a seat's token (contrast with its colour).
TOKEN_INK = ("#fff", "#fff", "#fff", "#000", "#000", "#000")
GOODS = vd.GOOD_NAMES
WIDTH = 960  # the board's width: at 1:1 it fits the site's 1100 px column
PANEL_FILL, PANEL_STROKE = "#fbf6e9", "#8a7a50"


class VillageSvg(Svg):
    """An :class:`Svg` whose root also says its size, so a page may draw it one to one."""

    def markup(self) -> Markup:
        """The document with ``width`` and ``height`` beside its ``viewBox``."""
        head = f'<svg width="{self.width}" height="{self.height}" '
        return Markup(str(super().markup()).replace("<svg ", head, 1))


def fmt(v: float) -> str:
    """A coordinate with at most one decimal (stable output for the golden files)."""
    return f"{v:.1f}".rstrip("0").rstrip(".")


def title(svg: Svg, x: float, y: float, text: str) -> None:
    """A section title."""
    svg.text(x, y, text, font_size="14", font_weight="bold", fill="#3b3222")


def note(svg: Svg, x: float, y: float, text: str, **attrs: object) -> None:
    """A small explanatory line."""
    svg.text(x, y, text, font_size="12", fill="#444", **attrs)


def box(svg: Svg, x: float, y: float, w: float, h: float, tip: str, fill: str = PANEL_FILL) -> None:
    """A place on the board."""
    svg.rect(x, y, w, h, tip, fill=fill, stroke=PANEL_STROKE, rx="4")


def token(
    svg: Svg, seat: int, generation: int, x: float, y: float, tip: str, r: float = 10
) -> None:
    """A family member: the seat's shape in its colour with the generation on it."""
    # A triangle's middle is narrow: it is drawn larger and its number sits lower.
    wide = player_shape(seat) == "triangle"
    svg.marker(seat, x, y + (2 if wide else 0), r * 1.2 if wide else r, tip)
    ink = TOKEN_INK[seat % len(TOKEN_INK)]
    halo = "#000" if ink == "#fff" else "#fff"
    svg.text(
        x,
        y + (6.5 if wide else 4.5),
        str(generation),
        font_size="12",
        font_weight="bold",
        fill=ink,
        stroke=halo,
        stroke_width="2",
        paint_order="stroke",
        text_anchor="middle",
        pointer_events="none",
    )


def generations(counts: object) -> list[int]:
    """One generation number per member from four counts (generation 1 to 4)."""
    row = counts if isinstance(counts, list) else []
    return [g + 1 for g, n in enumerate(row) for _ in range(num(n))]


def tokens(
    svg: Svg,
    members: list[tuple[int, int]],
    x: float,
    y: float,
    per_row: int,
    where: str,
    step: float = 24,
    r: float = 10,
) -> None:
    """Member tokens ``(seat, generation)`` in rows of ``per_row`` from centre (x, y)."""
    for i, (seat, gen) in enumerate(members):
        cx, cy = x + (i % per_row) * step, y + (i // per_row) * step
        token(svg, seat, gen, cx, cy, f"seat {seat + 1}, generation {gen}, {where}", r)


def at(players: list[dict[str, object]], location: str) -> list[tuple[int, int]]:
    """Every member on ``location``, as (seat, generation), seat by seat."""
    out: list[tuple[int, int]] = []
    for seat, p in enumerate(players):
        members = p.get("members")
        if isinstance(members, dict):
            out += [(seat, g) for g in generations(members.get(location))]
    return out


def cube(svg: Svg, colour: str, x: float, y: float, size: float = 18, tip: str = "") -> None:
    """One cube with its colour's letter."""
    fill, letter, ink = CUBES.get(colour, ("#bbb", colour[:1].upper(), "#000"))
    svg.rect(x, y, size, size, tip or f"{colour} cube", fill=fill, stroke="#000", rx="2")
    svg.text(
        x + size / 2,
        y + size / 2 + 4.5,
        letter,
        font_size="12",
        font_weight="bold",
        text_anchor="middle",
        fill=ink,
        pointer_events="none",
    )


def cube_count(svg: Svg, colour: str, count: int, x: float, y: float, where: str) -> float:
    """A cube with the count beside it; returns the x after it."""
    cube(svg, colour, x, y, 18, f"{count} {colour} {where}")
    svg.text(x + 21, y + 14, str(count), font_size="13")
    return x + 21 + 9 * len(str(count)) + 8


def coin(svg: Svg, x: float, y: float, count: int, tip: str, label: str = "") -> float:
    """A coin with ``label`` and the count beside it; returns the x after it."""
    svg.el("circle", tip, cx=fmt(x + 9), cy=fmt(y + 9), r="9", fill="#F0C419", stroke="#7a5c00")
    svg.text(x + 9, y + 13.5, "c", font_size="12", text_anchor="middle", pointer_events="none")
    text = f"{label}{count}"
    svg.text(x + 21, y + 14, text, font_size="13")
    return x + 21 + 8 * len(text) + 8


def sack(svg: Svg, x: float, y: float, full: bool, tip: str) -> None:
    """A grain sack (an empty place for one when ``full`` is false)."""
    fill, dash = ("#E3C16F", None) if full else ("none", "3 2")
    svg.el(
        "rect",
        tip,
        x=fmt(x),
        y=fmt(y),
        width="14",
        height="18",
        rx="5",
        fill=fill,
        stroke="#7a5c00",
        stroke_dasharray=dash,
    )


def demand(tile: str) -> tuple[list[str], int]:
    """The printed demand lines and prestige of a customer tile (static data)."""
    for tid, goods, grain, prestige in vd.CUSTOMERS:
        if tid == tile:
            lines = [f"{n} {GOODS[i]}" for i, n in enumerate(goods) if n]
            if grain:
                lines.append(f"{grain} grain")
            return lines, prestige
    return [], 0


def customer(svg: Svg, tile: object, x: float, y: float, w: float, h: float, where: str) -> None:
    """A customer tile face up: its id, what it demands and its prestige; or an empty space."""
    if tile is None:
        svg.rect(
            x,
            y,
            w,
            h,
            f"{where}: empty",
            fill="none",
            stroke="#999",
            stroke_dasharray="4 3",
            rx="4",
        )
        note(svg, x + w / 2, y + h / 2 + 4, "empty", text_anchor="middle")
        return
    lines, prestige = demand(str(tile))
    tip = f"{where}: {tile}, wants {' + '.join(lines) or 'nothing'}, {prestige} prestige"
    svg.rect(x, y, w, h, tip, fill="#fffdf5", stroke="#6b5a2e", rx="4")
    svg.text(x + 5, y + 15, str(tile), font_size="12", font_weight="bold")
    svg.text(x + w - 5, y + 15, f"{prestige}★", font_size="12", text_anchor="end", fill="#7a4b00")
    for i, line in enumerate(lines):
        svg.text(x + 5, y + 31 + i * 14, line, font_size="12")
