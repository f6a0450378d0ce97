"""Fields, space, placement and the yearly values of a farm (FM-FARM-*, FM-INC-*, FM-VP-1).

Space is counted in half-units (FM-CONV-3): a field has 12, a stable takes 4 outside and
shelters 4, a large animal, plant or tractor takes 2, a small animal 1.
"""

from __future__ import annotations

from collections.abc import Callable
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
        half = CARD_HALF.__getitem__
        units = sum(map(half, self.outside))
        for a in self.inside:
            units += sum(map(half, a))
        return units

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
            [sum(map(CARD_HALF.__getitem__, a)) for a in f.inside],
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


# -- room counts: the fast form of locations_for, for whole option lists --------------------
#
# A new good of type t could go to ``rooms[ROOM_CLASS[t]]`` locations: a stable needs a
# stable site, a field no room at all, any other good outside room for its half-units and,
# for an animal, also a stable with room for it. Goods take 1 or 2 half-units (small
# animals; everything else), which the unrolled counts in ``farm_use`` rely on.
ROOM_SITE, ROOM_ANY = 0, 1
_PLACED = [t for t in range(d.NUM_GOODS) if t not in (d.FIELD, d.STABLE)]
assert {HALF[t] for t in _PLACED} <= {1, 2}, "farm_use counts room for 1 or 2 half-units"
#: goods type -> its room class: 2 * half-units + (1 for an animal), or ROOM_SITE / ROOM_ANY
ROOM_CLASS: tuple[int, ...] = tuple(
    ROOM_SITE if t == d.STABLE else 2 * HALF[t] + IS_ANIMAL[t] if t in _PLACED else ROOM_ANY
    for t in range(d.NUM_GOODS)
)
#: room class -> bitmask of the goods types in it
CLASS_TYPES: tuple[int, ...] = tuple(
    sum(1 << t for t in range(d.NUM_GOODS) if ROOM_CLASS[t] == k) for k in range(6)
)
_SITE_TYPES, _ANY_TYPES = CLASS_TYPES[ROOM_SITE], CLASS_TYPES[ROOM_ANY]
_FULL = d.FIELD_HALF_SPACES
_SITE_MAX = d.FIELD_HALF_SPACES - HALF[d.STABLE]  # most outside half-units that leave a site
_CAP = d.STABLE_HALF_CAPACITY
_NO_STABLES: list[int] = []


def farm_use(fields: list[Field]) -> tuple[list[int], list[list[int]], list[int]]:
    """Per field the outside half-units used and each stable's, and the room counts by room
    class (how many locations could take one more good of that class; FM-DEC-8)."""
    half = CARD_HALF.__getitem__
    outs: list[int] = []
    ins: list[list[int]] = []
    site = o1 = o2 = s1 = s2 = 0
    for f in fields:
        outside, inside = f.outside, f.inside
        used = HALF[d.STABLE] * len(inside) + (sum(map(half, outside)) if outside else 0)
        outs.append(used)
        if used <= _FULL - 2:
            o1 += 1
            o2 += 1
            site += used <= _SITE_MAX and len(inside) < d.MAX_STABLES_PER_FIELD
        elif used < _FULL:
            o1 += 1
        if inside:
            units = [sum(map(half, a)) for a in inside]
            for u in units:
                if u <= _CAP - 2:
                    s1 += 1
                    s2 += 1
                elif u < _CAP:
                    s1 += 1
            ins.append(units)
        else:
            ins.append(_NO_STABLES)
    return outs, ins, [site, 1, o1, o1 + s1, o2, o2 + s2]


def room_mask(rooms: list[int]) -> int:
    """The goods types with at least one location (``farm_use`` room counts), fields always
    (they need no room); the tractor rules are the caller's."""
    return (
        _ANY_TYPES
        | (_SITE_TYPES if rooms[ROOM_SITE] else 0)
        | (CLASS_TYPES[2] if rooms[2] else 0)
        | (CLASS_TYPES[3] if rooms[3] else 0)
        | (CLASS_TYPES[4] if rooms[4] else 0)
        | (CLASS_TYPES[5] if rooms[5] else 0)
    )


def acquirable_types(s: FarmariaState, p: int) -> int:
    """Bitmask of the goods types player p could take now (FM-FARM-3/5, FM-CHAR-13)."""
    fields = s.farm[p]
    mask = room_mask(farm_use(fields)[2])
    if s.char[p] == d.ARGYRI or has_tractor(fields):
        mask &= ~(1 << d.TRACTOR)
    return mask


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


#: price column -> card id -> that price of the card's goods type (0 for action cards)
CARD_PRICE: dict[str, tuple[int, ...]] = {
    col: tuple(getattr(d.GOODS[t], col) if t < d.NUM_GOODS else 0 for t in CTYPE)
    for col in ("item", "cm", "emergency", "merchant")
}


def price(s: FarmariaState, card: int, column: str) -> int:
    """Price of a CM item (a bundle costs the sum of its parts, FM-SELL-4)."""
    prices = CARD_PRICE[column]
    b = s.bundles.get(card)
    return prices[card] if b is None else sum(map(prices.__getitem__, b.cards()))


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


def _per_card(value: Callable[[int], int]) -> tuple[int, ...]:
    """card id -> ``value(goods type)`` (0 for an action card), for the yearly sums."""
    return tuple(value(t) if t < d.NUM_GOODS else 0 for t in CTYPE)


_CARD_TAX = _per_card(lambda t: d.GOODS[t].tax)
_CARD_UPKEEP = _per_card(lambda t: d.GOODS[t].upkeep)
_CARD_UPKEEP_LAMBIS = _per_card(lambda t: 0 if IS_ANIMAL[t] else d.GOODS[t].upkeep)
_CARD_VP = _per_card(lambda t: d.GOODS[t].vp)


def tax_of(fields: list[Field]) -> int:
    """Tax of all owned goods (FM-EVT-9)."""
    return sum(map(_CARD_TAX.__getitem__, owned_cards(fields)))


def upkeep_of(s: FarmariaState, p: int) -> int:
    """Upkeep of all owned goods; Lambis pays none for animals (FM-CHAR-3)."""
    upkeep = _CARD_UPKEEP_LAMBIS if s.char[p] == d.LAMBIS else _CARD_UPKEEP
    return sum(map(upkeep.__getitem__, owned_cards(s.farm[p])))


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


def farm_changed(s: FarmariaState, p: int) -> None:
    """FM-END-1(c), latched (FM-AMB-20): enough full fields at the same time."""
    if full_fields(s.farm[p]) >= s.cond.full_fields:
        s.end_triggered = True


def count_vp(s: FarmariaState, p: int) -> int:
    """FM-VP-1: VP recounted from zero."""
    fields = s.farm[p]
    goods = sum(map(_CARD_VP.__getitem__, owned_cards(fields)))
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
