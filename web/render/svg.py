"""A tiny SVG builder that escapes every text and attribute value it is given.

Renderers draw from public states, which carry names chosen by bot authors (bot names) and
engine strings; nothing reaches the page unescaped. The player palette pairs each colour
(Okabe-Ito, distinguishable with the common colour-vision deficiencies) with a shape and the
seat number, so colour is never the only cue.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup, escape

#: Okabe-Ito colours, one per seat.
PLAYER_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
#: The second cue beside the colour.
PLAYER_SHAPES = ("circle", "square", "triangle", "diamond", "pentagon", "hexagon")


def player_colour(seat: int) -> str:
    """The colour of ``seat`` (wrapping around past the palette)."""
    return PLAYER_COLOURS[seat % len(PLAYER_COLOURS)]


def player_shape(seat: int) -> str:
    """The shape of ``seat``."""
    return PLAYER_SHAPES[seat % len(PLAYER_SHAPES)]


def _attrs(attrs: dict[str, object]) -> str:
    parts = []
    for key, value in attrs.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        parts.append(f' {name}="{escape(str(value))}"')
    return "".join(parts)


@dataclass
class Svg:
    """An SVG document built element by element; ``markup()`` returns it as safe markup."""

    width: int
    height: int
    label: str
    css_class: str = "board"

    def __post_init__(self) -> None:
        self._parts: list[str] = []

    def el(self, tag: str, text: str | None = None, **attrs: object) -> None:
        """One element; ``text`` is escaped content (a ``title`` tooltip for shapes)."""
        if text is None:
            self._parts.append(f"<{tag}{_attrs(attrs)}/>")
        elif tag in ("text", "title"):
            self._parts.append(f"<{tag}{_attrs(attrs)}>{escape(text)}</{tag}>")
        else:
            self._parts.append(f"<{tag}{_attrs(attrs)}><title>{escape(text)}</title></{tag}>")

    def open(self, tag: str, **attrs: object) -> None:
        """Open a container (``g``); close it with :meth:`close`."""
        self._parts.append(f"<{tag}{_attrs(attrs)}>")

    def close(self, tag: str) -> None:
        """Close the container opened last."""
        self._parts.append(f"</{tag}>")

    def text(self, x: float, y: float, text: str, **attrs: object) -> None:
        """A text label."""
        self.el("text", text, x=_n(x), y=_n(y), **attrs)

    def rect(
        self, x: float, y: float, w: float, h: float, tip: str | None = None, **a: object
    ) -> None:
        """A rectangle, with a tooltip when ``tip`` is given."""
        self.el("rect", tip, x=_n(x), y=_n(y), width=_n(w), height=_n(h), **a)

    def marker(self, seat: int, x: float, y: float, r: float = 7, tip: str | None = None) -> None:
        """The seat's shape in its colour at (x, y)."""
        colour = player_colour(seat)
        common: dict[str, object] = {"fill": colour, "stroke": "#000", "stroke_width": "1"}
        shape = player_shape(seat)
        if shape == "circle":
            self.el("circle", tip, cx=_n(x), cy=_n(y), r=_n(r), **common)
            return
        if shape == "square":
            self.el(
                "rect", tip, x=_n(x - r), y=_n(y - r), width=_n(2 * r), height=_n(2 * r), **common
            )
            return
        sides = {"triangle": 3, "diamond": 4, "pentagon": 5, "hexagon": 6}[shape]
        self.el("polygon", tip, points=regular_polygon(x, y, r * 1.15, sides), **common)

    def markup(self) -> Markup:
        """The whole document."""
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.width} {self.height}" '
            f'role="img" aria-label="{escape(self.label)}" class="{escape(self.css_class)}">'
            f"<title>{escape(self.label)}</title>"
        )
        return Markup(head + "".join(self._parts) + "</svg>")


def regular_polygon(x: float, y: float, r: float, sides: int) -> str:
    """The points of a regular polygon with a vertex on top."""
    import math

    pts = []
    for i in range(sides):
        a = -math.pi / 2 + 2 * math.pi * i / sides
        pts.append(f"{_n(x + r * math.cos(a))},{_n(y + r * math.sin(a))}")
    return " ".join(pts)


def _n(v: float) -> str:
    """Coordinates with at most one decimal (smaller pages, stable output for tests)."""
    return f"{v:.1f}".rstrip("0").rstrip(".")
