"""Farmaria's board: the year and VP tracks with the seats' markers, and the Common Market:
its eight positions, the stacks with their active cards (a field sold with its goods as a
bundle) and the basket on the position that received the last card.

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
        svg.marker(
            seat, 60 + v * cell + cell / 2, vy + 30 + level * 15, 6, f"seat {seat + 1}: {vp} VP"
        )
    return 28 + 36 + max(stack.values(), default=1) * 15


def market(svg: Svg, state: dict[str, object], y: float) -> float:
    """The Common Market's eight positions (the used ones hold stacks) and the basket on
    the position that received the last card; returns the height used."""
    svg.text(8, y + 15, "Common Market", font_size="13", font_weight="bold")
    stacks = [as_dict(s) for s in as_list(state.get("market"))]
    marker = num(state.get("marker"))
    top = y + 30  # room for the cards stacked under the top ones
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
    return 30 + CARD_H + 24


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
