"""Farmaria: the market stacks, the deck and a panel per seat (character, wallet, debt,
victory points, hand size, jail, defamations and the farm's fields with their animals).
Played cards, events and the rest are listed as text. Hands are hidden: a public state
carries only their sizes, and that is all this draws."""

from __future__ import annotations

from web.render import Frame, register
from web.render.common import as_dict, as_list, header, num, opt_seat, seat_label, stat
from web.render.svg import Svg

DRAWN = frozenset(
    {
        "year",
        "decision.kind",
        "decision.player",
        "market",
        "deck_size",
        "players.*.character",
        "players.*.wallet",
        "players.*.debt",
        "players.*.vp",
        "players.*.hand_size",
        "players.*.jailed",
        "players.*.defamations",
    }
    # The first fields are drawn; a farm larger than the panel lists the rest as text.
    | {f"players.*.farm.{i}" for i in range(5)}
)
WIDTH, PANEL_H, FIELD_W = 800, 104, 150


def _field(svg: Svg, field: dict[str, object], x: float, y: float, index: int) -> None:
    stables = [as_list(s) for s in as_list(field.get("stables"))]
    outside = [str(a) for a in as_list(field.get("outside"))]
    animals = [str(a) for s in stables for a in s] + outside
    full = " (full)" if field.get("full") else ""
    tip = f"field {index + 1}{full}: {len(stables)} stables; " + (", ".join(animals) or "empty")
    svg.rect(x, y, FIELD_W - 6, 48, tip, fill="#eef6e2", stroke="#5a7d2a", rx="3")
    svg.text(x + 4, y + 13, f"field {index + 1}{full} · {len(stables)} stables", font_size="11")
    svg.text(x + 4, y + 28, ", ".join(animals[:4]) or "empty", font_size="11")
    if len(animals) > 4:
        svg.text(x + 4, y + 42, f"+{len(animals) - 4} more", font_size="11")


def _card(item: object) -> str | None:
    """A market card's name; a bundle (a field for sale with its animals) says so."""
    if isinstance(item, dict) and "bundle" in item:
        field = as_dict(item["bundle"])
        animals = [a for s in as_list(field.get("stables")) for a in as_list(s)]
        animals += as_list(field.get("outside"))
        return f"bundle of {len(animals)}"
    return None if item is None else str(item)


@register("farmaria")
def draw(state: dict[str, object]) -> Frame:
    """The Farmaria table of one public state."""
    players = [as_dict(p) for p in as_list(state.get("players"))]
    height = 36 + 44 + PANEL_H * len(players) + 8
    svg = Svg(WIDTH, height, "Farmaria table")
    decision = as_dict(state.get("decision"))
    header(
        svg,
        f"Year {num(state.get('year'))} · {decision.get('kind', '')}",
        opt_seat(decision.get("player")),
    )
    svg.text(6, 58, "Market:", font_size="13", font_weight="bold")
    for i, stack in enumerate(as_list(state.get("market"))):
        s = as_dict(stack)
        top, size = _card(s.get("top")), num(s.get("size"))
        svg.rect(70 + i * 118, 40, 112, 26, f"market stack {i + 1}: {top} on top, {size} cards",
                 fill="#fff", stroke="#555")  # fmt: skip
        svg.text(76 + i * 118, 58, f"{top or 'empty'} ×{size}", font_size="12")
    svg.text(WIDTH - 110, 58, f"deck {num(state.get('deck_size'))}", font_size="12")
    scores = []
    for seat, p in enumerate(players):
        y = 36 + 44 + seat * PANEL_H
        svg.rect(2, y, WIDTH - 4, PANEL_H - 4, f"seat {seat}", fill="#fff", stroke="#999")
        vp = num(p.get("vp"))
        scores.append(float(vp))
        seat_label(svg, seat, 8, y + 6, f" · {p.get('character', '')} · {vp} VP")
        stat(svg, "wallet", num(p.get("wallet")), 300, y + 19)
        stat(svg, "debt", num(p.get("debt")), 380, y + 19)
        stat(svg, "cards in hand", num(p.get("hand_size")), 450, y + 19)
        stat(svg, "defamations", num(p.get("defamations")), 570, y + 19)
        if p.get("jailed"):
            svg.text(690, y + 19, "in jail", font_size="12", font_weight="bold")
        for i, field in enumerate(as_list(p.get("farm"))[:5]):
            _field(svg, as_dict(field), 8 + i * FIELD_W, y + 30, i)
        extra = len(as_list(p.get("farm"))) - 5
        if extra > 0:
            svg.text(WIDTH - 60, y + 60, f"+{extra} fields", font_size="11")
    return Frame(svg.markup(), DRAWN, tuple(scores))
