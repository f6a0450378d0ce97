"""Helpers to build and steer Farmaria states for the rule tests.

They set fields on a fresh state (characters chosen, hands emptied into the deck) and then
hand control back to the public API: ``legal_actions()`` / ``apply()``.

* ``blank(chars)``: a new game with those characters, every hand and the CM put back into
  the deck, at year 1 with nothing pending (call one of the ``at_*`` helpers next).
* ``take(s, "cow")``: a physical card of that type, removed from wherever it lies (deck first).
* ``hand(s, p, sel=[...], fd=[...])``: give a player selected / face-down cards.
* ``put(s, p, "cow", field=0, stable=-1)``: place an owned good; ``field(s, p)`` adds a field.
* ``events(s, *names)``: the effective Year Event set (FM-EVT-2 applied).
* ``at_3a(s, p)``: make it p's 3a; ``at_4a(s)``: run phase 4 from its start.
* ``act(s, text)``: apply the legal action whose ``str()`` is ``text``.
"""

from __future__ import annotations

import games
from games.core import Action
from games.farmaria import accounting, flow, market, rules
from games.farmaria import data as d
from games.farmaria.actions import CharacterName
from games.farmaria.farm import CTYPE, Field
from games.farmaria.state import ACTION_3A, FarmariaState

SPEC = games.get("farmaria")
T = {name: i for i, name in enumerate(d.CARD_IDS)}
EV = {name: i for i, (name, _) in enumerate(d.EVENTS)}


def new(chars: tuple[str, ...], seed: int = 0, **kw: object) -> FarmariaState:
    """A fresh game with the given characters (seat order), at its first decision."""
    spec = SPEC
    assert hasattr(spec, "new_variant")
    names = tuple(CharacterName(c) for c in chars)
    s = spec.new_variant(len(chars), seed, characters=names, **kw)
    assert isinstance(s, FarmariaState)
    return s


def blank(chars: tuple[str, ...], seed: int = 0) -> FarmariaState:
    """A game whose hands and CM are back in the deck: a clean table at year 1."""
    s = new(chars, seed)
    for p in range(s.n):
        s.deck.extend(s.sel[p] + s.fd[p] + s.opp[p])
        s.sel[p], s.fd[p], s.opp[p] = [], [], []
    clear_cm(s)
    s.year = 1
    s.order = list(range(s.n))
    s.effective = 0
    s.invalidate()
    return s


def clear_cm(s: FarmariaState) -> None:
    for stack in s.cm:
        for c in stack:
            b = s.bundles.pop(c, None)
            s.deck.extend(b.cards() if b else [c])
        stack.clear()
    s.marker = s.k - 1


def take(s: FarmariaState, name: str) -> int:
    """Remove and return a card of this type from the deck (else from hands or the CM)."""
    t = T[name]
    zones = [s.deck, *s.sel, *s.fd, *s.opp, *s.cm]
    for z in zones:
        for i in range(len(z) - 1, -1, -1):
            if CTYPE[z[i]] == t and z[i] not in s.bundles:
                return z.pop(i)
    raise LookupError(f"no free {name} card")


def hand(s: FarmariaState, p: int, sel: list[str] = (), fd: list[str] = ()) -> None:  # type: ignore[assignment]
    """Give player p these selected and face-down cards (added to what he holds)."""
    s.sel[p].extend(take(s, x) for x in sel)
    s.fd[p].extend(take(s, x) for x in fd)
    s.invalidate()


def names(cards: list[int]) -> list[str]:
    return sorted(d.CARD_IDS[CTYPE[c]] for c in cards)


def field(s: FarmariaState, p: int) -> int:
    """Give player p a new empty field; returns its index."""
    s.farm[p].append(Field(take(s, "field")))
    s.invalidate()
    return len(s.farm[p]) - 1


