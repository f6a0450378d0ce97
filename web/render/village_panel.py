"""Whether the Village game's end is triggered (by whom, who still owes a last turn), and a
family's panel: prestige, the time track, the farmyard with its members and grain, cubes,
coins, goods, the customers served, the towns marked, and the members off the board (the
unborn, those in the chronicle, those who left the game)."""

from __future__ import annotations

from games.village import data as vd
from web.render.common import as_dict, as_list, num, seat_label
from web.render.svg import Svg
from web.render.village_draw import (
    GOODS,
    WIDTH,
    box,
    coin,
    cube_count,
    demand,
    generations,
    note,
    sack,
    token,
    tokens,
)

PANEL_H, END_H = 136, 28
INFLUENCE = vd.COLOUR_NAMES[:4]


def panel(svg: Svg, state: dict[str, object], seat: int, p: dict[str, object], y: float) -> None:
    """One family: prestige, time, farmyard, resources, customers, towns, unborn and dead."""
    svg.rect(2, y, WIDTH - 4, PANEL_H - 6, f"seat {seat + 1}", fill="#fff", stroke="#999", rx="3")
    prestige = num(p.get("prestige"))
    start = " · starting player" if num(state.get("starting_player")) == seat else ""
    seat_label(svg, seat, 8, y + 6, f" · prestige {prestige}{start}")
    time = num(p.get("time"))
    lap = vd.LAP_LENGTH
    tx = 390
    note(svg, tx - 6, y + 19, "time", text_anchor="end")
    for k in range(lap):
        fill = "#fde9b0" if k == time % lap else "#f4f4f4"
        svg.rect(tx + k * 16, y + 6, 15, 18, f"time track space {k}", fill=fill, stroke="#bbb")
    svg.marker(seat, tx + (time % lap) * 16 + 7.5, y + 15, 6, f"time marker: {time} spent")
    due = num(p.get("deaths_due"))
    note(svg, tx + lap * 16 + 8, y + 19, f"{time} spent · lap {time // lap + 1} · deaths due {due}")
    # The farmyard: its members and its grain (at most GRAIN_CAPACITY sacks).
    box(svg, 8, y + 30, 250, PANEL_H - 42, f"seat {seat + 1}'s farmyard")
    svg.text(16, y + 46, "Farmyard", font_size="13", font_weight="bold")
    members = as_dict(p.get("members"))
    home = [(seat, g) for g in generations(members.get("farmyard"))]
    tokens(svg, home, 24, y + 62, 9, "farmyard", 24)
    grain = num(p.get("grain"))
    note(svg, 16, y + 113, f"grain {grain}")
    for k in range(vd.GRAIN_CAPACITY):
        sack(svg, 80 + k * 18, y + 99, k < grain, f"grain {grain} of {vd.GRAIN_CAPACITY}")
    # Cubes, coins, goods, customers served.
    cx = 270.0
    cubes = as_dict(p.get("cubes"))
    for colour in INFLUENCE:
        cx = cube_count(svg, colour, num(cubes.get(colour)), cx, y + 32, f"held by seat {seat + 1}")
    coin(svg, cx, y + 32, num(p.get("coins")), f"seat {seat + 1}'s coins", "coins ")
    goods = as_dict(p.get("goods"))
    svg.text(270, y + 72, " · ".join(f"{g} {num(goods.get(g))}" for g in GOODS), font_size="13")
    served = [str(t) for t in as_list(p.get("customers"))]
    note(svg, 270, y + 98, "served:" + ("" if served else " no customer yet"))
    for k, tile in enumerate(served[:7]):
        pts = demand(tile)[1]
        svg.rect(
            322 + k * 50,
            y + 85,
            46,
            18,
            f"served {tile} ({pts} prestige)",
            fill="#fffdf5",
            stroke="#6b5a2e",
            rx="3",
        )
        svg.text(345 + k * 50, y + 98, f"{tile} {pts}★", font_size="12", text_anchor="middle")
    if len(served) > 7:
        note(svg, 322 + 7 * 50, y + 98, f"+{len(served) - 7}")
    towns = [str(t) for t in as_list(p.get("towns"))]
    note(svg, 270, y + 122, "towns marked: " + (", ".join(towns) if towns else "none"))
    _elsewhere(svg, seat, members, 660, y)


def _elsewhere(svg: Svg, seat: int, members: dict[str, object], x: float, y: float) -> None:
    """The members off the board: unborn, in the chronicle, removed from the game."""
    rows = (("unborn", "unborn"), ("chronicle", "in the chronicle"), ("removed", "left the game"))
    cy = y + 50
    for key, label in rows:
        gens = generations(members.get(key))
        if key == "removed" and not gens:
            continue
        note(svg, x, cy + 4, label)
        for k, gen in enumerate(gens):
            token(
                svg,
                seat,
                gen,
                x + 120 + k * 22,
                cy,
                f"seat {seat + 1}, generation {gen}, {label}",
                9,
            )
        if not gens:
            note(svg, x + 110, cy + 4, "none")
        cy += 26


def ending(svg: Svg, state: dict[str, object], y: float) -> None:
    """Whether the end is triggered, by whom, and who still owes a last turn."""
    end = as_dict(state.get("end"))
    if not end.get("triggered"):
        note(svg, 6, y + 18, "End: not triggered (it comes when the chronicle or the graves fill).")
        return
    svg.rect(
        2,
        y + 2,
        WIDTH - 4,
        END_H - 4,
        "the end is triggered",
        fill="#fff2cc",
        stroke="#E69F00",
        rx="3",
    )
    who = end.get("trigger_player")
    left = [str(num(s)) for s in as_list(end.get("last_turns"))]
    text = f"End triggered by seat {num(who) + 1}" if who is not None else "End triggered"
    text += "; last turns still owed: seats " + ", ".join(left) if left else "; no last turn left"
    svg.text(10, y + 19, text, font_size="13", font_weight="bold")
