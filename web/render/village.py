"""Village: the board drawn from the public state.

On top the round, the starting player and the seat to move; then the seven action spaces
with their cubes and the well; the crafts buildings, the council and church tracks and the
travel map, each with the family members standing there as tokens (the seat's colour and
shape with the generation on it); the market's stalls, queue and pile with the customer tiles
face up; the chronicle, the graves, the black bag with its monks and members, the green bag
and the supply; whether the end is triggered; and a panel per family with its prestige, time
track, farmyard (members and grain), cubes, coins, goods, customers served, towns marked, the
unborn and the dead. Printed facts (building goods, stage and window points, town rewards,
path costs, customer demands) come from ``games.village.data``.

What stays text beside the board is ``decision``: the question the engine is asking a seat
(its kind and details such as a market day's passes). It is not a piece on the table.
"""

from __future__ import annotations

from web.render import Frame, register
from web.render.common import as_dict, as_list, header, num, opt_seat
from web.render.village_draw import WIDTH, VillageSvg
from web.render.village_panel import END_H, PANEL_H, ending, panel
from web.render.village_parts import (
    MARKET_H,
    TABLES_H,
    bags,
    chronicle,
    market,
    supply,
)
from web.render.village_places import GROUP_H, SPACE_H, action_spaces, places

DRAWN = frozenset(
    {
        "round",
        "starting_player",
        "next_starting_player",
        "active",
        "board",
        "green_bag",
        "black_bag",
        "supply",
        "market",
        "chronicle_free",
        "graves_free",
        "last_majority",
        "end",
        "players.*.time",
        "players.*.deaths_due",
        "players.*.cubes",
        "players.*.coins",
        "players.*.grain",
        "players.*.goods",
        "players.*.prestige",
        "players.*.customers",
        "players.*.towns",
        "players.*.members",
        "players.*.chronicle",
    }
)

SPACES_Y = 36
PLACES_Y = SPACES_Y + SPACE_H + 6
MARKET_Y = PLACES_Y + 3 * GROUP_H + 4
TABLES_Y = MARKET_Y + MARKET_H
END_Y = TABLES_Y + TABLES_H
PANELS_Y = END_Y + END_H


@register("village")
def draw(state: dict[str, object]) -> Frame:
    """The Village board of one public state."""
    players = [as_dict(p) for p in as_list(state.get("players"))]
    n = len(players)
    svg = VillageSvg(WIDTH, PANELS_Y + PANEL_H * n + 4, "Village board")
    start = num(state.get("starting_player"))
    # Once the game is over nobody is to move, though the state still names a last active seat.
    over = as_dict(state.get("decision")).get("kind") == "over"
    line = f"Village · round {num(state.get('round'))} · seat {start + 1} started the round"
    header(
        svg,
        line + (" · game over" if over else ""),
        None if over else opt_seat(state.get("active")),
    )
    action_spaces(svg, as_dict(state.get("board")), SPACES_Y)
    places(svg, state, players, PLACES_Y)
    market(svg, as_dict(state.get("market")), n, MARKET_Y)
    chronicle(svg, state, players, n, TABLES_Y)
    bags(svg, state, players, TABLES_Y)
    supply(svg, state, TABLES_Y)
    ending(svg, state, END_Y)
    scores = []
    for seat, p in enumerate(players):
        panel(svg, state, seat, p, PANELS_Y + seat * PANEL_H)
        scores.append(float(num(p.get("prestige"))))
    return Frame(svg.markup(), DRAWN, tuple(scores))
