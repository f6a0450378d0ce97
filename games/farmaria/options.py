"""The ``action_3a`` option list (FM-DEC-7) in the spec's canonical order.

This is the engine's hottest code (about a third of a random game), so it works from room
counts (:func:`farm.farm_use`) and precomputed tables instead of location lists, and
gathers the farm options in one pass over the farm. ``investing.py`` applies the options.
"""

from __future__ import annotations

from games.core import Action
from games.farmaria import auction, cards
from games.farmaria import data as d
from games.farmaria.actions import (
    BUY_HAND,
    END_TURN,
    BuyMarket,
    NikosAuction,
    demolish,
    move_at,
    sell_at,
    uproot_at,
)
from games.farmaria.farm import (
    CARD_PRICE,
    CTYPE,
    HALF,
    MOVABLE,
    ROOM_CLASS,
    bundle_has_tractor,
    room_mask,
)
from games.farmaria.state import FarmariaState

PLANT_TYPES = (d.APPLE, d.OLIVE, d.ORANGE)
_NUM_GOODS, _FIELD, _TRACTOR, _THIEF = d.NUM_GOODS, d.FIELD, d.TRACTOR, d.THIEF
_FULL, _CAP = d.FIELD_HALF_SPACES, d.STABLE_HALF_CAPACITY
_ITEM: tuple[int, ...] = tuple(g.item for g in d.GOODS)
_CARD_ITEM, _CARD_CM = CARD_PRICE["item"], CARD_PRICE["cm"]
_CARD_BIT: tuple[int, ...] = tuple(1 << t for t in CTYPE)
_FIRST_ACTION_BIT = 1 << d.THIEF


def _good_prices(t: int) -> tuple[int, int, int, int] | None:
    """(type, item price, CM price, the lower of the two) of a goods type, None for an
    action card."""
    if t >= d.NUM_GOODS:
        return None
    g = d.GOODS[t]
    return t, g.item, g.cm, min(g.item, g.cm)


#: card id -> :func:`_good_prices` of its type
_CARD_GOOD = tuple(map(_good_prices, CTYPE))
#: the lowest of each of those prices over all goods (index 1..3)
_CHEAPEST = (0, *(min(g[i] for g in _CARD_GOOD if g is not None) for i in (1, 2, 3)))
_NOT_TRACTOR = ~(1 << d.TRACTOR)
_NO_FARM_MASK = room_mask([0, 1, 0, 0, 0, 0])  # no location at all: fields only
_STABLE_HALF, _SITE_MAX = HALF[d.STABLE], d.FIELD_HALF_SPACES - HALF[d.STABLE]
_MAX_STABLES = d.MAX_STABLES_PER_FIELD
# ``buy_cm`` / ``buy_cm_ioanna`` options by 0-based position (K is at most 6 + 2).
_BUY_CM = tuple(BuyMarket(pos + 1, False) for pos in range(8))
_BUY_CM_IOANNA = tuple(BuyMarket(pos + 1, True) for pos in range(8))
_NIKOS_AUCTION = NikosAuction()
# Farm options by location, built once (a player never owns more fields than there are
# field cards): _SELL[field][stable + 1][type], _DEMOLISH[field][stable], _UPROOT[field][type].
_FIELDS, _GOODS_RANGE = range(d.CARD_COUNTS[d.FIELD]), range(d.NUM_GOODS)
_SELL = tuple(
    tuple(tuple(sell_at(t, fi, st) for t in _GOODS_RANGE) for st in range(-1, _MAX_STABLES))
    for fi in _FIELDS
)
_DEMOLISH = tuple(tuple(demolish(fi, st) for st in range(_MAX_STABLES)) for fi in _FIELDS)
_UPROOT = tuple(tuple(uproot_at(t, fi) for t in _GOODS_RANGE) for fi in _FIELDS)


