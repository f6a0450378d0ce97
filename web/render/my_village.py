"""My Village: the table as the game lays it out, drawn from the public state.

The main board first (:mod:`web.render.my_village_table`): the dice left in the pool, the
turn order and the first-player hand, every village card still on offer (churches, council
chambers, the top card of each monk and travel stack and craft column, the meeting point and
field piles), the customer display beside the face-down deck, the chronicle and the
anonymous graves, the coffins against the count that ends the game, and the rat track. Then
one village board per seat (:mod:`web.render.my_village_village`): its coins and story
points, the time track, its banners with the dice the seat took and the banner value, and
its six areas with the villager tokens and the cards in play.

What stays text, and why: ``game``, ``players``, ``over`` and ``unfinished`` describe the
record, not the table (the page says them already). Printed card facts (banner values,
goods, prestige points) come from ``games.my_village.data``, the static card tables.

Public states carry no running score (points are counted at the end of the game,
MV-SCORE), so the scores chart of this game shows the final result only.
"""

from __future__ import annotations

from markupsafe import Markup

from web.render import Frame, register
from web.render.common import as_dict, as_list, header, num, opt_seat
from web.render.my_village_table import chronicle, dice_and_turns, display, offers
from web.render.my_village_village import WIDTH, village
from web.render.svg import Svg

DRAWN = frozenset(
    {
        "round",
        "first_player",
        "turn_order",
        "turn_index",
        "hand",
        "pool",
        "churches",
        "council_chambers",
        "meeting_points",
        "fields",
        "monks",
        "travel",
        "crafts",
        "customer_deck",
        "display",
        "chronicle",
        "graves",
        "coffins",
        "end_coffins",
        "rat",
        "plagues",
        "decision",
        "villages",
    }
)


#: What each decision kind asks, for the header line.
ASKING = {
    "dice": "takes two dice",
    "value": "sets the banner value",
    "mode": "picks a black banner, the white banners or the chronicle",
    "overseer": "picks customers",
    "payment": "chooses how to pay a good",
    "white": "activates white banners",
    "choice": "makes a choice",
    "death": "buries a villager",
}


class _Board(Svg):
    """The board's SVG, stating its natural size too: a page may then draw it one to one
    (its 12 px text at 12 px) and still shrink it to a narrower column by CSS."""

    def markup(self) -> Markup:
        doc = str(super().markup())
        return Markup(doc.replace("<svg ", f'<svg width="{self.width}" height="{self.height}" ', 1))


def _headline(state: dict[str, object], decision: dict[str, object]) -> str:
    kind = str(decision.get("kind", ""))
    line = f"Round {num(state.get('round'))}"
    if kind == "over":
        return f"{line} · the game is over"
    return f"{line} · {ASKING.get(kind, kind)}"


def _body(svg: Svg, state: dict[str, object]) -> None:
    decision = as_dict(state.get("decision"))
    svg.open("g", font_family="DejaVu Sans, Verdana, sans-serif")
    header(svg, _headline(state, decision), opt_seat(decision.get("player")))
    y = dice_and_turns(svg, state, 36)
    y = offers(svg, state, y)
    y = display(svg, state, y)
    y = chronicle(svg, state, y)
    for seat, v in enumerate(as_list(state.get("villages"))):
        y = village(svg, seat, as_dict(v), decision, y)
    svg.close("g")
    svg.height = int(y) + 2


@register("my_village")
def draw(state: dict[str, object]) -> Frame:
    """The My Village table of one public state."""
    svg = _Board(WIDTH, 0, "My Village table")
    _body(svg, state)
    return Frame(svg.markup(), DRAWN, None)
