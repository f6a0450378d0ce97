"""A My Village village board: the seat's coins and story points (tree and main house),
the time track, the board's own banners (play, school, chronicle) and, while it is the
seat's turn, the two dice taken and the banner value; then the six areas, each under its
villager space (a token in the seat's colour and shape when the villager is there), with
the cards laid in it: church and monks, council chamber and meeting point, travel cards,
craft buildings with their goods, customers waiting and served, and the fields."""

from __future__ import annotations

from games.my_village import data
from web.render.common import as_dict, as_list, num, seat_label
from web.render.my_village_parts import (
    MUTED,
    ROMAN,
    SMALL,
    banner,
    card,
    card_name,
    card_values,
    customer_card,
    die,
    good,
)
from web.render.svg import Svg

COL_W, COL_GAP, CHIP_H = 126, 6, 24
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
    note = _decision_note(mine)
    if note:
        svg.text(8, y + 78, note, font_size=SMALL, fill="#9b1c00")
    y_cols = y + (88 if note else 68)
    heights = [
        _area(svg, seat, v, name, prof, 6 + i * (COL_W + COL_GAP), y_cols)
        for i, (name, prof) in enumerate(AREAS)
    ]
    bottom = y_cols + max(heights) + 8
    # The outline comes last (its height is known only now); unfilled, it covers nothing.
    svg.rect(2, top, WIDTH - 4, bottom - top, f"village of seat {seat}", fill="none", stroke="#888")
    svg.close("g")
    return bottom + 6