def _farm_part(s: FarmariaState, p: int) -> tuple[int, bool, list[Action]]:
    """Items 4.-7. (sell, move, demolish, uproot) in canonical order, in one pass over the
    farm that also counts the room (as :func:`farm.farm_use` does); returns the room mask
    (:func:`farm.room_mask`), whether p owns a tractor, and the options."""
    fields = s.farm[p]
    if not fields:  # a quarter of the calls in random games: only fields can be bought
        return _NO_FARM_MASK, False, []
    sells: list[Action] = []
    demolitions: list[Action] = []
    uproots: list[Action] = []
    movers: list[tuple[int, int, int, int]] = []  # (type, field, stable, room left there)
    moved = s.moved
    tractor = False
    site = o1 = o2 = s1 = s2 = 0
    for fi, f in enumerate(fields):
        sell_here = _SELL[fi]
        inside = f.inside
        st = -1
        for pool in (f.outside, *inside):
            used = _STABLE_HALF * len(inside) if st < 0 else 0
            sold = 0
            plants = 0
            shifted = 0
            here: list[int] = []  # types that may move from here, by their first free card
            for c in pool:
                t = CTYPE[c]
                used += HALF[t]
                bt = 1 << t
                if not MOVABLE[t]:
                    plants |= bt
                    continue
                if not sold & bt:
                    sold |= bt
                    sells.append(sell_here[st + 1][t])
                if not shifted & bt and c not in moved:  # FM-FARM-4: once per 3a
                    shifted |= bt
                    here.append(t)
            if st < 0:
                free = _FULL - used
                if free >= 2:
                    o1 += 1
                    o2 += 1
                    site += used <= _SITE_MAX and len(inside) < _MAX_STABLES
                elif free:
                    o1 += 1
                if sold >> _TRACTOR & 1:
                    tractor = True
            else:
                free = _CAP - used
                demolitions.append(_DEMOLISH[fi][st])
                if free >= 2:
                    s1 += 1
                    s2 += 1
                elif free:
                    s1 += 1
            for t in here:  # the room left here is known only now
                movers.append((t, fi, st, free))
            if plants:
                for t in PLANT_TYPES:
                    if plants >> t & 1:
                        uproots.append(_UPROOT[fi][t])
            st += 1
        sells.append(sell_here[0][_FIELD])
    rooms = [site, 1, o1, o1 + s1, o2, o2 + s2]
    for t, fi, st, free in movers:
        # A move needs a legal location other than its own, so a location that could take
        # one more good of this kind counts itself once in ``rooms``.
        if rooms[ROOM_CLASS[t]] > (HALF[t] <= free):
            sells.append(move_at(t, fi, st))
    sells += demolitions
    sells += uproots
    return room_mask(rooms), tractor, sells


def legal_3a(s: FarmariaState) -> list[Action]:
    """FM-DEC-7 in its canonical order."""
    p = s.active
    w = s.wallet[p]
    acq, tractor, farm_options = _farm_part(s, p)  # acq: the goods types p could take now
    no_tractor = tractor or s.char[p] == d.ARGYRI  # FM-FARM-5, FM-CHAR-13
    if no_tractor:
        acq &= _NOT_TRACTOR
    out: list[Action] = []
    hand = 0  # bitmask of the selected card types (Opportunity copies included)
    for c in s.sel[p]:
        hand |= _CARD_BIT[c]
    for c in s.opp[p]:
        hand |= _CARD_BIT[c]
    buyable = hand & acq  # 1. buy_hand, in type order
    while buyable:
        bt = buyable & -buyable
        buyable ^= bt
        t = bt.bit_length() - 1
        if _ITEM[t] <= w:
            out.append(BUY_HAND[t])
    discount = s.effective >> d.EV_DISCOUNT & 1
    ioanna_ok = s.char[p] == d.IOANNA and not s.ioanna_used[p] and not discount
    ioanna: list[Action] = []
    # The lowest price p could pay for a card: its item price under Discount, the lower of
    # the two with Ioanna's ability, else the CM price (index into a _CARD_GOOD entry). A
    # bundle costs at least its field card's price, so this bound holds for bundles too.
    low = 1 if discount else 3 if ioanna_ok else 2
    if w >= _CHEAPEST[low]:
        cm_put, bundles = s.cm_put, s.bundles
        for pos, stack in enumerate(s.cm):  # 2./3. buy_cm, buy_cm_ioanna
            if not stack:
                continue
            c = stack[-1]
            good = _CARD_GOOD[c]
            if good is None or good[low] > w:
                continue  # an action card (FM-CM-5) or too dear
            if c in cm_put and cm_put[c] >> p & 1:
                continue  # p put it there this year (FM-CM-6)
            t, item, cm, _ = good
            b = bundles.get(c) if t == _FIELD else None  # bundles are keyed by field card
            if b is None:
                if not acq >> t & 1:
                    continue
            else:
                if no_tractor and bundle_has_tractor(b):
                    continue
                parts = b.cards()
                item = sum(map(_CARD_ITEM.__getitem__, parts))
                cm = sum(map(_CARD_CM.__getitem__, parts))
            if (item if discount else cm) <= w:
                out.append(_BUY_CM[pos])
            if ioanna_ok and item <= w:
                ioanna.append(_BUY_CM_IOANNA[pos])
    out += ioanna
    out += farm_options  # 4.-7. sell, move, demolish, uproot
    if hand >= _FIRST_ACTION_BIT:  # 8.-12. action cards
        out += cards.playable(s, p, hand, acq)
    if s.char[p] == d.NIKOS and not s.nikos_used[p] and auction.auction_lots(s, p, True, acq):
        out.append(_NIKOS_AUCTION)  # 13.
    out.append(END_TURN)  # 14.
    return out
