"""Phase 3a (FM-P3-2): buying, selling, moving, demolishing, uprooting, and placement.

This module applies the ``action_3a`` options (FM-DEC-7; listed by ``options.py``) and
handles ``place`` and ``move_to`` (FM-DEC-8/9). Action cards are in ``cards.py``; a
demolition's ``relocate`` (FM-DEC-10) is in ``demolition.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from games.core import Action
from games.farmaria import auction, cards, demolition, flow, market
from games.farmaria import data as d
from games.farmaria.actions import (
    CARD_INDEX,
    BuyHand,
    BuyMarket,
    Card,
    Demolish,
    EndTurn,
    Move,
    NikosAuction,
    Place,
    PlayCard,
    Sell,
    Uproot,
    place,
)
from games.farmaria.farm import (
    CTYPE,
    Field,
    add_card,
    farm_changed,
    find_card,
    locations_for,
    price,
    remove_card,
)
from games.farmaria.flow import back_to_3a
from games.farmaria.state import ACTION_3A, MOVE_TO, PLACE, FarmariaState


def cm_buy_price(s: FarmariaState, card: int, ioanna: bool) -> int:
    """FM-BUY-2: CM price, or item price under Discount or with Ioanna's ability."""
    if ioanna or s.effective >> d.EV_DISCOUNT & 1:
        return price(s, card, "item")
    return price(s, card, "cm")


def _buy_hand(s: FarmariaState, p: int, a: Action) -> None:  # FM-BUY-1
    assert isinstance(a, BuyHand)
    t = CARD_INDEX[a.card]
    c = flow.take_from_hand(s, p, t)
    s.wallet[p] -= d.GOODS[t].item
    acquire(s, p, c)


def _buy_market(s: FarmariaState, p: int, a: Action) -> None:  # FM-BUY-2 / FM-CHAR-12
    assert isinstance(a, BuyMarket)
    c = market.active(s, a.position - 1)
    s.wallet[p] -= cm_buy_price(s, c, a.ioanna)
    if a.ioanna:
        s.ioanna_used[p] = True
    market.take_active(s, a.position - 1)
    acquire(s, p, c)


def _sell(s: FarmariaState, p: int, a: Action) -> None:  # FM-SELL-*
    assert isinstance(a, Sell)
    merchant = bool(s.effective >> d.EV_MERCHANT & 1)
    sell_owned(s, p, CARD_INDEX[a.card], a.field, a.stable, merchant)


def _move(s: FarmariaState, p: int, a: Action) -> None:  # FM-FARM-4
    assert isinstance(a, Move)
    s.move_card = find_card(s.farm[p], CARD_INDEX[a.card], a.field, a.stable, s.moved)
    s.move_from = (a.field, a.stable)
    s.dec = MOVE_TO


def _demolish(s: FarmariaState, p: int, a: Action) -> None:  # FM-FARM-6
    assert isinstance(a, Demolish)
    demolition.demolish_stable(s, p, a, ACTION_3A)


def _uproot(s: FarmariaState, p: int, a: Action) -> None:  # FM-FARM-6
    assert isinstance(a, Uproot)
    c = find_card(s.farm[p], CARD_INDEX[a.card], a.field, -1)
    remove_card(s.farm[p], c, a.field, -1)
    s.removed.append(c)


def _play(s: FarmariaState, p: int, a: Action) -> None:
    assert isinstance(a, PlayCard)
    cards.play(s, p, CARD_INDEX[a.card])


def _nikos_auction(s: FarmariaState, p: int, a: Action) -> None:  # FM-CHAR-14
    s.nikos_used[p] = True
    auction.begin_auction(s, p, -1)


def _end(s: FarmariaState, p: int, a: Action) -> None:
    flow.begin_3b(s)


# One handler per option type (a dict lookup instead of an isinstance chain: hot path).
_APPLY_3A: dict[type[Action], Callable[[FarmariaState, int, Action], None]] = {
    BuyHand: _buy_hand,
    BuyMarket: _buy_market,
    Sell: _sell,
    Move: _move,
    Demolish: _demolish,
    Uproot: _uproot,
    PlayCard: _play,
    NikosAuction: _nikos_auction,
    EndTurn: _end,
}


def apply_3a(s: FarmariaState, a: Action) -> None:
    """Apply an ``action_3a`` option (FM-DEC-7) of the active player."""
    _APPLY_3A[type(a)](s, s.active, a)


def acquire(s: FarmariaState, p: int, c: int) -> None:
    """FM-FARM-3: a field or bundle becomes a new field; other goods ask for a place."""
    b = s.bundles.pop(c, None)
    if b is not None:
        s.farm[p].append(b)
        farm_changed(s, p)
        back_to_3a(s)
    elif CTYPE[c] == d.FIELD:
        s.farm[p].append(Field(c))
        back_to_3a(s)
    else:
        s.pending = c
        s.pending_owner = p
        s.dec = PLACE
        s.actor = p


def legal_place(s: FarmariaState) -> list[Action]:
    fields = s.farm[s.pending_owner]
    return [place(fi, st) for fi, st in locations_for(fields, CTYPE[s.pending])]


def apply_place(s: FarmariaState, a: Action) -> None:
    assert isinstance(a, Place)
    p = s.pending_owner
    add_card(s.farm[p], s.pending, a.field, a.stable)
    s.pending = -1
    s.pending_owner = -1
    farm_changed(s, p)
    back_to_3a(s)


def legal_move_to(s: FarmariaState) -> list[Action]:
    fields = s.farm[s.active]
    locs = locations_for(fields, CTYPE[s.move_card])
    return [place(fi, st) for fi, st in locs if (fi, st) != s.move_from]


def apply_move_to(s: FarmariaState, a: Action) -> None:
    assert isinstance(a, Place)
    p = s.active
    remove_card(s.farm[p], s.move_card, *s.move_from)
    add_card(s.farm[p], s.move_card, a.field, a.stable)
    s.moved.add(s.move_card)  # FM-FARM-4: once per 3a
    s.move_card = -1
    farm_changed(s, p)
    back_to_3a(s)


def sell_owned(s: FarmariaState, p: int, t: int, fi: int, st: int, merchant: bool) -> None:
    """FM-SELL-1..4: sell an animal or the tractor, or a field as one bundle, to the CM."""
    col = "merchant" if merchant else "emergency"
    fields = s.farm[p]
    if t == d.FIELD:
        f = fields.pop(fi)
        s.wallet[p] += sum(getattr(d.GOODS[CTYPE[c]], col) for c in f.cards())
        if len(f.cards()) > 1:
            s.bundles[f.card] = f
        market.to_cm(s, f.card, p)
        return
    c = find_card(fields, t, fi, st)
    remove_card(fields, c, fi, st)
    s.moved.discard(c)
    s.wallet[p] += getattr(d.GOODS[t], col)
    market.to_cm(s, c, p)


__all__ = ["Card"]