def put(s: FarmariaState, p: int, name: str, fi: int = 0, stable: int = -1, n: int = 1) -> None:
    """Place n owned goods of this type at (field, stable); a stable is built in the field."""
    for _ in range(n):
        c = take(s, name)
        f = s.farm[p][fi]
        if name == "stable":
            f.stables.append(c)
            f.inside.append([])
        elif stable >= 0:
            f.inside[stable].append(c)
        else:
            f.outside.append(c)
    s.invalidate()


def cm_put(s: FarmariaState, name: str) -> int:
    """Place a card of this type into the CM (FM-CM-2) as the engine would; returns its id."""
    c = take(s, name)
    market.to_cm(s, c, -1)
    s.invalidate()
    return c


def events(s: FarmariaState, *evs: str) -> None:
    """Set the two revealed Year Events (cards taken from the piles) and the effective set."""
    cards = []
    for e in evs:
        for pile in (*s.ye_piles, s.ye_discard):
            hit = next((c for c in pile if d.EVENTS[market.ETYPE[c]][0] == e), None)
            if hit is not None:
                pile.remove(hit)
                cards.append(hit)
                break
    s.ye_current = cards
    s.effective = market.effective(cards)
    s.invalidate()


def stack_events(s: FarmariaState, e1: str, e2: str) -> None:
    """Put these two events on top of the two piles (they are revealed next)."""
    for pile_i, e in ((0, e1), (1, e2)):
        for pile in (*s.ye_piles, s.ye_discard):
            hit = next((c for c in pile if d.EVENTS[market.ETYPE[c]][0] == e), None)
            if hit is not None:
                pile.remove(hit)
                s.ye_piles[pile_i].append(hit)
                break


def at_3a(s: FarmariaState, p: int) -> FarmariaState:
    """Make it player p's 3a (FM-P3-2) in the current year."""
    s.active = p
    s.actor = p
    s.idx = s.order.index(p)
    s.dec = ACTION_3A
    s.moved = set()
    s.invalidate()
    return s


def at_phase2(s: FarmariaState) -> FarmariaState:
    """Reveal the Year Events and run phase 2 (FM-EVT-3) up to its first decision."""
    flow.begin_phase2(s)
    rules.settle(s)
    return s


def at_4a(s: FarmariaState, last: bool = True) -> FarmariaState:
    """Start phase 4 (FM-MONEY-1) in turn order, up to the first decision.

    With ``last`` the current year is made the final one, so the game stops after 4c and the
    wallets, debts and VP of this year stay to be inspected.
    """
    if last:
        s.year_limit = s.year
    accounting.begin_4a(s, 0)
    rules.settle(s)
    return s


def end_3c(s: FarmariaState) -> None:
    """Mark every player's phase 3 as done except the active one (for flow tests)."""
    for p in range(s.n):
        if p != s.active:
            s.phase3_done[p] = True


def strs(s: FarmariaState) -> list[str]:
    return [str(a) for a in s.legal_actions()]


def act(s: FarmariaState, text: str) -> None:
    """Apply the legal action whose str() is ``text``."""
    for a in s.legal_actions():
        if str(a) == text:
            s.apply(a)
            return
    raise AssertionError(f"{text!r} not legal; options: {strs(s)}")


def find(s: FarmariaState, text: str) -> Action:
    for a in s.legal_actions():
        if str(a) == text:
            return a
    raise AssertionError(f"{text!r} not legal; options: {strs(s)}")


def farm_names(s: FarmariaState, p: int) -> list[list[str]]:
    return [names(f.cards()[1:]) for f in s.farm[p]]


def vp(s: FarmariaState, p: int) -> int:
    from games.farmaria.farm import count_vp

    return count_vp(s, p)


def income(s: FarmariaState, p: int) -> int:
    from games.farmaria.farm import goods_income

    return goods_income(s, p)


__all__ = ["EV", "T", "d"]


def deck_top(s: FarmariaState, *cards: str) -> None:
    """Put these cards on top of the deck; the last named is drawn first."""
    got = [take(s, x) for x in cards]
    s.deck.extend(got)
