"""Fields, space, placement and the yearly values of a farm (FM-FARM-*, FM-INC-*, FM-VP-1).

Space is counted in half-units (FM-CONV-3): a field has 12, a stable takes 4 outside and
shelters 4, a large animal, plant or tractor takes 2, a small animal 1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from games.farmaria import data as d

if TYPE_CHECKING:
    from games.farmaria.state import FarmariaState


def _card_types() -> tuple[int, ...]:
    out: list[int] = []
    for t, n in enumerate(d.CARD_COUNTS):
        out.extend([t] * n)
    return tuple(out)


#: card id -> card type (FM-STATE-3: every physical card has a unique id).
CTYPE: tuple[int, ...] = _card_types()
NUM_CARDS = len(CTYPE)
HALF: tuple[int, ...] = tuple(g.half_space for g in d.GOODS) + (0,) * len(d.ACTIONS)
IS_ANIMAL: tuple[bool, ...] = tuple(t in d.ANIMALS for t in range(len(d.CARD_IDS)))
IS_PLANT: tuple[bool, ...] = tuple(t in d.PLANTS for t in range(len(d.CARD_IDS)))
#: card id -> half-units it takes (a precomputed ``HALF[CTYPE[c]]``)
CARD_HALF: tuple[int, ...] = tuple(HALF[t] for t in CTYPE)
#: animals and the tractor: the goods that move (FM-FARM-4)
MOVABLE: tuple[bool, ...] = tuple(IS_ANIMAL[t] or t == d.TRACTOR for t in range(len(d.CARD_IDS)))


class Field:
    """One field: its card, its stables (card ids) with the animals inside, and the outside."""

    __slots__ = ("card", "inside", "outside", "stables")

    def __init__(self, card: int) -> None:
        self.card = card
        self.stables: list[int] = []
        self.inside: list[list[int]] = []
        self.outside: list[int] = []

    def clone(self) -> Field:
        f = Field(self.card)
        f.stables = self.stables[:]
        f.inside = [a[:] for a in self.inside]
        f.outside = self.outside[:]
        return f

    def cards(self) -> list[int]:
        """Every card of this field (the field card first): a bundle's contents (FM-SELL-4)."""
        out = [self.card, *self.stables]
        for a in self.inside:
            out.extend(a)
        out.extend(self.outside)
        return out

    def outside_used(self) -> int:
        return HALF[d.STABLE] * len(self.stables) + sum(map(CARD_HALF.__getitem__, self.outside))

    def content_units(self) -> int:
        """Half-units of plants, tractor and animals, inside stables included (FM-FARM-8)."""
        return sum(HALF[CTYPE[c]] for c in self.outside) + sum(
            HALF[CTYPE[c]] for a in self.inside for c in a
        )

    def is_full(self) -> bool:
        """FM-FARM-8: all 6 spaces covered (stable spaces only by animals inside)."""
        return self.content_units() == d.FIELD_HALF_SPACES


def has_tractor(fields: list[Field]) -> bool:
    return any(CTYPE[c] == d.TRACTOR for f in fields for c in f.outside)


def bundle_has_tractor(field: Field) -> bool:
    return any(CTYPE[c] == d.TRACTOR for c in field.outside)


def locations_for(fields: list[Field], t: int) -> list[tuple[int, int]]:
    """FM-DEC-8: every legal location for a new good of type ``t`` (not a field)."""
    return locations_in(usage(fields), t)


Usage = list[tuple[int, int, list[int]]]


def usage(fields: list[Field]) -> Usage:
    """Per field: (outside half-units used, stable count, half-units used in each stable)."""
    return [
        (
            f.outside_used(),
            len(f.stables),
            [sum(HALF[CTYPE[c]] for c in a) for a in f.inside],
        )
        for f in fields
    ]


def locations_in(use: Usage, t: int) -> list[tuple[int, int]]:
    """Like :func:`locations_for` from a precomputed :func:`usage`."""
    need = HALF[t]
    out: list[tuple[int, int]] = []
    if t == d.STABLE:
        for i, (used, ns, _) in enumerate(use):
            if ns < d.MAX_STABLES_PER_FIELD and used + HALF[d.STABLE] <= d.FIELD_HALF_SPACES:
                out.append((i, -1))
        return out
    animal = IS_ANIMAL[t]
    room = d.FIELD_HALF_SPACES - need
    cap = d.STABLE_HALF_CAPACITY - need
    for i, (used, _, inside) in enumerate(use):
        if used <= room:
            out.append((i, -1))
        if animal:
            for j, u in enumerate(inside):
                if u <= cap:
                    out.append((i, j))
    return out


def can_acquire(s: FarmariaState, p: int, t: int) -> bool:
    """FM-FARM-3/5, FM-CHAR-13: could player p take a good of type t now?"""
    if t == d.FIELD:
        return True
    if t == d.TRACTOR and (s.char[p] == d.ARGYRI or has_tractor(s.farm[p])):
        return False
    return bool(locations_for(s.farm[p], t))


def can_acquire_item(s: FarmariaState, p: int, card: int) -> bool:
    """Like :func:`can_acquire` for a CM item, which may be a field bundle."""
    b = s.bundles.get(card)
    if b is None:
        return can_acquire(s, p, CTYPE[card])
    if bundle_has_tractor(b):
        return s.char[p] != d.ARGYRI and not has_tractor(s.farm[p])
    return True


def item_cards(s: FarmariaState, card: int) -> list[int]:
    b = s.bundles.get(card)
    return [card] if b is None else b.cards()


