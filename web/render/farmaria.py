"""Farmaria: the board and the farms, drawn from one public state.

From the top: the year being played with the seat to answer and the question it is asked,
what lies on the table for that question (an auction's lot and bids, a theft's target, a
card being placed, animals to relocate), the turn order, the year track and the VP track,
the Common Market with its stacks and basket, the deck and the two Year Event piles with
this year's events and the used ones, then a panel per seat: character, income, wallet,
debt, Defamation cards, the hand as card backs with how it is split, jail, the action
cards played this year and the farm with every field, stable, animal, tree and tractor.
A legend names the goods' tokens. Hands are hidden: a public state carries only their
sizes and that is all this draws.

Listed as text, because they are the engine's bookkeeping rather than pieces on the
board: ``decision.active`` (whose phase-3 turn runs; meaningless outside phase 3), the
sums a pending 4a payment is about (``tax_due``, ``upkeep_due``, ``payment_due`` ...),
and per seat ``turn_passed``, ``gift_pending``, ``evaded_last_year`` and ``audit_fine``.
"""

from __future__ import annotations

from markupsafe import Markup

from games.farmaria import data
from web.render import Frame, register
from web.render.common import as_dict, as_list, header, num, opt_seat
from web.render.farmaria_events import piles
from web.render.farmaria_farm import TOKENS, draw_panel, panel_height, token
from web.render.farmaria_table import CARD_H, CARD_W, lot, market, tracks
from web.render.svg import Svg

DRAWN = frozenset(
    {
        "year",
        "turn_order",
        "market",
        "marker",
        "deck_size",
        "event_piles",
        "events",
        "effective_events",
        "used_events",
        "end_triggered",
        "decision.kind",
        "decision.player",
        "decision.remaining",
        "players.*.character",
        "players.*.wallet",
        "players.*.debt",
        "players.*.defamations",
        "players.*.jailed",
        "players.*.jailed_next_year",
        "players.*.vp",
        "players.*.farm",
        "players.*.hand_size",
        "players.*.played",
        "players.*.selected_count",
        "players.*.face_down_count",
        "players.*.opportunity_count",
    }
)
#: Keys of the pending decision drawn on the table when the state has them.
TABLE_KEYS = (
    "thief",
    "animal",
    "field",
    "stable",
    "lot",
    "high_bid",
    "high_bidder",
    "passed",
    "bidder",
    "placing",
    "relocating",
)
WIDTH = 800
CHARACTERS = {c.id: c for c in data.CHARACTERS}


def _table_height(decision: dict[str, object]) -> float:
    return 34 + (CARD_H + 8 if "lot" in decision else 0)


def _theft(decision: dict[str, object], players: list[dict[str, object]]) -> tuple[int, int, int]:
    """(victim, field, goods index) of the animal a pending theft is after, or -1s."""
    victim, fi, st = (
        opt_seat(decision.get("player")),
        num(decision.get("field")),
        num(decision.get("stable")),
    )
    if victim is None or victim >= len(players):
        return (-1, -1, -1)
    farm = as_list(players[victim].get("farm"))
    if not 0 <= fi < len(farm):
        return (-1, -1, -1)
    field = as_dict(farm[fi])
    stables = [as_list(s) for s in as_list(field.get("stables"))]
    before = sum(len(s) for s in stables[:st]) if st >= 0 else sum(len(s) for s in stables)
    place = stables[st] if 0 <= st < len(stables) else as_list(field.get("outside"))
    animal = str(decision.get("animal"))
    names = [str(a) for a in place]
    index = before + names.index(animal) if animal in names else -1
    return (victim, fi, index)


