"""Village: the seven action spaces with their cubes, the market stalls and a panel per seat
(prestige, time, coins, grain, cubes, goods). Members, chronicles, customers and the end
trigger are listed as text beside the board."""

from __future__ import annotations

from web.render import Frame, register
from web.render.common import as_dict, as_list, cube, header, num, opt_seat, seat_label, stat
from web.render.svg import Svg

SPACES = ("harvest", "family", "crafts", "market", "travel", "council", "church")
COLOURS = ("brown", "pink", "orange", "green", "plague")
DRAWN = frozenset(
    {
        "round",
        "active",
        "decision.kind",
        "decision.player",
        "board",
        "market.stalls",
        "market.pile",
        "players.*.prestige",
        "players.*.time",
        "players.*.coins",
        "players.*.grain",
        "players.*.cubes",
        "players.*.goods",
    }
)

WIDTH, SPACE_W, PANEL_H = 800, 112, 74


@register("village")
def draw(state: dict[str, object]) -> Frame:
    """The Village board of one public state."""
    players = [as_dict(p) for p in as_list(state.get("players"))]
    height = 36 + 130 + 44 + PANEL_H * len(players) + 8
    svg = Svg(WIDTH, height, "Village board")
    decision = as_dict(state.get("decision"))
    header(
        svg,
        f"Round {num(state.get('round'))} · {decision.get('kind', '')}",
        opt_seat(state.get("active")),
    )
    board = as_dict(state.get("board"))
    for i, space in enumerate(SPACES):
        x, y = 4 + i * (SPACE_W + 2), 36
        svg.rect(x, y, SPACE_W, 124, f"{space} space", fill="#fbf6e9", stroke="#8a7a50")
        svg.text(x + 6, y + 16, space, font_size="13", font_weight="bold")
        cubes = as_dict(board.get(space))
        for j, colour in enumerate(COLOURS):
            cube(svg, colour, num(cubes.get(colour)), x + 8, y + 24 + j * 20)
    market = as_dict(state.get("market"))
    y = 36 + 130
    svg.text(6, y + 16, "Market stalls:", font_size="13", font_weight="bold")
    for i, tile in enumerate(as_list(market.get("stalls"))):
        svg.rect(110 + i * 70, y + 2, 64, 22, f"stall {i + 1}: {tile}", fill="#fff", stroke="#555")
        svg.text(142 + i * 70, y + 18, str(tile), font_size="12", text_anchor="middle")
    svg.text(WIDTH - 150, y + 16, f"customer pile {num(market.get('pile'))}", font_size="12")
    scores = []
    for seat, p in enumerate(players):
        y = 36 + 130 + 44 + seat * PANEL_H
        svg.rect(2, y, WIDTH - 4, PANEL_H - 4, f"seat {seat}", fill="#ffffff", stroke="#999")
        prestige = num(p.get("prestige"))
        scores.append(float(prestige))
        seat_label(svg, seat, 8, y + 6, f" · prestige {prestige}")
        stat(svg, "time", num(p.get("time")), 250, y + 19)
        stat(svg, "coins", num(p.get("coins")), 330, y + 19)
        stat(svg, "grain", num(p.get("grain")), 410, y + 19)
        cubes = as_dict(p.get("cubes"))
        for j, colour in enumerate(c for c in COLOURS if c in cubes):
            cube(svg, colour, num(cubes.get(colour)), 10 + j * 46, y + 32, 16)
        goods = as_dict(p.get("goods"))
        gx = 250
        for name, count in goods.items():
            stat(svg, name, num(count), gx, y + 46)
            gx += 90
    return Frame(svg.markup(), DRAWN, tuple(scores))
