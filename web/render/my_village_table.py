"""The My Village main board: the dice pool, the turn order and the first-player hand, the
village cards on offer, the customer display, the chronicle and graves with the coffin
count, and the rat track. Each function draws one area from ``y`` and returns the ``y``
below it."""

from __future__ import annotations

from games.my_village import data
from web.render.common import as_dict, as_list, num, opt_seat
from web.render.my_village_parts import (
    MUTED,
    SMALL,
    banner,
    card,
    card_values,
    customer_card,
    die,
    short_church,
)
from web.render.svg import Svg

CARD_W, CARD_H, GAP = 92, 58, 4
TITLE_H = 18


def title(svg: Svg, x: float, y: float, text: str) -> None:
    """A group title above a row of cards."""
    svg.text(x, y + 13, text, font_size="13", font_weight="bold")


def dice_and_turns(svg: Svg, state: dict[str, object], y: float) -> float:
    """The dice left in the pool, the turn order (the turn being played boxed) and the
    first-player hand with its banner."""
    title(svg, 8, y, "Dice pool")
    pool = as_list(state.get("pool"))
    for i, entry in enumerate(pool):
        colour, pips = ([*as_list(entry), "white", 0])[:2]
        die(svg, str(colour), num(pips), 8 + i * 33, y + TITLE_H + 2)
    if not pool:
        svg.text(8, y + TITLE_H + 20, "empty: the round is played out", font_size=SMALL, fill=MUTED)
    x0 = 380
    title(svg, x0, y, "Turn order")
    here = num(state.get("turn_index"))
    for i, seat in enumerate(as_list(state.get("turn_order"))):
        x = x0 + i * 30
        if i == here:
            svg.rect(
                x,
                y + TITLE_H,
                26,
                32,
                f"turn {i + 1}: now playing",
                fill="#fff3c4",
                stroke="#000",
                stroke_width="2",
                rx="3",
            )
        svg.marker(num(seat), x + 13, y + TITLE_H + 16, 8, f"turn {i + 1}: seat {num(seat) + 1}")
    first = num(state.get("first_player"))
    svg.text(x0, y + TITLE_H + 48, f"first player: seat {first + 1}", font_size=SMALL, fill=MUTED)
    _hand(svg, as_dict(state.get("hand")), 600, y, turn_value(state))
    return y + TITLE_H + 56


def turn_value(state: dict[str, object]) -> int:
    """The banner value of the turn being played (0 before it is fixed)."""
    return num(as_dict(state.get("decision")).get("value"))


def _hand(svg: Svg, hand: dict[str, object], x: float, y: float, value: int) -> None:
    """The first-player hand (its black banner, holder, side up, story points on it)."""
    palm = bool(hand.get("palm"))
    holder = opt_seat(hand.get("holder"))
    title(svg, x, y, "First-player hand")
    tip = f"the hand: {'palm up (can be taken)' if palm else 'back up'}"
    card(svg, x, y + TITLE_H, 192, 50, "meeting", "palm up" if palm else "back up", tip)
    banner(svg, x + 146, y + TITLE_H + 3, data.HAND_VALUES, black=True, w=42, value=value)
    if holder is not None:
        svg.marker(holder, x + 14, y + TITLE_H + 33, 8, f"held by seat {holder + 1}")
        svg.text(x + 26, y + TITLE_H + 38, f"seat {holder + 1}", font_size=SMALL)
    svg.text(x + 80, y + TITLE_H + 38, f"{num(hand.get('sp'))} SP on it", font_size=SMALL)


def _offer(
    svg: Svg,
    x: float,
    y: float,
    kind: str,
    head: str,
    line: str,
    values: tuple[int, ...],
    tip: str,
    value: int = 0,
) -> None:
    card(svg, x, y, CARD_W, CARD_H, kind, head, tip)
    svg.text(x + 4, y + 30, line, font_size=SMALL)
    banner(svg, x + 4, y + 36, values, black=True, w=46, value=value)


def _empty(svg: Svg, x: float, y: float, head: str, tip: str) -> None:
    card(svg, x, y, CARD_W, CARD_H, "", head, tip, dashed=True)
    svg.text(x + 4, y + 30, "empty", font_size=SMALL, fill=MUTED)


