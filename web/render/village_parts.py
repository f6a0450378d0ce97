"""The rest of the Village table: the market (stalls, queue, pile), the chronicle and the
graves, the black and green bags and the supply."""

from __future__ import annotations

from games.village import data as vd
from web.render.common import as_dict, as_list, num
from web.render.svg import Svg
from web.render.village_draw import (
    GOODS,
    WIDTH,
    at,
    box,
    coin,
    cube_count,
    customer,
    fmt,
    note,
    sack,
    title,
    token,
    tokens,
)

TILE_W, TILE_H, TILE_GAP = 82, 60, 5
MARKET_H, TABLES_H = 106, 196


def market(svg: Svg, market_state: dict[str, object], n: int, y: float) -> None:
    """The stalls in use (and those the player count leaves empty), the queue, the pile."""
    title(svg, 6, y + 14, "Market")
    note(svg, 70, y + 14, "customers on the stalls may be served; the queue waits its turn")
    stalls = as_list(market_state.get("stalls"))
    queue = as_list(market_state.get("queue"))
    top = y + 24
    for i in range(vd.STALLS):
        x = 4 + i * (TILE_W + TILE_GAP)
        if i < len(stalls):
            customer(svg, stalls[i], x, top, TILE_W, TILE_H, f"stall {i + 1}")
        else:
            svg.rect(
                x,
                top,
                TILE_W,
                TILE_H,
                f"stall {i + 1}: not used with {n} players",
                fill="#e6e6e6",
                stroke="#aaa",
                rx="4",
            )
            note(svg, x + TILE_W / 2, top + 26, "not used", text_anchor="middle")
            note(svg, x + TILE_W / 2, top + 42, f"({n} players)", text_anchor="middle")
    q0 = 4 + vd.STALLS * (TILE_W + TILE_GAP) + 12
    svg.el(
        "line",
        None,
        x1=fmt(q0 - 9),
        y1=fmt(top),
        x2=fmt(q0 - 9),
        y2=fmt(top + TILE_H),
        stroke="#8a7a50",
        stroke_width="2",
        stroke_dasharray="4 3",
    )
    for i in range(vd.QUEUE):
        tile = queue[i] if i < len(queue) else None
        customer(svg, tile, q0 + i * (TILE_W + TILE_GAP), top, TILE_W, TILE_H, f"queue {i + 1}")
    px = q0 + vd.QUEUE * (TILE_W + TILE_GAP)
    pile = num(market_state.get("pile"))
    for k in range(min(pile, 3)):
        svg.rect(
            px + 6 - 3 * k,
            top + 6 - 3 * k,
            WIDTH - 14 - px,
            TILE_H - 10,
            f"customer pile: {pile} face down",
            fill="#c9b98c",
            stroke="#6b5a2e",
            rx="4",
        )
    svg.text(
        px + (WIDTH - 4 - px) / 2,
        top + 30,
        str(pile),
        font_size="16",
        font_weight="bold",
        text_anchor="middle",
    )
    note(svg, px + (WIDTH - 4 - px) / 2, top + TILE_H + 14, "pile", text_anchor="middle")
    note(svg, 4 + TILE_W / 2, top + TILE_H + 14, "stalls →", text_anchor="middle")
    note(svg, q0 + TILE_W / 2, top + TILE_H + 14, "queue →", text_anchor="middle")


