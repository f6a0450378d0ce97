"""Action cards played in 3a (FM-ACT-*): thefts, Diplomacy, Auction, Opportunity.

The card being played waits in ``s.theft_card`` between its declaration and its placement
in the CM (FM-ACT-G2: targets are declared, and lifted, first).
Chance: ``diplomacy`` (index = year) for the random card taken from a player's pool.
"""

from __future__ import annotations

from games.core import Action
from games.farmaria import auction, flow, market
from games.farmaria import data as d
from games.farmaria.actions import (
    CARD_INDEX,
    CARDS,
    PLAY,
    Defend,
    DiplomacyMarket,
    DiplomacyPlayer,
    Keep,
    NoDefence,
    Pool,
    Reject,
    StealFrom,
)
from games.farmaria.farm import CTYPE, acquirable_types
from games.farmaria.flow import bit
from games.farmaria.state import (
    BABIS_KEEP,
    DIPLOMACY_TARGET,
    OPPORTUNITY_REJECT,
    PLACE,
    THEFT_DEFENCE,
    THEFT_TARGET,
    FarmariaState,
)

ATTACKS = (d.THIEF, d.BURGLAR, d.DIPLOMACY, d.AUCTION, d.OPPORTUNITY)
_ATTACK_BITS = tuple((t, bit(t)) for t in ATTACKS)
_ANIMALS = sum(1 << t for t in d.ANIMALS)


def playable(s: FarmariaState, p: int, hand: int, acq: int) -> list[Action]:
    """FM-DEC-7 items 8-12: action cards p may play now (``hand``: bitmask of the selected
    card types; ``acq``: the goods types p could take now, see :func:`farm.acquirable_types`)."""
    out: list[Action] = []
    played = s.played[p]
    for t, b in _ATTACK_BITS:
        if played & b or not hand >> t & 1:
            continue
        if t == d.THIEF or t == d.BURGLAR:
            if s.stole[p] or not theft_targets(s, p, t, True, acq):  # FM-ACT-G4
                continue
        elif t == d.DIPLOMACY:
            if not diplomacy_targets(s, p, first=True):
                continue
        elif t == d.AUCTION and (s.char[p] == d.NIKOS or not auction.auction_lots(s, p, True, acq)):
            continue
        out.append(PLAY[t])
    if hand & flow.DEFENCE_CARDS:  # item 12 (only 1b-selected cards count: see there)
        for t in flow.defence_options(s, p):
            out.append(PLAY[t])
    return out


def play(s: FarmariaState, p: int, t: int) -> None:
    if t in (d.INSECTICIDE, d.VET, d.TAX_EVASION):
        flow.play_defence(s, p, t)
        return
    c = flow.take_from_hand(s, p, t)
    s.played[p] |= bit(t)
    if t == d.OPPORTUNITY:  # FM-ACT-5
        market.to_cm(s, c, p)
        drawn = market.draw_many(s, d.OPPORTUNITY_DRAW)
        if len(drawn) == d.OPPORTUNITY_DRAW:
            s.drawn = drawn
            s.drawn_owner = p
            s.dec = OPPORTUNITY_REJECT
        else:  # FM-AMB-32: keep all of a short draw
            s.opp[p].extend(drawn)
        return
    s.theft_card = c
    if t in (d.THIEF, d.BURGLAR):
        s.theft_kind = t
        s.dec = THEFT_TARGET
    elif t == d.DIPLOMACY:
        s.dip_attack[p] = True
        s.dec = DIPLOMACY_TARGET
    else:
        auction.begin_auction(s, p, c)


def apply_reject(s: FarmariaState, a: Action) -> None:
    """FM-DEC-17: the rejected card to the CM, the other two kept (flagged)."""
    assert isinstance(a, Reject)
    p = s.active
    t = CARD_INDEX[a.card]
    for i, c in enumerate(s.drawn):
        if CTYPE[c] == t:
            s.drawn.pop(i)
            market.to_cm(s, c, p)
            break
    s.opp[p].extend(s.drawn)
    s.drawn = []
    s.drawn_owner = -1
    _back(s)


