"""The places of the Village board: the seven action spaces and the well, the crafts
buildings, the council and church tracks, and the travel map with its towns and paths.
Members stand on them as tokens (seat shape and colour, generation number)."""

from __future__ import annotations

from games.village import data as vd
from web.render.common import as_dict, as_list, num, opt_seat
from web.render.svg import Svg
from web.render.village_draw import (
    GOODS,
    WIDTH,
    at,
    box,
    cube,
    fmt,
    note,
    title,
    tokens,
)

SPACE_W, SPACE_H = 114, 84
PLACE_W, PLACE_H, GROUP_H = 134, 88, 112
MAP_X, MAP_W = 564, 392

PRIVILEGE = ("→ start marker", "→ 2 cubes", "→ 1 good", "→ 1 coin: 3★")
REWARD = {vd.REWARD_PRESTIGE: "3★", vd.REWARD_COIN: "1 coin", vd.REWARD_CUBES: "2 cubes"}
# Town centres on the map, relative to its corner; the village sits at the left.
TOWN_AT = ((134, 92), (134, 188), (238, 50), (238, 140), (238, 230), (344, 140))
VILLAGE_AT, TOWN_W, TOWN_H, VILLAGE_W = (40, 140), 84, 64, 64


def action_spaces(svg: Svg, board: dict[str, object], y: float) -> None:
    """The seven action spaces with their cubes, then the well."""
    for i, space in enumerate(vd.SPACE_NAMES):
        x = 4 + i * (SPACE_W + 4)
        cubes = as_dict(board.get(space))
        total = sum(num(v) for v in cubes.values())
        box(svg, x, y, SPACE_W, SPACE_H, f"{space} space: {total} cubes")
        svg.text(x + 8, y + 17, space, font_size="13", font_weight="bold")
        laid = [c for c in vd.COLOUR_NAMES for _ in range(num(cubes.get(c)))]
        for j, colour in enumerate(laid[:8]):
            cube(
                svg,
                colour,
                x + 8 + (j % 4) * 24,
                y + 26 + (j // 4) * 24,
                20,
                f"{colour} cube on {space}",
            )
        if not laid:
            note(svg, x + 8, y + 44, "empty")
        elif len(laid) > 8:
            note(svg, x + SPACE_W - 6, y + 17, f"+{len(laid) - 8}", text_anchor="end")
    x = 4 + 7 * (SPACE_W + 4)
    w = WIDTH - 4 - x
    svg.rect(x, y, w, SPACE_H, "the well", fill="#e8f1f8", stroke="#4a6f8a", rx="4")
    svg.text(x + 8, y + 17, "Well", font_size="13", font_weight="bold")
    for k, line in enumerate(("3 cubes of a", "colour (or coins)", "→ any action")):
        note(svg, x + 8, y + 36 + k * 16, line)


def _head(svg: Svg, x: float, top: float, name: str, right: str) -> None:
    """A place's name, and on the right what each member there scores."""
    svg.text(x + 8, top + 16, name, font_size="13", font_weight="bold")
    if right:
        svg.text(
            x + PLACE_W - 6, top + 16, right, font_size="12", text_anchor="end", fill="#7a4b00"
        )


def crafts(svg: Svg, players: list[dict[str, object]], y: float) -> None:
    """The four buildings with the members trained there and the goods they make."""
    title(svg, 6, y + 14, "Crafts buildings")
    for j, name in enumerate(vd.BUILDING_NAMES):
        x, top = 4 + j * (PLACE_W + 4), y + 20
        makes = " or ".join(GOODS[g] for g in vd.BUILDING_GOODS[j])
        box(svg, x, top, PLACE_W, PLACE_H, f"{name}: makes {makes}")
        _head(svg, x, top, name, "")
        note(svg, x + 8, top + 31, f"makes {makes}")
        tokens(svg, at(players, f"building:{name}"), x + 16, top + 50, 5, name)


def council(svg: Svg, players: list[dict[str, object]], nsp: int | None, y: float) -> None:
    """The council track: four stages, their points and privileges, the start marker."""
    title(svg, 6, y + 14, "Council")
    if nsp is None:
        note(svg, 80, y + 14, "next-starting-player marker: in the chamber")
    else:
        note(svg, 80, y + 14, "next-starting-player marker: taken by")
        svg.marker(nsp, 318, y + 10, 7, f"seat {nsp + 1} holds the next-starting-player marker")
        note(svg, 330, y + 14, f"seat {nsp + 1}")
    for s in range(4):
        x, top = 4 + s * (PLACE_W + 4), y + 20
        points = vd.COUNCIL_POINTS[s]
        box(svg, x, top, PLACE_W, PLACE_H, f"council stage {s + 1}: {points} prestige each")
        _head(svg, x, top, f"Stage {s + 1}", f"{points}★")
        note(svg, x + 8, top + 31, PRIVILEGE[s])
        tokens(svg, at(players, f"council:{s + 1}"), x + 16, top + 50, 5, f"council {s + 1}")


def church(svg: Svg, players: list[dict[str, object]], y: float) -> None:
    """The church windows, drawn as on the board: window 1 (the large one) on the right."""
    title(svg, 6, y + 14, "Church")
    note(svg, 70, y + 14, "members arrive on window 1 and move left at the mass")
    for j, w in enumerate((4, 3, 2, 1)):
        x, top = 4 + j * (PLACE_W + 4), y + 20
        points = vd.WINDOW_POINTS[w - 1]
        cost = "from the bag" if w == 1 else f"from {w - 1}: {vd.WINDOW_STEP_GRAIN[w - 2]} grain"
        box(
            svg,
            x,
            top,
            PLACE_W,
            PLACE_H,
            f"church window {w}: {points} prestige each",
            fill="#f3eefa",
        )
        _head(svg, x, top, f"Window {w}", f"{points}★")
        note(svg, x + 8, top + 31, cost)
        tokens(svg, at(players, f"church:{w}"), x + 16, top + 50, 5, f"church window {w}")


def _edge(a: tuple[float, float], b: tuple[float, float], wa: float) -> tuple[float, float]:
    """A point on the path a-b in the gap between the two boxes (a is left of b)."""
    gx = (a[0] + wa / 2 + b[0] - TOWN_W / 2) / 2
    t = (gx - a[0]) / (b[0] - a[0])
    return gx, a[1] + t * (b[1] - a[1])


def travel_map(svg: Svg, players: list[dict[str, object]], x0: float, y: float) -> None:
    """The village, the six towns with their rewards, markers and travellers, the paths."""
    title(svg, x0 + 2, y + 14, "Travel map")
    top = y + 20
    svg.rect(
        x0, top, MAP_W, 3 * GROUP_H - 20, "travel map", fill="#eef5e6", stroke="#6b8a4a", rx="4"
    )
    centre = [(x0 + cx, top + cy) for cx, cy in TOWN_AT]
    village = (x0 + VILLAGE_AT[0], top + VILLAGE_AT[1])
    for a, b, _time, _wagons, colour, count in vd.PATHS:
        pa = village if a == vd.VILLAGE else centre[a]
        wa = VILLAGE_W if a == vd.VILLAGE else TOWN_W
        pb = centre[b]
        name = f"{'village' if a == vd.VILLAGE else vd.TOWN_NAMES[a]} – {vd.TOWN_NAMES[b]}"
        colour_name = vd.COLOUR_NAMES[colour]
        tip = f"path {name}: {_time} time, {_wagons} wagon, {count} {colour_name}"
        svg.el(
            "line",
            tip,
            x1=fmt(pa[0]),
            y1=fmt(pa[1]),
            x2=fmt(pb[0]),
            y2=fmt(pb[1]),
            stroke="#6b5a2e",
            stroke_width="3",
        )
        gx, gy = _edge(pa, pb, wa)
        cube(svg, colour_name, gx - 8, gy - 8, 16, tip)
    vx, vy = village
    svg.rect(
        vx - VILLAGE_W / 2,
        vy - 25,
        VILLAGE_W,
        50,
        "the village",
        fill="#fbf6e9",
        stroke="#8a7a50",
        rx="4",
    )
    svg.text(vx, vy + 5, "Village", font_size="13", font_weight="bold", text_anchor="middle")
    for t, name in enumerate(vd.TOWN_NAMES):
        cx, cy = centre[t]
        bx, by = cx - TOWN_W / 2, cy - TOWN_H / 2
        reward = REWARD[vd.TOWN_REWARD[t]]
        box(svg, bx, by, TOWN_W, TOWN_H, f"town {name}: first visit gives {reward}", "#fff")
        svg.text(bx + 6, by + 15, name, font_size="13", font_weight="bold")
        note(svg, bx + TOWN_W - 6, by + 15, reward, text_anchor="end")
        marked = [s for s, p in enumerate(players) if name in as_list(p.get("towns"))]
        for k, seat in enumerate(marked):
            svg.marker(seat, bx + 10 + k * 16, by + 27, 5, f"seat {seat + 1} marked {name}")
        tokens(svg, at(players, f"town:{name}"), bx + 12, by + 50, 4, f"town {name}", 20, 9)
    note(svg, x0 + 8, top + 3 * GROUP_H - 58, "Every path: 2 time, 1 wagon, 2 cubes")
    note(svg, x0 + 8, top + 3 * GROUP_H - 42, "of its colour. Small shapes: towns marked.")
    note(svg, x0 + 8, top + 3 * GROUP_H - 26, "★: prestige (per member on a track).")


def places(svg: Svg, state: dict[str, object], players: list[dict[str, object]], y: float) -> None:
    """The crafts, council and church tracks on the left, the travel map on the right."""
    crafts(svg, players, y)
    council(svg, players, opt_seat(state.get("next_starting_player")), y + GROUP_H)
    church(svg, players, y + 2 * GROUP_H)
    travel_map(svg, players, MAP_X, y)
