"""``determinize`` from a seat that is not acting is not biased toward the real cards.

The viewer of a real state S cannot tell S from any world A consistent with what he sees
(A = a determinization of S: same observation). An unbiased determinization therefore
draws the same hands from S as from A: in particular S's real hand is no more frequent
among the copies of S than among the copies of A. A determinization that kept S's real
hand after failed re-deals failed this by a factor of about forty. Seeds are fixed: the
test is deterministic (no clock, no global random).
"""

from __future__ import annotations

import random
from collections import Counter

import games
from games.farmaria import data as d
from games.farmaria.farm import CTYPE
from games.farmaria.state import DECISION_NAMES, FarmariaState

#: the decisions whose validity rests on the acting player's hidden cards: a defence needs
#: a defence card, a choice among cards two types; choices are frequent, one in CHOICE_EVERY
#: is taken
DEFENCES = {"theft_defence", "event_defence"}
CHOICES = {
    "select",
    "discard_limit",
    "discard_minimum",
    "discard_opportunity",
    "alexandros_reject",
    "opportunity_reject",
    "babis_keep",
}
CHOICE_EVERY = 40
GAMES = 40
COPIES = 40

Hand = tuple[tuple[str, ...], ...]


def _hand(s: FarmariaState, p: int) -> Hand:
    zones = (s.sel[p], s.fd[p], s.opp[p], s.drawn if s.drawn_owner == p else [])
    return tuple(tuple(sorted(d.CARD_IDS[CTYPE[c]] for c in z)) for z in zones)


def _states() -> list[tuple[int, FarmariaState]]:
    """(viewer, state) at the decisions of KINDS in seeded random games."""
    spec = games.get("farmaria")
    out: list[tuple[int, FarmariaState]] = []
    for seed in range(GAMES):
        s = spec.new_game(num_players=2 + seed % 3, seed=seed)
        assert isinstance(s, FarmariaState)
        rng = random.Random(seed)
        choices = 0
        while not s.is_over():
            kind = DECISION_NAMES[s.dec]
            choices += kind in CHOICES
            if kind in DEFENCES or (kind in CHOICES and choices % CHOICE_EVERY == 0):
                viewer = s.active if s.actor != s.active else (s.actor + 1) % s.n
                out.append((viewer, s.clone()))
            s.apply(rng.choice(s.legal_actions()))
    return out


def _copies(s: FarmariaState, viewer: int, tag: str) -> Counter[Hand]:
    counts: Counter[Hand] = Counter()
    for k in range(COPIES):
        t = s.determinize(viewer, random.Random(f"{tag}/{k}"))
        assert isinstance(t, FarmariaState)
        assert t.observation(viewer) == s.observation(viewer)
        assert len(t.legal_actions()) >= 2  # the decision the viewer sees being asked
        counts[_hand(t, s.actor)] += 1
    return counts


def test_FM_STATE_2_determinize_does_not_favour_the_real_hand() -> None:
    """Covers: FM-STATE-2"""
    states = _states()
    kinds = {DECISION_NAMES[s.dec] for _, s in states}
    assert {"theft_defence", "event_defence", "select"} <= kinds
    real_in_real = real_in_other = other_in_real = other_in_other = 0
    for i, (viewer, s) in enumerate(states):
        other = s.determinize(viewer, random.Random(f"world/{i}"))
        assert isinstance(other, FarmariaState)
        real, alt = _hand(s, s.actor), _hand(other, s.actor)
        from_real = _copies(s, viewer, f"real/{i}")
        from_other = _copies(other, viewer, f"other/{i}")
        real_in_real += from_real[real]
        real_in_other += from_other[real]
        other_in_real += from_real[alt]
        other_in_other += from_other[alt]
    total = len(states) * COPIES
    # The same law from S and from A: each hand about as frequent in both (binomial noise).
    assert real_in_real <= 2 * real_in_other + 15, (real_in_real, real_in_other, total)
    assert other_in_other <= 2 * other_in_real + 15, (other_in_other, other_in_real, total)
    assert real_in_real < 0.05 * total  # never "the real hand, often"
    print(
        f"{len(states)} decisions x {COPIES} copies: real hand {real_in_real} from S, "
        f"{real_in_other} from A; A's hand {other_in_other} from A, {other_in_real} from S"
    )
