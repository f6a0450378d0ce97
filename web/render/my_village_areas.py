"""The areas of a My Village village board and the cards laid in each: church and monks
(with the windows), council chamber (wildcards, land registry marks) and meeting point (its
markers), travel cards, craft buildings with their goods, customers waiting (those arrived
this turn marked) and served, and the fields with their ploughs. Each function draws one
area's cards from ``y`` and returns their height."""

from __future__ import annotations

from collections.abc import Callable

from games.my_village import data
from web.render.common import as_dict, as_list, num
from web.render.my_village_parts import (
    MUTED,
    SMALL,
    banner,
    card,
    card_name,
    card_values,
    customer_card,
    good,
)
from web.render.svg import Svg

COL_W, CHIP_H = 126, 24


def chip(
    svg: Svg,
    x: float,
    y: float,
    kind: str,
    head: str,
    values: tuple[int, ...] | None,
    tip: str,
    h: float = CHIP_H,
    value: int = 0,
) -> None:
    """A card laid in the village: a strip with its name and its white banner (edged when
    it shows the turn's banner ``value``)."""
    card(svg, x, y, COL_W, h, kind, head, tip)
    if values is not None:
        banner(svg, x + COL_W - 42, y + 3, values, black=False, w=40, value=value)


def _church(svg: Svg, v: dict[str, object], x: float, y: float, value: int) -> float:
    h = 0.0
    church = v.get("church")
    if church:
        cid = str(church)
        chip(svg, x, y, "church", cid, card_values(cid), f"{cid} {card_name(cid)}", 40, value)
        svg.text(x + 4, y + 32, card_name(cid), font_size=SMALL)
        h += 44
    for mid in as_list(v.get("monks")):
        chip(svg, x, y + h, "monk", str(mid), None, f"{mid} {card_name(str(mid))}")
        svg.text(x + 48, y + h + 16, card_name(str(mid)), font_size=SMALL, fill=MUTED)
        h += CHIP_H + 3
    svg.text(x + 2, y + h + 14, f"windows {num(v.get('windows'))}", font_size=SMALL)
    return h + 20


def _council(svg: Svg, v: dict[str, object], x: float, y: float, value: int) -> float:
    h = 0.0
    chamber = v.get("chamber")
    if chamber:
        cid = str(chamber)
        chip(svg, x, y, "chamber", cid, card_values(cid), f"{cid} {card_name(cid)}", 40, value)
        svg.text(x + 4, y + 32, card_name(cid), font_size=SMALL)
        h += 44
        found = data.CHAMBER_BY_ID.get(cid)
        action = found.action if found else None
        if action is data.ChamberAction.WILDCARD:  # the guild council's wildcard spaces
            for i in range(data.WILDCARD_SPACES):
                good(svg, "wildcard", x + 4 + i * 25, y + h, i < num(v.get("wildcards")))
            h += 20
        if action is data.ChamberAction.REGISTRY:  # the land registry's category marks
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
        chip(svg, x, y + h, "meeting", "meeting point", None, "meeting point", 44)
        # The banner goes on the second line: the name fills the first.
        banner(svg, x + COL_W - 42, y + h + 22, data.MP_WHITE_VALUES, False, 40, value)
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


def _travel(svg: Svg, v: dict[str, object], x: float, y: float, value: int) -> float:
    h = 0.0
    for tid in as_list(v.get("travel")):
        found = data.TRAVEL_BY_ID.get(str(tid))
        pp = found.pp if found else 0
        chip(svg, x, y + h, "travel", str(tid), None, f"{tid}: {pp} PP")
        svg.text(x + 50, y + h + 16, f"{pp} PP", font_size=SMALL, fill=MUTED)
        h += CHIP_H + 3
    return h


def _crafts(svg: Svg, v: dict[str, object], x: float, y: float, value: int) -> float:
    h = 0.0
    for craft in as_list(v.get("crafts")):
        c = as_dict(craft)
        cid, goods, spaces = str(c.get("id")), num(c.get("goods")), num(c.get("spaces"))
        kind = card_name(cid)
        found = data.CRAFT_BY_ID.get(cid)
        name = data.GOODS[found.good].value if found else "good"
        chip(
            svg,
            x,
            y + h,
            "craft",
            cid,
            card_values(cid),
            f"{cid} {kind}: {goods} of {spaces} {name} spaces filled",
            44,
            value,
        )
        for i in range(spaces):
            good(svg, name, x + 4 + i * 25, y + h + 22, i < goods)
        h += 47
    return h


def _customers(svg: Svg, v: dict[str, object], x: float, y: float, value: int) -> float:
    h = 0.0
    new = {str(c) for c in as_list(v.get("new_customers"))}
    waiting = as_list(v.get("waiting"))
    if waiting:
        svg.text(x + 2, y + 12, "waiting", font_size=SMALL, fill=MUTED)
        h += 16
    for cid in waiting:
        new_one = str(cid) in new
        h += customer_card(svg, x, y + h, str(cid), new_one, COL_W, True, value) + 4
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


def _harvest(svg: Svg, v: dict[str, object], x: float, y: float, value: int) -> float:
    h = 0.0
    used = as_list(v.get("fields_used"))
    for i, ploughed in enumerate(as_list(v.get("fields"))):
        was_used = i < len(used) and bool(used[i])
        tip = f"field {i + 1}: {'a plough on it' if ploughed else 'bare'}"
        tip += ", used this turn" if was_used else ""
        chip(svg, x, y + h, "field", f"field {i + 1}", data.FIELD_VALUES, tip, 44, value)
        good(svg, "plough", x + 4, y + h + 22, bool(ploughed))
        if was_used:
            svg.text(x + 32, y + h + 35, "used ✓", font_size=SMALL, fill=MUTED)
        h += 47
    return h


AREA_DRAW: dict[str, Callable[[Svg, dict[str, object], float, float, int], float]] = {
    "church": _church,
    "council": _council,
    "travel": _travel,
    "crafts": _crafts,
    "customers": _customers,
    "harvest": _harvest,
}