def _stats(svg: Svg, v: dict[str, object], y: float) -> None:
    items = [
        ("coins", num(v.get("coins")), "#E6C200"),
        ("story tree", num(v.get("sp_tree")), "#7FBF7F"),
        ("main house", num(v.get("sp_house")), "#C9A66B"),
    ]
    x = 200
    for label, value, fill in items:
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
        x += {"coins": 100, "story tree": 125}.get(label, 135)
    deaths, labourers = num(v.get("pending_deaths")), num(v.get("day_labourers"))
    svg.text(
        x,
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
    x = 336
    for label, values, key in (
        ("play", tuple(num(p) for p in as_list(v.get("play_values"))), "PLAY"),
        ("school", data.SCHOOL_VALUES, "SCHOOL"),
    ):
        banner(svg, x, y + 5, values, black=False, w=44)
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
    banner(svg, x, y + 5, (), black=True, w=26)
    svg.text(x + 30, y + 18, "chronicle", font_size=SMALL)
    dice = as_list(mine.get("dice"))
    if dice:
        x = 708
        for i, pips in enumerate(dice[:2]):
            die(svg, "taken", num(pips), x + i * 28, y + 2, 24)
        value = mine.get("value")
        svg.text(
            x + 58,
            y + 19,
            f"= {num(value)}" if value else "= ?",
            font_size="13",
            font_weight="bold",
        )


def _decision_note(mine: dict[str, object]) -> str:
    """What the seat is deciding, when it is this seat's turn and the kind says more."""
    parts = []
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


def _chip(
    svg: Svg,
    x: float,
    y: float,
    kind: str,
    head: str,
    values: tuple[int, ...] | None,
    tip: str,
    h: float = CHIP_H,
) -> None:
    """A card laid in the village: a strip with its name and its white banner."""
    card(svg, x, y, COL_W, h, kind, head, tip)
    if values is not None:
        banner(svg, x + COL_W - 42, y + 3, values, black=False, w=40)


def _area(
    svg: Svg, seat: int, v: dict[str, object], name: str, prof: str | None, x: float, y: float
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
            svg.marker(seat, x + 13, y + 13, 8, f"seat {seat}'s {prof}")
        svg.text(
            x + 26 if here else x + 6,
            y + 17,
            prof if here else f"{prof}: idle",
            font_size="13",
            font_weight="bold" if here else None,
            fill="#000" if here else MUTED,
        )
    return 30 + _AREA_DRAW[name](svg, v, x, y + 30)


def _church(svg: Svg, v: dict[str, object], x: float, y: float) -> float:
    h = 0.0
    church = v.get("church")
    if church:
        cid = str(church)
        _chip(svg, x, y, "church", cid, card_values(cid), f"{cid} {card_name(cid)}", 40)
        svg.text(x + 4, y + 32, card_name(cid), font_size=SMALL)
        h += 44
    for mid in as_list(v.get("monks")):
        _chip(svg, x, y + h, "monk", str(mid), None, f"{mid} {card_name(str(mid))}")
        svg.text(x + 48, y + h + 16, card_name(str(mid)), font_size=SMALL, fill=MUTED)
        h += CHIP_H + 3
    svg.text(x + 2, y + h + 14, f"windows {num(v.get('windows'))}", font_size=SMALL)
    return h + 20


def _council(svg: Svg, v: dict[str, object], x: float, y: float) -> float:
    h = 0.0
    chamber = v.get("chamber")
    if chamber:
        cid = str(chamber)
        _chip(svg, x, y, "chamber", cid, card_values(cid), f"{cid} {card_name(cid)}", 40)
        svg.text(x + 4, y + 32, card_name(cid), font_size=SMALL)
        h += 44
        if cid == "CC-2":  # the guild council's wildcard spaces
            for i in range(data.WILDCARD_SPACES):
                good(svg, "wildcard", x + 4 + i * 25, y + h, i < num(v.get("wildcards")))
            h += 20
        if cid == "CC-3":  # the land registry's category marks
            marks = as_list(v.get("registry"))
            for i, cat in enumerate(c.value for c in data.CATEGORIES):
                on = i < len(marks) and bool(marks[i])
                svg.text(
                    x + 2 + (i % 2) * 64,
                    y + h + 13 + (i // 2) * 16,
                    f"{'☑' if on else '☐'} {cat[:8]}",
                    font_size=SMALL,
                    font_weight="bold" if on else None,
                )
            h += 50
    if v.get("meeting_point"):
        markers = as_list(v.get("meeting_point_markers"))
        _chip(svg, x, y + h, "meeting", "meeting point", None, "meeting point", 44)
        # The banner goes on the second line: the name fills the first.
        banner(svg, x + COL_W - 42, y + h + 22, data.MP_WHITE_VALUES, black=False, w=40)
        for i in range(data.MP_CAPACITY):
            filled = i < len(markers)
            tip = f"marker placed in round {num(markers[i])}" if filled else "free marker space"
            svg.rect(
                x + 4 + i * 26,
                y + h + 22,
                24,
                18,
                tip,
                fill="#555" if filled else "#fff",
                stroke="#555",
                rx="3",
            )
            if filled:
                svg.text(
                    x + 16 + i * 26,
                    y + h + 36,
                    f"r{num(markers[i])}",
                    font_size=SMALL,
                    fill="#fff",
                    text_anchor="middle",
                )
        h += 48
    return h


def _travel(svg: Svg, v: dict[str, object], x: float, y: float) -> float:
    h = 0.0
    for tid in as_list(v.get("travel")):
        found = data.TRAVEL_BY_ID.get(str(tid))
        pp = found.pp if found else 0
        _chip(svg, x, y + h, "travel", str(tid), None, f"{tid}: {pp} PP")
        svg.text(x + 50, y + h + 16, f"{pp} PP", font_size=SMALL, fill=MUTED)
        h += CHIP_H + 3
    return h


def _crafts(svg: Svg, v: dict[str, object], x: float, y: float) -> float:
    h = 0.0
    for craft in as_list(v.get("crafts")):
        c = as_dict(craft)
        cid, goods, spaces = str(c.get("id")), num(c.get("goods")), num(c.get("spaces"))
        kind = card_name(cid)
        found = data.CRAFT_BY_ID.get(cid)
        name = data.GOODS[found.good].value if found else "good"
        _chip(
            svg,
            x,
            y + h,
            "craft",
            cid,
            card_values(cid),
            f"{cid} {kind}: {goods} of {spaces} {name} spaces filled",
            44,
        )
        for i in range(spaces):
            good(svg, name, x + 4 + i * 25, y + h + 22, i < goods)
        h += 47
    return h


def _customers(svg: Svg, v: dict[str, object], x: float, y: float) -> float:
    h = 0.0
    new = {str(c) for c in as_list(v.get("new_customers"))}
    waiting = as_list(v.get("waiting"))
    if waiting:
        svg.text(x + 2, y + 12, "waiting", font_size=SMALL, fill=MUTED)
        h += 16
    for cid in waiting:
        h += customer_card(svg, x, y + h, str(cid), str(cid) in new, w=COL_W, compact=True) + 4
    served = as_list(v.get("served"))
    if served:
        svg.text(x + 2, y + h + 12, f"served ({len(served)})", font_size=SMALL, fill=MUTED)
        h += 16
    for i, cid in enumerate(served):
        found = data.CUSTOMER_BY_ID.get(str(cid))
        pp = found.pp if found else 0
        cx = x + (i % 2) * 64
        svg.rect(cx, y + h, 60, 20, f"served {cid}: {pp} PP", fill="#e6e6e6", stroke="#777", rx="3")
        svg.text(cx + 4, y + h + 15, f"{cid} {pp}PP", font_size=SMALL)
        if i % 2 == 1 or i == len(served) - 1:
            h += 23
    return h


def _harvest(svg: Svg, v: dict[str, object], x: float, y: float) -> float:
    h = 0.0
    used = as_list(v.get("fields_used"))
    for i, ploughed in enumerate(as_list(v.get("fields"))):
        was_used = i < len(used) and bool(used[i])
        tip = f"field {i + 1}: {'a plough on it' if ploughed else 'bare'}"
        tip += ", used this turn" if was_used else ""
        _chip(svg, x, y + h, "field", f"field {i + 1}", data.FIELD_VALUES, tip, 44)
        good(svg, "plough", x + 4, y + h + 22, bool(ploughed))
        if was_used:
            svg.text(x + 32, y + h + 35, "used ✓", font_size=SMALL, fill=MUTED)
        h += 47
    return h


_AREA_DRAW = {
    "church": _church,
    "council": _council,
    "travel": _travel,
    "crafts": _crafts,
    "customers": _customers,
    "harvest": _harvest,
}
