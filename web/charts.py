"""Server-drawn SVG charts: line charts (a bot's rating, the scores of a replay) and the
interval bars of a leaderboard. Each series has its seat's colour and shape (see
:mod:`web.render.svg`), and every chart carries a text title and per-point tooltips."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from web.render.svg import Svg, _n, player_colour

W, H, PAD_L, PAD_R, PAD_T, PAD_B = 640, 220, 48, 12, 12, 28


@dataclass(frozen=True)
class Series:
    """One line of a chart: its label, its seat (colour and shape) and its (x, y) points."""

    label: str
    seat: int
    points: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Scale:
    """Data ranges mapped to the plot area."""

    x0: float
    x1: float
    y0: float
    y1: float

    def x(self, v: float) -> float:
        """The horizontal position of ``v``."""
        span = (self.x1 - self.x0) or 1.0
        return PAD_L + (v - self.x0) / span * (W - PAD_L - PAD_R)

    def y(self, v: float) -> float:
        """The vertical position of ``v``."""
        span = (self.y1 - self.y0) or 1.0
        return H - PAD_B - (v - self.y0) / span * (H - PAD_T - PAD_B)


def scale_of(series: Sequence[Series], x_range: tuple[float, float] | None = None) -> Scale:
    """A scale that fits every point (and ``x_range`` when given)."""
    xs = [p[0] for s in series for p in s.points] or [0.0, 1.0]
    ys = [p[1] for s in series for p in s.points] or [0.0, 1.0]
    if x_range:
        xs += list(x_range)
    lo, hi = min(ys), max(ys)
    pad = (hi - lo) * 0.08 or 1.0
    return Scale(min(xs), max(xs), lo - pad, hi + pad)


def line_chart(
    series: Sequence[Series],
    title: str,
    x_label: str,
    x_range: tuple[float, float] | None = None,
    cursor: float | None = None,
) -> Markup:
    """A line chart; ``cursor`` draws a vertical line (the replay's current decision)."""
    sc = scale_of(series, x_range)
    svg = Svg(W, H, title, "chart")
    svg.rect(PAD_L, PAD_T, W - PAD_L - PAD_R, H - PAD_T - PAD_B, fill="#fff", stroke="#bbb")
    for v in (sc.y0, (sc.y0 + sc.y1) / 2, sc.y1):
        label = f"{v:.0f}".replace("-0", "0") if abs(v) < 0.5 else f"{v:.0f}"
        svg.text(PAD_L - 4, sc.y(v) + 4, label, font_size="11", text_anchor="end")
    svg.text(PAD_L, H - 8, f"{sc.x0:.0f}", font_size="11")
    svg.text(W - PAD_R, H - 8, f"{sc.x1:.0f}", font_size="11", text_anchor="end")
    svg.text((PAD_L + W) / 2, H - 8, x_label, font_size="11", text_anchor="middle")
    for s in series:
        if not s.points:
            continue
        pts = " ".join(f"{_n(sc.x(x))},{_n(sc.y(y))}" for x, y in s.points)
        dash = None if s.seat % 2 == 0 else "6 3"  # a second cue besides the colour
        svg.el("polyline", s.label, points=pts, fill="none", stroke=player_colour(s.seat),
               stroke_width="2", stroke_dasharray=dash)  # fmt: skip
        x, y = s.points[-1]
        svg.marker(s.seat, sc.x(x), sc.y(y), 5, f"{s.label}: {y:g} at {x:g}")
    if cursor is not None:
        svg.el(
            "line",
            None,
            id="chart-cursor",
            x1=_n(sc.x(cursor)),
            x2=_n(sc.x(cursor)),
            y1=str(PAD_T),
            y2=str(H - PAD_B),
            stroke="#333",
            stroke_dasharray="2 2",
            data_x0=_n(PAD_L),
            data_dx=f"{(W - PAD_L - PAD_R) / ((sc.x1 - sc.x0) or 1.0):.5f}",
            data_v0=_n(sc.x0),
        )
    return svg.markup()


def interval_bar(low: float, rating: float, high: float, lo: float, hi: float) -> Markup:
    """A 95% interval as a bar on the common axis [lo, hi], the estimate as a tick."""
    width, height = 200, 18
    span = (hi - lo) or 1.0

    def px(v: float) -> float:
        return 4 + (min(max(v, lo), hi) - lo) / span * (width - 8)

    if math.isinf(high) and math.isinf(low):
        label = "no bound yet"
    elif math.isinf(high):
        label = f"open interval: at least {low:.0f}"
    elif math.isinf(low):
        label = f"open interval: at most {high:.0f}"
    elif low == high:
        label = f"anchor, fixed at {rating:.0f}"
    else:
        label = f"95% interval {low:.0f} to {high:.0f}, estimate {rating:.0f}"
    svg = Svg(width, height, label, "bar")
    svg.rect(0, 8, width, 2, fill="#ddd")
    svg.rect(px(low), 4, max(px(high) - px(low), 2), 10, fill="#56B4E9", stroke="#0072B2")
    svg.rect(px(rating) - 1.5, 1, 3, 16, fill="#000")
    return svg.markup()
