"""My Village: the dice pool, the customer display and a village per seat (villagers, coins,
time, storypoints, crafts, waiting and served customers). The stacks, chronicle, graves and
the rest are listed as text. Public states carry no running score (points are counted at the
end of the game, MV-SCORE), so the scores chart of this game shows the final result only."""

from __future__ import annotations

from web.render import Frame, register
from web.render.common import CUBE_FILL, as_dict, as_list, header, num, opt_seat, seat_label, stat
from web.render.svg import Svg

VILLAGERS = ("abbot", "councilman", "traveller", "craftsman", "merchant")
DRAWN = frozenset(
    {
        "round",
        "decision.kind",
        "decision.player",
        "pool",
        "display",
        "villages.*.coins",
        "villages.*.time",
        "villages.*.sp_tree",
        "villages.*.sp_house",
        "villages.*.villagers",
        "villages.*.crafts",
        "villages.*.waiting",
        "villages.*.served",
    }
)
WIDTH, PANEL_H = 800, 96


def _die(svg: Svg, colour: str, pips: int, x: float, y: float) -> None:
    fill, _, ink = CUBE_FILL.get(colour, ("#ddd", "?", "#000"))
    svg.rect(x, y, 26, 26, f"{colour} die showing {pips}", fill=fill, stroke="#000", rx="4")
    svg.text(x + 13, y + 18, str(pips), font_size="14", text_anchor="middle", fill=ink)


@register("my_village")
def draw(state: dict[str, object]) -> Frame:
    """The My Village table of one public state."""
    villages = [as_dict(v) for v in as_list(state.get("villages"))]
    height = 36 + 80 + PANEL_H * len(villages) + 8
    svg = Svg(WIDTH, height, "My Village table")
    decision = as_dict(state.get("decision"))
    header(
        svg,
        f"Round {num(state.get('round'))} · {decision.get('kind', '')}",
        opt_seat(decision.get("player")),
    )
    svg.text(6, 58, "Dice pool:", font_size="13", font_weight="bold")
    for i, die in enumerate(as_list(state.get("pool"))):
        colour, pips = ([*as_list(die), "?", 0])[:2]
        _die(svg, str(colour), num(pips), 90 + i * 32, 40)
    svg.text(6, 98, "Customers on display:", font_size="13", font_weight="bold")
    for i, card in enumerate(as_list(state.get("display"))):
        svg.rect(180 + i * 58, 82, 52, 22, f"customer {card}", fill="#fff", stroke="#555")
        svg.text(206 + i * 58, 98, str(card), font_size="12", text_anchor="middle")
    for seat, v in enumerate(villages):
        y = 36 + 80 + seat * PANEL_H
        svg.rect(
            2, y, WIDTH - 4, PANEL_H - 4, f"village of seat {seat}", fill="#fff", stroke="#999"
        )
        seat_label(svg, seat, 8, y + 6)
        stat(svg, "coins", num(v.get("coins")), 120, y + 19)
        stat(svg, "time", num(v.get("time")), 200, y + 19)
        stat(svg, "storypoints (tree)", num(v.get("sp_tree")), 280, y + 19)
        stat(svg, "(house)", num(v.get("sp_house")), 420, y + 19)
        alive = as_dict(v.get("villagers"))
        for j, name in enumerate(VILLAGERS):
            here = bool(alive.get(name))
            x = 10 + j * 100
            svg.rect(x, y + 30, 94, 20, f"{name}: {'in the village' if here else 'absent'}",
                     fill="#e8f4ea" if here else "#f4f4f4", stroke="#777",
                     stroke_dasharray=None if here else "3 2")  # fmt: skip
            svg.text(x + 4, y + 44, f"{name} {'✓' if here else '–'}", font_size="11")
        crafts = ", ".join(str(as_dict(c).get("id", "?")) for c in as_list(v.get("crafts")))
        svg.text(10, y + 68, f"crafts: {crafts or 'none'}", font_size="12")
        waiting = ", ".join(str(c) for c in as_list(v.get("waiting"))) or "none"
        served = ", ".join(str(c) for c in as_list(v.get("served"))) or "none"
        svg.text(10, y + 86, f"waiting: {waiting} · served: {served}", font_size="12")
    return Frame(svg.markup(), DRAWN, None)