def _stack(
    svg: Svg, x: float, y: float, kind: str, name: str, stack: dict[str, object], value: int
) -> None:
    """One stack or column: its top card (the one on offer) and how many cards it holds."""
    top, count = stack.get("top"), num(stack.get("count"))
    if top is None:
        _empty(svg, x, y, name, f"{name}: empty")
        return
    tip = f"{name}: {top} on top of {count} card{'s' if count != 1 else ''}"
    _offer(svg, x, y, kind, str(top), f"{name} ×{count}", card_values(str(top)), tip, value)


def offers(svg: Svg, state: dict[str, object], y: float) -> float:
    """The village cards still to take: churches and council chambers (every one on
    offer), the monk and travel stacks and craft columns (their top card), and the piles of
    meeting points and fields."""
    row = CARD_W + GAP
    value = turn_value(state)
    title(svg, 8, y, "Churches")
    for i, cid in enumerate(as_list(state.get("churches"))):
        tip = f"{cid} {short_church(str(cid))}"
        _offer(
            svg,
            8 + i * row,
            y + TITLE_H,
            "church",
            str(cid),
            short_church(str(cid)),
            card_values(str(cid)),
            tip,
            value,
        )
    x0 = 8 + 4 * row + 8
    title(svg, x0, y, "Council chambers")
    for i, cid in enumerate(as_list(state.get("council_chambers"))):
        name = data.CHAMBER_BY_ID[str(cid)].name if str(cid) in data.CHAMBER_BY_ID else ""
        _offer(
            svg,
            x0 + i * row,
            y + TITLE_H,
            "chamber",
            str(cid),
            name,
            card_values(str(cid)),
            f"{cid} {name}",
            value,
        )
    y += TITLE_H + CARD_H + 6
    title(svg, 8, y, "Monks (top of each stack)")
    for i, (symbol, stack) in enumerate(as_dict(state.get("monks")).items()):
        _stack(svg, 8 + i * row, y + TITLE_H, "monk", symbol, as_dict(stack), value)
    x0 = 8 + 3 * row + 8
    title(svg, x0, y, "Travel (top of each stack)")
    for i, (letter, stack) in enumerate(as_dict(state.get("travel")).items()):
        _stack(svg, x0 + i * row, y + TITLE_H, "travel", letter, as_dict(stack), value)
    y += TITLE_H + CARD_H + 6
    title(svg, 8, y, "Craft buildings (top of each column)")
    for i, (kind, stack) in enumerate(as_dict(state.get("crafts")).items()):
        _stack(svg, 8 + i * row, y + TITLE_H, "craft", kind, as_dict(stack), value)
    x0 = 8 + 5 * row + 8
    title(svg, x0, y, "Piles")
    for i, (key, kind, name, values) in enumerate(
        (
            ("meeting_points", "meeting", "meeting pt", data.MP_BLACK_VALUES),
            ("fields", "field", "field", data.FIELD_VALUES),
        )
    ):
        left = num(state.get(key))
        x = x0 + i * row
        if left:
            _offer(
                svg,
                x,
                y + TITLE_H,
                kind,
                f"{name}s",
                f"×{left} left",
                values,
                f"{left} {name} cards left",
                value,
            )
        else:
            _empty(svg, x, y + TITLE_H, f"{name}s", f"no {name} cards left")
    return y + TITLE_H + CARD_H + 6


def display(svg: Svg, state: dict[str, object], y: float) -> float:
    """The customer display, in display order, and the hidden deck's size."""
    title(svg, 8, y, "Customer display (overseer's office)")
    banner(svg, 280, y, data.OVERSEER_VALUES, black=True, w=42, value=turn_value(state))
    for i, cid in enumerate(as_list(state.get("display"))):
        customer_card(svg, 8 + i * 104, y + TITLE_H + 2, str(cid), w=100)
    deck = num(state.get("customer_deck"))
    x = 8 + 6 * 104 + 8
    svg.rect(x + 4, y + TITLE_H + 6, 100, 58, None, fill="#d8cfa8", stroke="#555", rx="4")
    svg.rect(
        x,
        y + TITLE_H + 2,
        100,
        58,
        f"customer deck: {deck} cards, face down",
        fill="#b9a86a",
        stroke="#555",
        rx="4",
    )
    svg.text(
        x + 50, y + TITLE_H + 26, "deck", font_size="13", font_weight="bold", text_anchor="middle"
    )
    svg.text(x + 50, y + TITLE_H + 44, f"{deck} cards", font_size=SMALL, text_anchor="middle")
    return y + TITLE_H + 68