def legal_reject(s: FarmariaState) -> list[Action]:
    return [Reject(CARDS[t]) for t in sorted({CTYPE[c] for c in s.drawn})]


def _back(s: FarmariaState) -> None:
    flow.back_to_3a(s)


# -- thefts (FM-ACT-1/2/3/4, FM-ACT-G4) ---------------------------------------------------


def theft_targets(
    s: FarmariaState, p: int, kind: int, first: bool = False, acq: int | None = None
) -> list[Action]:
    """FM-DEC-11: (opponent, animal) pairs the attacker could take and place.

    With ``first`` the search stops at the first target (an existence test); ``acq`` is
    :func:`farm.acquirable_types` of the attacker when the caller has it.
    """
    takes = (acquirable_types(s, p) if acq is None else acq) & _ANIMALS
    out: list[Action] = []
    if not takes:
        return out
    for q in range(s.n):
        if q == p or s.char[q] == d.IRINI or s.theft_targeted[q]:
            continue
        for fi, f in enumerate(s.farm[q]):
            pools = [(-1, f.outside)]
            if kind == d.BURGLAR:
                pools.extend(enumerate(f.inside))
            for st, pool in pools:
                for t in sorted({CTYPE[c] for c in pool if takes >> CTYPE[c] & 1}):
                    out.append(StealFrom(q, CARDS[t], fi, st))
                    if first:
                        return out
    return out


def legal_theft_target(s: FarmariaState) -> list[Action]:
    return theft_targets(s, s.active, s.theft_kind)


def apply_theft_target(s: FarmariaState, a: Action) -> None:
    assert isinstance(a, StealFrom)
    p = s.active
    q = a.player
    t = CARD_INDEX[a.card]
    f = s.farm[q][a.field]
    pool = f.outside if a.stable < 0 else f.inside[a.stable]
    s.move_card = next(c for c in pool if CTYPE[c] == t)
    s.move_from = (a.field, a.stable)
    s.victim = q
    market.to_cm(s, s.theft_card, p)  # FM-ACT-G2: declared, then placed
    s.theft_card = -1
    s.stole[p] = True
    s.theft_targeted[q] = True
    s.dec = THEFT_DEFENCE
    s.actor = q


def legal_theft_defence(s: FarmariaState) -> list[Action]:
    q = s.victim
    out: list[Action] = []
    for t in (d.DOBERMAN, d.POLICE):
        if not s.played[q] & bit(t) and any(CTYPE[c] == t for c in s.sel[q]):
            out.append(Defend(CARDS[t]))
    out.append(NoDefence())
    return out


def apply_theft_defence(s: FarmariaState, a: Action) -> None:
    p = s.active
    q = s.victim
    if isinstance(a, Defend):
        t = CARD_INDEX[a.card]
        c = flow.take_from_hand(s, q, t, allow_opp=False)
        s.played[q] |= bit(t)
        market.to_cm(s, c, q)
        flow.replacement(s, q)  # FM-ACT-G7
        s.defam[p] += 1  # FM-ACT-3, FM-JAIL-2
        if t == d.POLICE:
            s.jailed_next[p] = True  # FM-ACT-4
        s.move_card = -1
        _back(s)
        return
    fi, st = s.move_from
    f = s.farm[q][fi]
    (f.outside if st < 0 else f.inside[st]).remove(s.move_card)
    s.pending = s.move_card
    s.pending_owner = p
    s.move_card = -1
    s.dec = PLACE
    s.actor = p


# -- Diplomacy (FM-ACT-6, FM-CHAR-8, FM-CHAR-11) ------------------------------------------


