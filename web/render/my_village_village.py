"""A My Village village board: the seat's coins and story points (tree and main house),
the time track, the board's own banners (play, school, chronicle) and, while it is the
seat's turn, the two dice taken and the banner value; then the six areas, each under its
villager space (a token in the seat's colour and shape when the villager is there), with
the cards laid in it (:mod:`web.render.my_village_areas`)."""

from __future__ import annotations

from games.my_village import data
from web.render.common import as_dict, as_list, num, seat_label
from web.render.my_village_areas import AREA_DRAW, COL_W
from web.render.my_village_parts import MUTED, ROMAN, SMALL, banner, die
from web.render.svg import Svg

COL_GAP = 6
WIDTH = 800
#: The areas in board order: (title, villager space or None for the harvest).
AREAS = (
    ("church", "abbot"),
    ("council", "councilman"),
    ("travel", "traveller"),
    ("crafts", "craftsman"),
    ("customers", "merchant"),
    ("harvest", None),
)


def village(
    svg: Svg, seat: int, v: dict[str, object], decision: dict[str, object], y: float
) -> float:
    """Seat ``seat``'s village from ``y``; returns the ``y`` below it."""
    top = y
    svg.open("g", class_=f"village seat-{seat}")
    board = num(v.get("board"))
    seat_label(svg, seat, 8, y + 6, f" · board {ROMAN[board % 4]}")
    _stats(svg, v, y + 6)
    mine = decision if decision.get("player") == seat else {}
    _track_and_banners(svg, seat, v, mine, y + 32)
    value = num(mine.get("value"))
    note = _decision_note(mine)
    if note:
        svg.text(8, y + 78, note, font_size=SMALL, fill="#9b1c00")
    y_cols = y + (88 if note else 68)
    heights = [
        _area(svg, seat, v, name, prof, 6 + i * (COL_W + COL_GAP), y_cols, value)
        for i, (name, prof) in enumerate(AREAS)
    ]
    bottom = y_cols + max(heights) + 8
    # The outline comes last (its height is known only now); unfilled, it covers nothing.
    svg.rect(
        2, top, WIDTH - 4, bottom - top, f"village of seat {seat + 1}", fill="none", stroke="#888"
    )
    svg.close("g")
    return bottom + 6


def _stats(svg: Svg, v: dict[str, object], y: float) -> None:
    """Coins, story points on the tree and in the main house, deaths due, day labourers."""
    items = [
        (200, "coins", num(v.get("coins")), "#E6C200"),
        (300, "story tree", num(v.get("sp_tree")), "#7FBF7F"),
        (425, "main house", num(v.get("sp_house")), "#C9A66B"),
    ]
    for x, label, value, fill in items:
        svg.el(
            "circle",
            f"{label}: {value}",
            cx=str(x + 8),
            cy=str(y + 8),
            r="8",
            fill=fill,
            stroke="#000",
        )
        svg.text(x + 20, y + 13, f"{label} {value}", font_size="13")
    deaths, labourers = num(v.get("pending_deaths")), num(v.get("day_labourers"))
    svg.text(
        560,
        y + 13,
        f"deaths due {deaths} · day labourers {labourers}",
        font_size=SMALL,
        fill="#9b1c00" if deaths or labourers else MUTED,
    )