def chronicle(svg: Svg, state: dict[str, object], y: float) -> float:
    """The chronicle (two spaces per profession, the buried seats on them), the anonymous
    graves, the coffins filled against the count that ends the game, and the rat track."""
    title(svg, 8, y, "Chronicle (buried villagers)")
    chron = as_dict(state.get("chronicle"))
    for i, prof in enumerate(p.value for p in data.PROFESSIONS):
        x = 8 + i * 110
        svg.text(x, y + TITLE_H + 13, prof, font_size=SMALL)
        buried = as_list(chron.get(prof))
        for j, sp in enumerate(data.CHRONICLE_SP):
            bx = x + j * 34
            seat = opt_seat(buried[j]) if j < len(buried) else None
            svg.rect(
                bx,
                y + TITLE_H + 18,
                30,
                30,
                f"{prof} chronicle space {j + 1}: +{sp} SP",
                fill="#f4f0e6",
                stroke="#777",
                rx="3",
            )
            if seat is None:
                svg.text(
                    bx + 15,
                    y + TITLE_H + 38,
                    f"+{sp}",
                    font_size=SMALL,
                    fill=MUTED,
                    text_anchor="middle",
                )
            else:
                svg.marker(seat, bx + 15, y + TITLE_H + 33, 9, f"seat {seat + 1}'s {prof}")
    x0 = 8 + 5 * 110
    graves = as_list(state.get("graves"))
    title(svg, x0, y, "Anonymous graves")
    for i, dead in enumerate(graves):
        svg.marker(
            num(dead),
            x0 + 10 + (i % 10) * 22,
            y + TITLE_H + 10 + (i // 10) * 20,
            8,
            f"grave {i + 1}: seat {num(dead) + 1}",
        )
    if not graves:
        svg.text(x0, y + TITLE_H + 13, "none yet", font_size=SMALL, fill=MUTED)
    y += TITLE_H + 56
    _coffins(svg, num(state.get("coffins")), num(state.get("end_coffins")), 8, y)
    _rat(svg, num(state.get("rat")), num(state.get("plagues")), 420, y)
    return y + TITLE_H + 34


def _coffins(svg: Svg, filled: int, end: int, x: float, y: float) -> None:
    title(svg, x, y, f"Coffins {filled} of {end} (the game ends at {end})")
    size = min(20, 390 // max(end, 1))
    for i in range(max(end, filled)):
        svg.rect(
            x + i * size,
            y + TITLE_H + 4,
            size - 3,
            22,
            f"coffin {i + 1}",
            fill="#333" if i < filled else "#fff",
            stroke="#333",
            rx="2",
        )


def _rat(svg: Svg, rat: int, plagues: int, x: float, y: float) -> None:
    title(svg, x, y, f"Rat track (plagues so far: {plagues})")
    for i in range(data.RAT_TRACK):
        red, grey = i in data.RAT_RED, i in data.RAT_GREY
        what = "plague" if red else "the rat stops" if grey else "space"
        fill = "#E8A0A0" if red else "#bbbbbb" if grey else "#fff"
        svg.rect(
            x + i * 30,
            y + TITLE_H + 4,
            28,
            26,
            f"rat space {i}: {what}",
            fill=fill,
            stroke="#555",
            rx="3",
        )
        if i == rat:
            svg.el(
                "ellipse",
                f"the rat on space {i}",
                cx=str(x + i * 30 + 14),
                cy=str(y + TITLE_H + 17),
                rx="11",
                ry="8",
                fill="#5b4636",
                stroke="#000",
            )
            svg.text(
                x + i * 30 + 14,
                y + TITLE_H + 21,
                "rat",
                font_size=SMALL,
                fill="#fff",
                text_anchor="middle",
            )
        else:
            svg.text(
                x + i * 30 + 14,
                y + TITLE_H + 22,
                str(i),
                font_size=SMALL,
                fill=MUTED,
                text_anchor="middle",
            )