def diplomacy_targets(s: FarmariaState, p: int, first: bool = False) -> list[Action]:
    """FM-DEC-13 (with ``first``: stop at the first target, an existence test)."""
    out: list[Action] = []
    bundles, cm_put = s.bundles, s.cm_put
    for pos, stack in enumerate(s.cm):  # inlined market.active / put_by: a hot loop
        if stack:
            c = stack[-1]
            if c not in bundles and not (c in cm_put and cm_put[c] >> p & 1):
                out.append(DiplomacyMarket(pos + 1))
                if first:
                    return out
    babis = s.char[p] == d.BABIS
    for q in range(s.n):
        if q == p or s.char[q] == d.GIANNOS or s.dip_received[q]:
            continue
        ns, nf = len(s.sel[q]) + len(s.opp[q]), len(s.fd[q])
        if not babis or ns + nf == 1:
            if ns:
                out.append(DiplomacyPlayer(q, (Pool.SELECTED,)))
            if nf:
                out.append(DiplomacyPlayer(q, (Pool.FACE_DOWN,)))
            continue
        if ns >= 2:
            out.append(DiplomacyPlayer(q, (Pool.SELECTED, Pool.SELECTED)))
        if ns and nf:
            out.append(DiplomacyPlayer(q, (Pool.SELECTED, Pool.FACE_DOWN)))
        if nf >= 2:
            out.append(DiplomacyPlayer(q, (Pool.FACE_DOWN, Pool.FACE_DOWN)))
    return out


def legal_diplomacy(s: FarmariaState) -> list[Action]:
    return diplomacy_targets(s, s.active)


def apply_diplomacy(s: FarmariaState, a: Action) -> None:
    p = s.active
    card = s.theft_card
    s.theft_card = -1
    if isinstance(a, DiplomacyMarket):  # option (a): lifted, then the card is placed
        c = market.take_active(s, a.position - 1)
        market.to_cm(s, card, p)
        s.fd[p].append(c)
        s.known_all.add(c)
        _back(s)
        return
    assert isinstance(a, DiplomacyPlayer)
    q = a.player
    market.to_cm(s, card, p)
    s.dip_received[q] = True
    if not s.played[q] & bit(d.DIPLOMACY) and any(CTYPE[c] == d.DIPLOMACY for c in s.sel[q]):
        c = flow.take_from_hand(s, q, d.DIPLOMACY, allow_opp=False)  # the automatic cancel
        s.played[q] |= bit(d.DIPLOMACY)
        market.to_cm(s, c, q)
        flow.replacement(s, q)
        _back(s)
        return
    rng = s.chance.stream("diplomacy", s.year)
    drawn: list[int] = []
    origins: list[int] = []
    for pool_name in a.pools:
        pool = s.sel[q] if pool_name is Pool.SELECTED else s.fd[q]
        drawn.append(pool.pop(rng.randrange(len(pool))))
        origins.append(0 if pool_name is Pool.SELECTED else 1)
    if len(drawn) == 1:
        s.fd[p].append(drawn[0])
        s.known_by[q].add(drawn[0])
        _back(s)
        return
    s.drawn = drawn
    s.drawn_owner = p
    s.babis_target = q
    s.babis_pools = tuple(origins)
    s.dec = BABIS_KEEP


def legal_babis(s: FarmariaState) -> list[Action]:
    return [Keep(CARDS[t]) for t in sorted({CTYPE[c] for c in s.drawn})]


def apply_babis(s: FarmariaState, a: Action) -> None:
    """FM-CHAR-11: keep one, the other returns to its pool with its status."""
    assert isinstance(a, Keep)
    p = s.active
    q = s.babis_target
    t = CARD_INDEX[a.card]
    i = 0 if CTYPE[s.drawn[0]] == t else 1
    kept, back = s.drawn[i], s.drawn[1 - i]
    s.fd[p].append(kept)
    (s.sel[q] if s.babis_pools[1 - i] == 0 else s.fd[q]).append(back)
    s.known_by[q].add(kept)
    s.known_by[p].add(back)
    s.drawn = []
    s.drawn_owner = -1
    s.babis_target = -1
    s.babis_pools = ()
    _back(s)