def price(s: FarmariaState, card: int, column: str) -> int:
    """Price of a CM item (a bundle costs the sum of its parts, FM-SELL-4)."""
    total = 0
    for c in item_cards(s, card):
        total += getattr(d.GOODS[CTYPE[c]], column)
    return total


def sellables(fields: list[Field]) -> list[tuple[int, int, int]]:
    """Each distinct sellable (type, field, stable): animals, the tractor, whole fields."""
    out: list[tuple[int, int, int]] = []
    for i, f in enumerate(fields):
        seen: set[int] = set()
        for c in f.outside:
            t = CTYPE[c]
            if (IS_ANIMAL[t] or t == d.TRACTOR) and t not in seen:
                seen.add(t)
                out.append((t, i, -1))
        for j, a in enumerate(f.inside):
            seen_in: set[int] = set()
            for c in a:
                t = CTYPE[c]
                if t not in seen_in:
                    seen_in.add(t)
                    out.append((t, i, j))
        out.append((d.FIELD, i, -1))
    return out


def find_card(
    fields: list[Field], t: int, fi: int, st: int, exclude: set[int] | None = None
) -> int:
    """A card of type t at location (fi, st), or -1."""
    if fi < 0 or fi >= len(fields):
        return -1
    f = fields[fi]
    if st >= len(f.inside):
        return -1
    pool = f.outside if st < 0 else f.inside[st]
    for c in pool:
        if CTYPE[c] == t and (exclude is None or c not in exclude):
            return c
    return -1


def remove_card(fields: list[Field], card: int, fi: int, st: int) -> None:
    f = fields[fi]
    (f.outside if st < 0 else f.inside[st]).remove(card)


def add_card(fields: list[Field], card: int, fi: int, st: int) -> None:
    f = fields[fi]
    if CTYPE[card] == d.STABLE:
        f.stables.append(card)
        f.inside.append([])
    else:
        (f.outside if st < 0 else f.inside[st]).append(card)


def owned_cards(fields: list[Field]) -> list[int]:
    out: list[int] = []
    for f in fields:
        out.extend(f.cards())
    return out


def tax_of(fields: list[Field]) -> int:
    """Tax of all owned goods (FM-EVT-9)."""
    return sum(d.GOODS[CTYPE[c]].tax for c in owned_cards(fields))


def upkeep_of(s: FarmariaState, p: int) -> int:
    """Upkeep of all owned goods; Lambis pays none for animals (FM-CHAR-3)."""
    lambis = s.char[p] == d.LAMBIS
    total = 0
    for c in owned_cards(s.farm[p]):
        t = CTYPE[c]
        if lambis and IS_ANIMAL[t]:
            continue
        total += d.GOODS[t].upkeep
    return total


def crop_delta(e: int, t: int) -> int:
    delta = 0
    for ev, (crop, dl) in d.CROP_EVENTS.items():
        if crop == t and e >> ev & 1:
            delta += dl
    return delta


def goods_income(s: FarmariaState, p: int) -> int:
    """FM-INC-1/2/3: plant and animal income of player p under the effective events."""
    e = s.effective
    fields = s.farm[p]
    ch = s.char[p]
    insects = bool(e >> d.EV_INSECTS & 1) and not (
        s.played[p] >> (d.INSECTICIDE - d.THIEF) & 1 or ch == d.ANTHI
    )
    disease = bool(e >> d.EV_DISEASE & 1) and not (
        s.played[p] >> (d.VET - d.THIEF) & 1 or ch == d.PARASKEVI
    )
    bad = bool(e >> d.EV_BAD_WEATHER & 1)
    tractor = d.TRACTOR_BONUS if has_tractor(fields) and not s.jailed_now[p] else 0
    males = {CTYPE[c] for f in fields for c in f.outside if CTYPE[c] in d.MALES}
    males.update(CTYPE[c] for f in fields for a in f.inside for c in a if CTYPE[c] in d.MALES)
    total = 0
    for f in fields:
        for c in f.outside:
            t = CTYPE[c]
            if IS_PLANT[t]:
                if insects or (bad and t != d.OLIVE):
                    continue
                bonus = tractor + (1 if ch == d.ARGYRI and t != d.OLIVE else 0)
                total += max(0, d.GOODS[t].income + crop_delta(e, t) + bonus)
            elif IS_ANIMAL[t] and not disease and not bad:
                total += _animal_income(t, males)
        if not disease:
            for a in f.inside:
                for c in a:
                    total += _animal_income(CTYPE[c], males)
    return total


def _animal_income(t: int, males: set[int]) -> int:
    male = d.MALE_OF.get(t)
    return d.GOODS[t].income + (d.MALE_BONUS if male is not None and male in males else 0)


def full_fields(fields: list[Field]) -> int:
    return sum(1 for f in fields if f.is_full())


def count_vp(s: FarmariaState, p: int) -> int:
    """FM-VP-1: VP recounted from zero."""
    fields = s.farm[p]
    goods = sum(d.GOODS[CTYPE[c]].vp for c in owned_cards(fields))
    return (
        goods
        + s.wallet[p] // d.COINS_PER_VP
        + d.FULL_FIELD_VP * full_fields(fields)
        - d.DEFAMATION_VP * s.defam[p]
    )


def interest(loan: int) -> int:
    """FM-LOAN-1: 0 up to 2 coins, else 2 per started 5 coins."""
    if loan <= d.INTEREST_FREE_UP_TO:
        return 0
    return d.INTEREST_PER_STEP * (-(-loan // d.INTEREST_STEP))
