"""Phase 3a (FM-P3-2): buying, selling, moving, demolishing, uprooting, and placement.

Action cards are in ``cards.py``; this module lists the whole ``action_3a`` decision
(FM-DEC-7) in the spec's canonical order and handles ``place``, ``move_to`` and
``relocate`` (FM-DEC-8/9/10).
"""

from __future__ import annotations

from games.core import Action
from games.farmaria import auction, cards, flow, market
from games.farmaria import data as d
from games.farmaria.actions import (
    BUY_HAND,
    CARD_INDEX,
    END_TURN,
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
    SellInstead,
    Uproot,
    buy_market,
    demolish,
    move_at,
    place,
    sell_at,
    uproot_at,
)
from games.farmaria.farm import (
    CARD_HALF,
    CTYPE,
    HALF,
    IS_ANIMAL,
    MOVABLE,
    Field,
    add_card,
    bundle_has_tractor,
    find_card,
    full_fields,
    locations_for,
    price,
    remove_card,
)
from games.farmaria.state import ACTION_3A, MOVE_TO, PLACE, RELOCATE, FarmariaState

PLANT_TYPES = (d.APPLE, d.OLIVE, d.ORANGE)
# Module-level names for the hot loop of legal_3a (a global lookup, not an attribute one).
_GOODS, _NUM_GOODS, _FIELD, _STABLE, _TRACTOR, _THIEF = (
    d.GOODS,
    d.NUM_GOODS,
    d.FIELD,
    d.STABLE,
    d.TRACTOR,
    d.THIEF,
)
_FIELD_HALF_SPACES, _STABLE_HALF_CAPACITY = d.FIELD_HALF_SPACES, d.STABLE_HALF_CAPACITY
_MAX_STABLES_PER_FIELD = d.MAX_STABLES_PER_FIELD
_STABLE_SPACE = d.GOODS[d.STABLE].half_space  # a stable covers 2 spaces of its field


def farm_changed(s: FarmariaState, p: int) -> None:
    """FM-END-1(c), latched (FM-AMB-20): enough full fields at the same time."""
    if full_fields(s.farm[p]) >= s.cond.full_fields:
        s.end_triggered = True


def back_to_3a(s: FarmariaState) -> None:
    s.dec = ACTION_3A
    s.actor = s.active


def cm_buy_price(s: FarmariaState, card: int, ioanna: bool) -> int:
    """FM-BUY-2: CM price, or item price under Discount or with Ioanna's ability."""
    if ioanna or s.effective >> d.EV_DISCOUNT & 1:
        return price(s, card, "item")
    return price(s, card, "cm")


def _farm_part(s: FarmariaState, p: int) -> tuple[list[int], list[int], int, bool, list[Action]]:
    """The farm-dependent part of ``action_3a``: room counts, the tractor restriction, and
    the sell / move / demolish / uproot options (4.-7.) in canonical order."""
    fields = s.farm[p]
    # Room counts (FM-DEC-8) instead of location lists: outside areas with room for a
    # half / whole space, stables with room for a small / large animal, stable sites.
    half = CARD_HALF.__getitem__
    outs = [_STABLE_SPACE * len(f.stables) + sum(map(half, f.outside)) for f in fields]
    ins = [[sum(map(half, a)) for a in f.inside] for f in fields]
    out_room = [0, 0, 0]  # indexed by the half-units needed: 1 (small animal) or 2
    st_room = [0, 0, 0]
    sites = 0
    for fi, used in enumerate(outs):
        out_room[1] += used <= _FIELD_HALF_SPACES - 1
        out_room[2] += used <= _FIELD_HALF_SPACES - 2
        sites += (
            used <= _FIELD_HALF_SPACES - _STABLE_SPACE and len(ins[fi]) < _MAX_STABLES_PER_FIELD
        )
        for u in ins[fi]:
            st_room[1] += u <= _STABLE_HALF_CAPACITY - 1
            st_room[2] += u <= _STABLE_HALF_CAPACITY - 2

    def room(t: int) -> int:
        if t == _STABLE:
            return sites
        need = HALF[t]
        return out_room[need] + (st_room[need] if IS_ANIMAL[t] else 0)

    no_tractor = s.char[p] == d.ARGYRI or any(
        CTYPE[c] == _TRACTOR for f in fields for c in f.outside
    )
    # 4.-7. sell, move, demolish, uproot, gathered in one pass over the farm
    sells: list[Action] = []
    moves: list[Action] = []
    demolitions: list[Action] = []
    uproots: list[Action] = []
    moved = s.moved
    for fi, f in enumerate(fields):
        st = -1
        for pool in (f.outside, *f.inside):
            if st >= 0:
                demolitions.append(demolish(fi, st))
            sold = 0
            shifted = 0
            plants = 0
            for c in pool:
                t = CTYPE[c]
                bt = 1 << t
                if not MOVABLE[t]:
                    plants |= bt
                    continue
                if not sold & bt:
                    sold |= bt
                    sells.append(sell_at(t, fi, st))
                if not shifted & bt and c not in moved:
                    need = HALF[t]
                    if st < 0:
                        here = outs[fi] + need <= _FIELD_HALF_SPACES
                    else:
                        here = ins[fi][st] + need <= _STABLE_HALF_CAPACITY
                    if room(t) > here:  # another legal location exists
                        shifted |= bt
                        moves.append(move_at(t, fi, st))
            if plants:
                for t in PLANT_TYPES:
                    if plants >> t & 1:
                        uproots.append(uproot_at(t, fi))
            st += 1
        sells.append(sell_at(_FIELD, fi, -1))
    sells += moves
    sells += demolitions
    sells += uproots
    return out_room, st_room, sites, no_tractor, sells


