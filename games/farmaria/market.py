"""The Common Market, the deck and the Year Event piles (FM-CM-*, FM-EVT-1, FM-EVT-10).

Chance streams: ``deck`` (index = shuffle number) for every shuffle of the management deck,
``events`` (index = shuffle number) for every shuffle of the Year Events.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from games.farmaria import data as d
from games.farmaria.farm import CTYPE

if TYPE_CHECKING:
    from games.farmaria.state import FarmariaState


def to_cm(s: FarmariaState, card: int, by: int) -> None:
    """FM-CM-2: the card goes on the position after the marker, which moves onto it.

    ``by`` is the player who put it there (-1 for the engine): FM-CM-6 forbids that player
    to reacquire it this year.
    """
    s.marker = (s.marker + 1) % s.k
    s.cm[s.marker].append(card)
    if by >= 0:
        s.cm_put[card] = s.cm_put.get(card, 0) | (1 << by)
    if s.known_all:
        s.known_all.discard(card)
    for kb in s.known_by:
        if kb:
            kb.discard(card)


def active(s: FarmariaState, pos: int) -> int:
    """FM-CM-4: the active (top) card at position ``pos`` (0-based), or -1."""
    stack = s.cm[pos]
    return stack[-1] if stack else -1


def put_by(s: FarmariaState, card: int, p: int) -> bool:
    """FM-CM-6: did player p put this card into the CM this year?"""
    return bool(s.cm_put.get(card, 0) >> p & 1)


def take_active(s: FarmariaState, pos: int) -> int:
    """Lift the active card of position ``pos`` (revealing the one beneath, FM-CM-4)."""
    return s.cm[pos].pop()


def _split(s: FarmariaState, card: int) -> list[int]:
    """FM-CM-8: a bundle is split into its cards when it is shuffled back."""
    b = s.bundles.pop(card, None)
    s.cm_put.pop(card, None)
    return [card] if b is None else b.cards()


def _collect_inactive(s: FarmariaState) -> list[int]:
    out: list[int] = []
    for stack in s.cm:
        if len(stack) > 1:
            for c in stack[:-1]:
                out.extend(_split(s, c))
            del stack[:-1]
    return out


def shuffle(rng: random.Random, x: list[int]) -> None:
    """``rng.shuffle(x)``, bit for bit: CPython's algorithm with ``_randbelow`` inlined.

    Shuffles are a tenth of a random game's time and most of it is the per-card method
    call; the same ``getrandbits`` calls in the same order give the same order (guarded by
    ``tests/games/farmaria/test_market.py::test_FM_CM_7_shuffle_matches_random_shuffle``).
    """
    getrandbits = rng.getrandbits
    n = len(x)  # x[n - 1] swaps with x[j], j uniform in [0, n), for n = len(x) .. 2
    while n > 1:
        k = n.bit_length()  # the same for every n down to 2 ** (k - 1)
        lowest = 1 << (k - 1)
        while n >= lowest:
            j = getrandbits(k)
            while j >= n:
                j = getrandbits(k)
            n -= 1
            x[n], x[j] = x[j], x[n]


def shuffle_deck(s: FarmariaState, cards: list[int]) -> None:
    """Shuffle ``cards`` into a new deck order from stream ``deck``/shuffle number."""
    cards.sort()
    shuffle(s.chance.stream("deck", s.deck_shuffles), cards)
    s.deck_shuffles += 1
    s.deck = cards


def draw(s: FarmariaState) -> int:
    """Draw the top deck card; FM-CM-7 reshuffle of inactive CM cards when empty; -1 if none."""
    if not s.deck:
        cards = _collect_inactive(s)
        if not cards:
            return -1  # FM-AMB-32: the draw does not happen
        shuffle_deck(s, cards)
    return s.deck.pop()


def draw_many(s: FarmariaState, k: int) -> list[int]:
    out: list[int] = []
    for _ in range(k):
        c = draw(s)
        if c < 0:
            break
        out.append(c)
    return out


def audit_reshuffle(s: FarmariaState) -> None:
    """FM-EVT-10 step 3 / FM-CM-9: events and inactive CM cards reshuffled."""
    evs = s.ye_discard + s.ye_piles[0] + s.ye_piles[1]
    s.ye_discard = []
    split_events(s, evs)
    cards = _collect_inactive(s) + s.deck
    shuffle_deck(s, cards)


def split_events(s: FarmariaState, evs: list[int]) -> None:
    """FM-SETUP-4: shuffle Year Event cards and split them into two equal piles."""
    evs.sort()
    shuffle(s.chance.stream("events", s.ye_shuffles), evs)
    s.ye_shuffles += 1
    half = (len(evs) + 1) // 2
    s.ye_piles = [evs[:half], evs[half:]]


def event_types() -> tuple[int, ...]:
    out: list[int] = []
    for t, (_, n) in enumerate(d.EVENTS):
        out.extend([t] * n)
    return tuple(out)


#: event card id -> event type
ETYPE: tuple[int, ...] = event_types()


def effective(cards: list[int]) -> int:
    """FM-EVT-2: identical events count once; opposite crop events cancel."""
    e = 0
    for c in cards:
        e |= 1 << ETYPE[c]
    for plus, minus in ((0, 1), (2, 3), (4, 5)):
        if e >> plus & 1 and e >> minus & 1:
            e &= ~((1 << plus) | (1 << minus))
    return e


def is_goods(card: int) -> bool:
    return CTYPE[card] < d.NUM_GOODS
