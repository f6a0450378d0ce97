"""Auctions (FM-ACT-7), played with an Auction card or by Nikos for free (FM-CHAR-14).

Bidding goes clockwise by seat from the auctioneer; each bid or pass is one decision of
that player (FM-DEC-16); ineligible players pass without being asked.
"""

from __future__ import annotations

from games.core import Action
from games.farmaria import data as d
from games.farmaria import flow, market
from games.farmaria.actions import CARD_INDEX, CARDS, PASS, Bid, LotFromHand, LotFromMarket, bid
from games.farmaria.farm import CTYPE, acquirable_types, can_acquire_item, price
from games.farmaria.state import AUCTION_BID, AUCTION_LOT, FarmariaState

# -- Auction (FM-ACT-7, FM-CHAR-14) --------------------------------------------------------


#: price column -> goods type -> its opening price, ceil(price / 2)
_HALF_PRICE: dict[str, tuple[int, ...]] = {
    col: tuple(-(-getattr(g, col) // 2) for g in d.GOODS) for col in ("item", "cm")
}


def opening(s: FarmariaState, cm_card: int, hand_type: int) -> int:
    """ceil(CM price / 2), or ceil(item price / 2) under Discount (sums for a bundle)."""
    col = "item" if s.effective >> d.EV_DISCOUNT & 1 else "cm"
    if cm_card < 0:
        return _HALF_PRICE[col][hand_type]
    return -(-price(s, cm_card, col) // 2)


def auction_lots(
    s: FarmariaState, p: int, first: bool = False, acq: int | None = None
) -> list[Action]:
    """FM-DEC-15: lots the auctioneer can open and place (``first``: existence test;
    ``acq``: :func:`farm.acquirable_types` of p when the caller has it)."""
    if acq is None:
        acq = acquirable_types(s, p)
    out: list[Action] = []
    w = s.wallet[p]
    types = sorted({CTYPE[c] for c in s.sel[p]} | {CTYPE[c] for c in s.opp[p]})
    for t in types:
        if t < d.NUM_GOODS and opening(s, -1, t) <= w and acq >> t & 1:
            out.append(LotFromHand(CARDS[t]))
            if first:
                return out
    for pos in range(s.k):
        c = market.active(s, pos)
        if c < 0 or CTYPE[c] >= d.NUM_GOODS or market.put_by(s, c, p):
            continue
        fits = can_acquire_item(s, p, c) if c in s.bundles else acq >> CTYPE[c] & 1
        if opening(s, c, -1) <= w and fits:
            out.append(LotFromMarket(pos + 1))
            if first:
                return out
    return out


def begin_auction(s: FarmariaState, p: int, card: int) -> None:
    s.auctioneer = p
    s.theft_card = card
    s.dec = AUCTION_LOT


def legal_lot(s: FarmariaState) -> list[Action]:
    return auction_lots(s, s.active)


def apply_lot(s: FarmariaState, a: Action) -> None:
    p = s.active
    if isinstance(a, LotFromHand):
        t = CARD_INDEX[a.card]
        s.lot = flow.take_from_hand(s, p, t)
        s.lot_hand = True
        s.high = opening(s, -1, t)
    else:
        assert isinstance(a, LotFromMarket)
        s.lot = market.take_active(s, a.position - 1)
        s.lot_hand = False
        s.high = opening(s, s.lot, -1)
    if s.theft_card >= 0:
        market.to_cm(s, s.theft_card, p)
        s.theft_card = -1
    s.high_bidder = p  # rule 1: the auctioneer opens at the opening price
    s.passed = [False] * s.n
    next_bidder(s, p + 1)


def eligible(s: FarmariaState, q: int) -> bool:
    """FM-ACT-7 rule 4."""
    return (
        not s.jailed_now[q]
        and s.wallet[q] >= s.high + 1
        and can_acquire_item(s, q, s.lot)
        and not market.put_by(s, s.lot, q)
    )


def next_bidder(s: FarmariaState, start: int) -> None:
    """Rules 2-3: clockwise by seat, skipping passed players and the high bidder."""
    for i in range(s.n):
        q = (start + i) % s.n
        if q == s.high_bidder or s.passed[q]:
            continue
        if eligible(s, q):
            s.bidder = q
            s.dec = AUCTION_BID
            s.actor = q
            return
        s.passed[q] = True
    finish_auction(s)


def legal_bid(s: FarmariaState) -> list[Action]:
    out: list[Action] = [PASS]
    out.extend(bid(x) for x in range(s.high + 1, s.wallet[s.bidder] + 1))
    return out


def apply_bid(s: FarmariaState, a: Action) -> None:
    q = s.bidder
    if isinstance(a, Bid):
        s.high = a.amount
        s.high_bidder = q
    else:
        s.passed[q] = True
    next_bidder(s, q + 1)


def finish_auction(s: FarmariaState) -> None:
    """Rule 5: the highest bidder pays the bank and places the lot."""
    from games.farmaria.investing import acquire

    w = s.high_bidder
    s.wallet[w] -= s.high
    lot = s.lot
    s.lot = -1
    s.bidder = -1
    s.high_bidder = -1
    s.auctioneer = -1
    acquire(s, w, lot)