def legal_3a(s: FarmariaState) -> list[Action]:
    """FM-DEC-7 in its canonical order."""
    p = s.active
    out: list[Action] = []
    w = s.wallet[p]
    out_room, st_room, sites, no_tractor, farm_options = _farm_part(s, p)

    def room(t: int) -> int:
        """How many locations could take a good of type t."""
        if t == _STABLE:
            return sites
        need = HALF[t]
        return out_room[need] + (st_room[need] if IS_ANIMAL[t] else 0)

    hand_types = sorted(set(map(CTYPE.__getitem__, s.sel[p] + s.opp[p])))
    for t in hand_types:  # 1. buy_hand
        if t >= _NUM_GOODS or _GOODS[t].item > w:
            continue
        if t == _FIELD or (not (t == _TRACTOR and no_tractor) and room(t)):
            out.append(BUY_HAND[t])
    discount = bool(s.effective >> d.EV_DISCOUNT & 1)
    ioanna_ok = s.char[p] == d.IOANNA and not s.ioanna_used[p] and not discount
    ioanna: list[Action] = []
    for pos in range(s.k):  # 2./3. buy_cm, buy_cm_ioanna
        stack = s.cm[pos]
        if not stack:
            continue
        c = stack[-1]
        t = CTYPE[c]
        if t >= _NUM_GOODS or s.cm_put.get(c, 0) >> p & 1:
            continue
        b = s.bundles.get(c)
        if b is None:
            if t == _TRACTOR and no_tractor:
                continue
            if t != _FIELD and not room(t):
                continue
            g = _GOODS[t]
            item, cm = g.item, g.cm
        else:
            if no_tractor and bundle_has_tractor(b):
                continue
            item, cm = price(s, c, "item"), price(s, c, "cm")
        if (item if discount else cm) <= w:
            out.append(buy_market(pos + 1, False))
        if ioanna_ok and item <= w:
            ioanna.append(buy_market(pos + 1, True))
    out.extend(ioanna)
    out += farm_options  # 4.-7. sell, move, demolish, uproot
    if hand_types and hand_types[-1] >= _THIEF:  # 8.-12. action cards
        out.extend(cards.playable(s, p, hand_types))
    if s.char[p] == d.NIKOS and not s.nikos_used[p] and auction.auction_lots(s, p, True):  # 13.
        out.append(NikosAuction())
    out.append(END_TURN)  # 14.
    return out


def apply_3a(s: FarmariaState, a: Action) -> None:
    p = s.active
    if isinstance(a, BuyHand):  # FM-BUY-1
        t = CARD_INDEX[a.card]
        c = flow.take_from_hand(s, p, t)
        s.wallet[p] -= d.GOODS[t].item
        acquire(s, p, c)
    elif isinstance(a, BuyMarket):  # FM-BUY-2 / FM-CHAR-12
        c = market.active(s, a.position - 1)
        s.wallet[p] -= cm_buy_price(s, c, a.ioanna)
        if a.ioanna:
            s.ioanna_used[p] = True
        market.take_active(s, a.position - 1)
        acquire(s, p, c)
    elif isinstance(a, Sell):  # FM-SELL-*
        merchant = bool(s.effective >> d.EV_MERCHANT & 1)
        sell_owned(s, p, CARD_INDEX[a.card], a.field, a.stable, merchant)
    elif isinstance(a, Move):  # FM-FARM-4
        s.move_card = find_card(s.farm[p], CARD_INDEX[a.card], a.field, a.stable, s.moved)
        s.move_from = (a.field, a.stable)
        s.dec = MOVE_TO
    elif isinstance(a, Demolish):  # FM-FARM-6
        f = s.farm[p][a.field]
        s.removed.append(f.stables.pop(a.stable))
        s.reloc = f.inside.pop(a.stable)
        next_relocation(s)
    elif isinstance(a, Uproot):  # FM-FARM-6
        c = find_card(s.farm[p], CARD_INDEX[a.card], a.field, -1)
        remove_card(s.farm[p], c, a.field, -1)
        s.removed.append(c)
    elif isinstance(a, PlayCard):
        cards.play(s, p, CARD_INDEX[a.card])
    elif isinstance(a, NikosAuction):  # FM-CHAR-14
        s.nikos_used[p] = True
        auction.begin_auction(s, p, -1)
    elif isinstance(a, EndTurn):
        flow.begin_3b(s)
    else:  # pragma: no cover - legal_actions guards this
        raise ValueError(a)


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


def next_relocation(s: FarmariaState) -> None:
    if s.reloc:
        s.dec = RELOCATE
        s.actor = s.active
    else:
        farm_changed(s, s.active)
        back_to_3a(s)


def legal_relocate(s: FarmariaState) -> list[Action]:
    """FM-DEC-10: each legal location, plus ``sell``."""
    locs = locations_for(s.farm[s.active], CTYPE[s.reloc[0]])
    out: list[Action] = [place(fi, st) for fi, st in locs]
    out.append(SellInstead())
    return out


def apply_relocate(s: FarmariaState, a: Action) -> None:
    p = s.active
    c = s.reloc.pop(0)
    if isinstance(a, Place):
        add_card(s.farm[p], c, a.field, a.stable)
    else:
        merchant = bool(s.effective >> d.EV_MERCHANT & 1)
        col = "merchant" if merchant else "emergency"
        s.wallet[p] += getattr(d.GOODS[CTYPE[c]], col)
        market.to_cm(s, c, p)
    next_relocation(s)


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
