"""Determinization (FM-STATE-2): re-deal every card the viewer cannot identify.

The viewer sees that the acting player is being asked, so that player has a real decision
(two options or more): a deal that would leave a single option is not consistent with what
the viewer knows. Where the decision's validity rests on the acting player's hidden cards,
the deal is *constructed*: the zone the decision depends on is dealt first, from the
distribution of a uniform deal conditioned on the decision being valid, then the rest is
dealt uniformly. Every consistent deal is then equally likely, the real one included (no
"keep the real hand after n failures", which made the real hand the most frequent by far):

* a defence (``theft_defence``, ``event_defence``) needs one card of the defence types
  allowed now among the selected cards: the number of such cards in the zone is drawn from
  the hypergeometric law conditioned on at least one, then the cards themselves;
* a choice among cards (``select``, the discards, Alexandros, Opportunity, Babis) needs two
  different types in the zone: the zone is drawn until it has them (a cheap draw of a few
  cards, never a whole re-deal).

Any other decision is checked after a uniform deal and re-dealt if it has a single option;
only if ``REDEAL_TRIES`` deals all fail are the acting player's hidden cards kept (such a
case has not been met in random play: ``bench/determinize_bias.py``).
"""

from __future__ import annotations

import random
from math import comb

from games.farmaria import data as d
from games.farmaria import flow
from games.farmaria.farm import CTYPE
from games.farmaria.state import (
    ALEXANDROS_REJECT,
    BABIS_KEEP,
    DISCARD_LIMIT,
    DISCARD_MINIMUM,
    DISCARD_OPPORTUNITY,
    EVENT_DEFENCE,
    OPPORTUNITY_REJECT,
    SELECT,
    THEFT_DEFENCE,
    FarmariaState,
)

#: uniform re-deals tried for a decision without a constructed deal
REDEAL_TRIES = 20
#: draws of a two-type zone before the zone is built from two types outright
ZONE_TRIES = 1000

#: a requirement: (the zone, the card types one of which it must hold; empty: two types)
Need = tuple[list[int], frozenset[int]]


def determinize(s: FarmariaState, viewer: int, rng: random.Random) -> FarmariaState:
    """A copy of ``s`` with the cards and event order ``viewer`` cannot know re-drawn."""
    from games.farmaria import rules

    t = s.clone()
    for attempt in range(REDEAL_TRIES + 1):
        t = s.clone()
        _redeal(t, viewer, rng, keep_actor=attempt == REDEAL_TRIES)
        if t.over or len(rules.legal(t)) >= 2:
            break
    if not t.ye_known >> viewer & 1:
        evs = t.ye_piles[0] + t.ye_piles[1]
        rng.shuffle(evs)
        n0 = len(t.ye_piles[0])
        t.ye_piles = [evs[:n0], evs[n0:]]
    else:  # Tasos (or whoever he told) knows the two tops
        for pile in t.ye_piles:
            if len(pile) > 1:
                rest = pile[:-1]
                rng.shuffle(rest)
                pile[:-1] = rest
    t.chance = s.chance.reseeded(rng)
    t.invalidate()
    if not t.over:
        t._legal = rules.legal(t)
    return t


def requirement(t: FarmariaState) -> Need | None:
    """What the pending decision needs of the acting player's cards to have two options."""
    if t.over:
        return None
    p, k = t.actor, t.dec
    if k == THEFT_DEFENCE:
        types = {x for x in (d.DOBERMAN, d.POLICE) if not t.played[p] & flow.bit(x)}
        return t.sel[p], frozenset(types)
    if k == EVENT_DEFENCE:
        return t.sel[p], frozenset(flow.defence_types(t, p))
    two: frozenset[int] = frozenset()
    if k == SELECT:
        return t.fd[p], two
    if k == DISCARD_LIMIT:
        return (t.sel[p] if t.sel[p] else t.fd[p]), two
    if k == DISCARD_MINIMUM:
        return t.sel[p], two
    if k == DISCARD_OPPORTUNITY:
        return t.opp[p], two
    if k in (ALEXANDROS_REJECT, OPPORTUNITY_REJECT, BABIS_KEEP):
        return t.drawn, two
    return None


def _redeal(t: FarmariaState, viewer: int, rng: random.Random, keep_actor: bool) -> None:
    """Shuffle the cards ``viewer`` cannot identify among the places they could be."""
    fixed = t.known_all | t.known_by[viewer]
    zones: list[list[int]] = []
    for q in range(t.n):
        if q == viewer or (keep_actor and q == t.actor):
            continue
        zones.extend((t.sel[q], t.fd[q], t.opp[q]))  # an unrevealed split is redrawn too
    if t.drawn and t.drawn_owner != viewer and not (keep_actor and t.drawn_owner == t.actor):
        zones.append(t.drawn)
    zones.append(t.deck)
    pool = [c for z in zones for c in z if c not in fixed]
    need = None if keep_actor or t.actor == viewer else requirement(t)
    first: list[int] | None = None
    if need is not None and any(z is need[0] for z in zones):
        first = need[0]
        slots = [i for i, c in enumerate(first) if c not in fixed]
        kept = [CTYPE[c] for c in first if c in fixed]
        chosen = _deal_zone(pool, len(slots), kept, need[1], rng)
        for i, c in zip(slots, chosen, strict=True):
            first[i] = c
        taken = set(chosen)
        pool = [c for c in pool if c not in taken]
    rng.shuffle(pool)
    it = iter(pool)
    for z in zones:
        if z is not first:
            z[:] = [c if c in fixed else next(it) for c in z]


def _deal_zone(
    pool: list[int], m: int, kept: list[int], types: frozenset[int], rng: random.Random
) -> list[int]:
    """``m`` cards of ``pool`` for a zone already holding cards of types ``kept``, drawn as a
    uniform deal conditioned on the zone then holding a card of ``types`` (or, ``types``
    empty, two different types). Without such a deal, a uniform one."""
    if types:
        if any(x in types for x in kept):
            return rng.sample(pool, m)
        good = [c for c in pool if CTYPE[c] in types]
        bad = [c for c in pool if CTYPE[c] not in types]
        ks = range(1, min(m, len(good)) + 1)
        weights = [comb(len(good), k) * comb(len(bad), m - k) for k in ks]
        if not any(weights):
            return rng.sample(pool, m)
        k = rng.choices(ks, weights)[0]
        out = rng.sample(good, k) + rng.sample(bad, m - k)
        rng.shuffle(out)
        return out
    if len(set(kept)) >= 2 or len(set(kept) | {CTYPE[c] for c in pool}) < 2 or m + len(kept) < 2:
        return rng.sample(pool, m)
    for _ in range(ZONE_TRIES):
        out = rng.sample(pool, m)
        if len(set(kept) | {CTYPE[c] for c in out}) >= 2:
            return out
    first = rng.choice(pool)  # nearly one type everywhere: build two types outright
    ref = kept[0] if kept else CTYPE[first]
    other = rng.choice([c for c in pool if CTYPE[c] != ref])
    rest = [c for c in pool if c != first and c != other]
    out = [other, *rng.sample(rest, m - 1)] if kept else [first, other, *rng.sample(rest, m - 2)]
    rng.shuffle(out)
    return out