def _table(svg: Svg, decision: dict[str, object], order: list[object], y: float) -> None:
    """The turn order and what lies on the table for the pending decision."""
    svg.text(8, y + 15, "Turn order:", font_size="12", font_weight="bold")
    for i, seat in enumerate(order):
        svg.marker(num(seat), 100 + i * 36, y + 11, 6, f"turn {i + 1}: seat {num(seat) + 1}")
        svg.text(109 + i * 36, y + 15, str(num(seat) + 1), font_size="12")
    x = 110 + 36 * len(order)
    notes = []
    if "remaining" in decision:
        notes.append(f"{num(decision['remaining'])} card(s) still to select")
    if "thief" in decision:
        where = num(decision.get("stable"))
        place = f"stable {where + 1}" if where >= 0 else "outside"
        notes.append(
            f"seat {num(decision['thief']) + 1} is stealing a {decision.get('animal')} "
            f"from field {num(decision.get('field')) + 1} ({place}) of seat "
            f"{num(decision.get('player')) + 1}, ringed in red"
        )
    if "placing" in decision:
        notes.append(f"placing a {decision['placing']}")
    if "relocating" in decision:
        notes.append("animals to relocate: " + ", ".join(map(str, as_list(decision["relocating"]))))
    svg.text(x, y + 15, "; ".join(notes), font_size="12")
    if "lot" in decision:
        ly = y + 26
        svg.text(8, ly + 15, "Auction lot:", font_size="12", font_weight="bold")
        lot(svg, decision["lot"], 90, ly)
        bidder = opt_seat(decision.get("high_bidder"))
        lines = [
            f"high bid {num(decision.get('high_bid'))}"
            + (f" by seat {bidder + 1}" if bidder is not None and bidder >= 0 else " (no bid yet)")
        ]
        if "bidder" in decision:
            lines.append(f"seat {num(decision['bidder']) + 1} to bid")
        # one flag per seat: has it left the bidding
        passed = [i for i, out in enumerate(as_list(decision.get("passed"))) if out]
        lines.append("passed: " + (", ".join(f"seat {s + 1}" for s in passed) or "nobody"))
        for i, line in enumerate(lines):
            svg.text(90 + CARD_W + 12, ly + 20 + i * 18, line, font_size="12")


def _legend(svg: Svg, y: float) -> None:
    svg.text(8, y + 15, "Tokens:", font_size="12", font_weight="bold")
    items = [("field", "field"), ("stable", "stable")] + [(g, g) for g in TOKENS]
    for i, (good, name) in enumerate(items):
        row, col = divmod(i, 7)
        x, ty = 70 + col * 104, y + row * 28
        if good == "field":
            svg.rect(x, ty, 22, 22, "a field", fill="#E8F3D6", stroke="#5A7D2A", rx="3")
        elif good == "stable":
            svg.rect(x, ty, 22, 22, "a stable", fill="#EFE0D0", stroke="#4E342E")
        else:
            token(svg, good, x, ty)
        svg.text(x + 27, ty + 16, name, font_size="12")
    svg.text(
        70,
        y + 72,
        "On a field, n/6: the spaces its goods cover (a stable's spaces count only by the "
        "animals inside); all 6 covered: full, +1 VP.",
        font_size="12",
    )


@register("farmaria")
def draw(state: dict[str, object]) -> Frame:
    """The Farmaria board of one public state."""
    players = [as_dict(p) for p in as_list(state.get("players"))]
    decision = as_dict(state.get("decision"))
    table_h = _table_height(decision)
    # The height is known once everything is placed: set at the end.
    svg = Svg(WIDTH, 0, "Farmaria board")
    end = data.END_CONDITIONS.get(len(players))
    years = f" of {end.years}" if end else ""
    header(
        svg,
        f"Year {num(state.get('year'))}{years} · {decision.get('kind', '')}",
        opt_seat(decision.get("player")),
    )
    y = 36.0
    _table(svg, decision, as_list(state.get("turn_order")), y)
    y += table_h
    y += tracks(svg, state, len(players), y)
    y += market(svg, state, y)
    y += piles(svg, state, y) + 8
    theft = _theft(decision, players) if "thief" in decision else (-1, -1, -1)
    scores = []
    for seat, p in enumerate(players):
        income = (
            CHARACTERS[str(p["character"])].income if p.get("character") in CHARACTERS else None
        )
        draw_panel(svg, seat, p, y, WIDTH, income, theft if theft[0] == seat else None)
        y += panel_height(p)
        scores.append(float(num(p.get("vp"))))
    _legend(svg, y + 4)
    svg.height = int(y + 86)
    drawn = DRAWN | {f"decision.{k}" for k in TABLE_KEYS if k in decision}
    return Frame(_sized(svg), drawn, tuple(scores))


def _sized(svg: Svg) -> Markup:
    """The document with its natural size beside its viewBox: a page may draw it one to one
    (12 px text stays 12 px) and still shrink it to a narrower column by CSS."""
    doc = str(svg.markup())
    return Markup(doc.replace("<svg ", f'<svg width="{svg.width}" height="{svg.height}" ', 1))