def chronicle(
    svg: Svg, state: dict[str, object], players: list[dict[str, object]], n: int, y: float
) -> None:
    """The chronicle by category and the anonymous graves; spaces the player count blocks are
    crossed out."""
    title(svg, 6, y + 14, "Chronicle")
    free = as_dict(state.get("chronicle_free"))
    usable = vd.CHRONICLE_PER_CATEGORY.get(n, 4)
    for r, cat in enumerate(vd.CATEGORY_NAMES):
        cy = y + 34 + r * 26
        note(svg, 8, cy + 4, cat)
        dead = [
            s
            for s, p in enumerate(players)
            for _ in range(num(as_dict(p.get("chronicle")).get(cat)))
        ]
        for k in range(4):
            x = 92 + k * 26
            if k < len(dead):
                svg.marker(dead[k], x, cy, 9, f"seat {dead[k] + 1}'s member in the {cat} chronicle")
            elif k < usable:
                svg.el(
                    "circle",
                    f"{cat} chronicle: free",
                    cx=fmt(x),
                    cy=fmt(cy),
                    r="9",
                    fill="none",
                    stroke="#777",
                    stroke_dasharray="3 2",
                )
            else:
                _blocked(svg, x, cy, f"{cat} chronicle: blocked with {n} players")
        note(svg, 196, cy + 4, f"{num(free.get(cat))} free")
    gy = y + 34 + 5 * 26 + 4
    note(svg, 8, gy + 4, "graves")
    graves = at(players, "grave")
    usable = vd.GRAVES.get(n, 6)
    for k in range(6):
        x = 92 + k * 26
        if k < len(graves):
            seat, gen = graves[k]
            token(svg, seat, gen, x, gy, f"seat {seat + 1}, generation {gen}, in a grave", 9)
        elif k < usable:
            svg.el(
                "rect",
                "a free grave",
                x=fmt(x - 9),
                y=fmt(gy - 9),
                width="18",
                height="18",
                fill="none",
                stroke="#777",
                stroke_dasharray="3 2",
            )
        else:
            _blocked(svg, x, gy, f"grave blocked with {n} players")
    note(svg, 252, gy + 4, f"{num(state.get('graves_free'))} free")


def _blocked(svg: Svg, x: float, y: float, tip: str) -> None:
    svg.rect(x - 9, y - 9, 18, 18, tip, fill="#ddd", stroke="#999")
    svg.el(
        "path",
        None,
        d=f"M{fmt(x - 6)} {fmt(y - 6)}l12 12M{fmt(x + 6)} {fmt(y - 6)}l-12 12",
        stroke="#888",
        stroke_width="2",
    )


def bags(svg: Svg, state: dict[str, object], players: list[dict[str, object]], y: float) -> None:
    """The black bag (monks and members waiting for the mass) and the last majority."""
    x0 = 312
    title(svg, x0, y + 14, "Black bag")
    box(svg, x0, y + 22, 240, 104, "the black bag", "#ececec")
    monks = num(as_dict(state.get("black_bag")).get("monks"))
    for k in range(monks):
        cx = x0 + 16 + k * 24
        svg.el("circle", "a monk", cx=fmt(cx), cy=fmt(y + 42), r="10", fill="#222", stroke="#000")
        svg.text(cx, y + 46.5, "M", font_size="12", text_anchor="middle", fill="#fff")
    note(svg, x0 + 16 + monks * 24, y + 46, "monks")
    inside = at(players, "bag")
    tokens(svg, inside, x0 + 16, y + 70, 9, "in the black bag")
    if not inside:
        note(svg, x0 + 8, y + 74, "no family member in the bag")
    majority = [num(s) for s in as_list(state.get("last_majority"))]
    note(svg, x0 + 8, y + 118, "last mass majority:" + ("" if majority else " nobody"))
    for k, seat in enumerate(majority):
        svg.marker(seat, x0 + 134 + k * 18, y + 114, 6, f"seat {seat + 1} had the majority")
    _counts(svg, "Green bag", as_dict(state.get("green_bag")), 568, y + 14, "in the green bag")


def _counts(svg: Svg, label: str, cubes: dict[str, object], x: float, y: float, where: str) -> None:
    title(svg, x, y, label)
    cx = x
    for colour in vd.COLOUR_NAMES:
        cx = cube_count(svg, colour, num(cubes.get(colour)), cx, y + 8, where)


def supply(svg: Svg, state: dict[str, object], y: float) -> None:
    """The general supply: cubes, coins, grain and goods."""
    sup = as_dict(state.get("supply"))
    x = 568
    _counts(svg, "Supply", as_dict(sup.get("cubes")), x, y + 64, "in the supply")
    cy = y + 96
    cx = coin(svg, x, cy, num(sup.get("coins")), "coins in the supply")
    sack(svg, cx, cy, True, "grain in the supply")
    svg.text(cx + 18, cy + 14, f"{num(sup.get('grain'))} grain", font_size="13")
    goods = as_dict(sup.get("goods"))
    line = " · ".join(f"{g} {num(goods.get(g))}" for g in GOODS)
    svg.text(x, cy + 38, line, font_size="13")