def _track_and_banners(
    svg: Svg, seat: int, v: dict[str, object], mine: dict[str, object], y: float
) -> None:
    """The time track (10 clouds and the bridge), the board's banners, the dice taken."""
    svg.text(8, y + 18, "time", font_size=SMALL, font_weight="bold")
    time = num(v.get("time"))
    for i in range(1, data.TIME_TRACK + 1):
        cx = 32 + i * 26
        here = i == time
        svg.el(
            "ellipse",
            f"time space {i}" + (": the time marker" if here else ""),
            cx=str(cx),
            cy=str(y + 14),
            rx="12",
            ry="10",
            fill="#cfe3f5" if here else "#eef4fa",
            stroke="#000" if here else "#8aa",
        )
        svg.text(
            cx,
            y + 18,
            str(i),
            font_size=SMALL,
            text_anchor="middle",
            font_weight="bold" if here else None,
        )
    svg.el(
        "path",
        "the bridge: each crossing is a death",
        d=f"M310 {y + 22} q9 -18 18 0",
        fill="none",
        stroke="#9b1c00",
        stroke_width="3",
    )
    used = [str(u) for u in as_list(mine.get("white_used"))]
    value = num(mine.get("value"))
    x = 336
    for label, values, key in (
        ("play", tuple(num(p) for p in as_list(v.get("play_values"))), "PLAY"),
        ("school", data.SCHOOL_VALUES, "SCHOOL"),
    ):
        banner(svg, x, y + 5, values, black=False, w=44, value=value)
        on = key in used  # used this turn: a tick and green ink
        svg.text(
            x + 48,
            y + 18,
            label + (" ✓" if on else ""),
            font_size=SMALL,
            fill="#00704f" if on else "#000",
            font_weight="bold" if on else None,
        )
        x += 100
    school = as_dict(v.get("school"))
    for i, side in enumerate(("left", "right")):
        sx = x + 14 + i * 22
        svg.rect(
            sx,
            y + 4,
            20,
            20,
            f"school {side}: {'a marker' if school.get(side) else 'free'}",
            fill="#fff",
            stroke="#555",
        )
        if school.get(side):
            svg.marker(seat, sx + 10, y + 14, 6, f"school marker ({side})")
    x += 66
    banner(svg, x, y + 5, (), black=True, w=26, value=value)
    svg.text(x + 30, y + 18, "chronicle", font_size=SMALL)
    dice = as_list(mine.get("dice"))
    if dice:
        x = 708
        for i, pips in enumerate(dice[:2]):
            die(svg, "taken", num(pips), x + i * 28, y + 2, 24)
        svg.text(
            x + 58,
            y + 19,
            f"= {value}" if value else "= ?",
            font_size="13",
            font_weight="bold",
        )


def _decision_note(mine: dict[str, object]) -> str:
    """What the seat is deciding, when it is this seat's turn and the kind says more."""
    parts = []
    if mine.get("value"):
        parts.append(f"banners showing {num(mine.get('value'))} have an orange edge")
    if mine.get("white_used") is not None:
        used = ", ".join(str(u) for u in as_list(mine.get("white_used"))) or "none yet"
        parts.append(f"white banners used: {used} ({num(mine.get('white_count'))})")
    if mine.get("picks") is not None:
        picks = ", ".join(str(p) for p in as_list(mine.get("picks"))) or "none yet"
        parts.append(f"customers picked: {picks}")
    if mine.get("banner") is not None:
        parts.append(f"paying a good for: {mine.get('banner')}")
    if mine.get("choice") is not None:
        parts.append(f"choosing: {mine.get('choice')}")
    return " · ".join(parts)


def _area(
    svg: Svg,
    seat: int,
    v: dict[str, object],
    name: str,
    prof: str | None,
    x: float,
    y: float,
    value: int,
) -> float:
    """One area: the villager space and the cards of the area. Returns its height."""
    here = bool(as_dict(v.get("villagers")).get(prof)) if prof else True
    if prof is None:
        svg.rect(
            x,
            y,
            COL_W,
            26,
            "the harvest works without a villager",
            fill="#f1f8e9",
            stroke="#777",
            rx="4",
        )
        svg.text(x + 6, y + 17, "harvest", font_size="13", font_weight="bold")
    else:
        tip = f"{prof}: {'in the village' if here else 'space empty, the area is idle'}"
        svg.rect(
            x,
            y,
            COL_W,
            26,
            tip,
            fill="#e8f4ea" if here else "#f4f4f4",
            stroke="#777",
            stroke_dasharray=None if here else "4 3",
            rx="4",
        )
        if here:
            svg.marker(seat, x + 13, y + 13, 8, f"seat {seat + 1}'s {prof}")
        svg.text(
            x + 26 if here else x + 6,
            y + 17,
            prof if here else f"{prof}: idle",
            font_size="13",
            font_weight="bold" if here else None,
            fill="#000" if here else MUTED,
        )
    return 30 + AREA_DRAW[name](svg, v, x, y + 30, value)
