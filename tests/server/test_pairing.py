"""The ladder's pick, sorted by rating, chooses the table the exhaustive rule over every pair
chooses: same eligibility (no two bots of one owner, no owner past its open blocks, no table
being played), the most uncertain pair, the same seeded tie-break."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from datetime import datetime
from itertools import combinations

import pytest

from games import derive_seed
from server import elo
from server.services.pairing import nearest_pair
from server.storage import BotRecord

OWNERS = ("", "ann", "bo", "cy", "di")


def _bot(name: str, owner: str) -> BotRecord:
    return BotRecord(name, "uploaded", ("toy",), "", 1, 1, False, "", datetime(2026, 1, 1), owner)


def exhaustive(
    bots: list[BotRecord],
    ratings: Mapping[str, float],
    draw: Callable[[str], int],
    busy: Mapping[str, int],
    playing: set[frozenset[str]],
    limit: int,
) -> tuple[BotRecord, BotRecord] | None:
    """The rule as stated, by looking at every pair (O(n^2))."""
    rating = {b.name: ratings.get(b.name, elo.INITIAL_RATING) for b in bots}
    given = {b.name: k for k, b in enumerate(bots)}
    place = {
        b.name: k
        for k, b in enumerate(
            sorted(bots, key=lambda b: (rating[b.name], draw(b.name), given[b.name]))
        )
    }
    best = None
    for table in combinations(bots, 2):
        owners = [b.owner for b in table if b.owner]
        if len(owners) != len(set(owners)) or any(busy.get(o, 0) >= limit for o in owners):
            continue
        if frozenset(b.name for b in table) in playing:
            continue
        lo, hi = sorted(table, key=lambda b: place[b.name])
        key = (rating[hi.name] - rating[lo.name], draw(lo.name), place[lo.name], place[hi.name])
        if best is None or key < best[0]:
            best = (key, table)
    return None if best is None else (best[1][0], best[1][1])


def _case(rng: random.Random, tied: bool) -> tuple[
    list[BotRecord], dict[str, float], Callable[[str], int], dict[str, int], set[frozenset[str]]
]:  # fmt: skip
    n = rng.randint(0, 24)
    bots = [_bot(f"b{i:02d}", rng.choice(OWNERS)) for i in range(n)]
    rated = [b for b in bots if rng.random() < 0.8]  # the others have no rating yet
    if tied:  # few distinct ratings: many pairs share a gap
        ratings = {b.name: 1500.0 + 25 * rng.randint(-3, 3) for b in rated}
    else:
        ratings = {b.name: rng.uniform(1000, 2000) for b in rated}
    seed = rng.getrandbits(63)

    def draw(name: str) -> int:
        return derive_seed(seed, f"ladder:{name}", 7)

    busy = {o: rng.randint(0, 3) for o in OWNERS[1:] if rng.random() < 0.4}
    share = rng.choice((0.05, 0.3))  # of the tables, being played
    names = [b.name for b in bots]
    playing = {frozenset(p) for p in combinations(names, 2) if rng.random() < share}
    return bots, ratings, draw, busy, playing


@pytest.mark.parametrize("tied", [False, True])
def test_the_sorted_pick_matches_the_exhaustive_rule(tied: bool) -> None:
    rng = random.Random(20 + tied)
    picked = 0
    for _ in range(3000):
        bots, ratings, draw, busy, playing = _case(rng, tied)
        fast = nearest_pair(bots, ratings, draw, busy, playing, 2)
        assert fast == exhaustive(bots, ratings, draw, busy, playing, 2)
        picked += fast is not None
    assert picked > 1000  # most cases have an eligible pair


def old_rule(
    bots: list[BotRecord],
    ratings: Mapping[str, float],
    busy: Mapping[str, int],
    playing: set[frozenset[str]],
    seed: int,
) -> tuple[BotRecord, ...] | None:
    """The ladder's pick before it sorted by rating, as it was written (every pair, expected
    score nearest 1/2, ties by a seeded stream of draws)."""
    rng = random.Random(seed)
    best: tuple[float, float, tuple[BotRecord, ...]] | None = None
    for table in combinations(bots, 2):
        owners = [b.owner for b in table if b.owner]
        if len(owners) != len(set(owners)) or any(busy.get(o, 0) >= 2 for o in owners):
            continue
        if frozenset(b.name for b in table) in playing:
            continue
        a, b = (ratings.get(x.name, elo.INITIAL_RATING) for x in table)
        uncertainty = abs(elo.expected_score(a, b) - 0.5)
        key = (uncertainty, rng.random(), table)
        if best is None or key[:2] < best[:2]:
            best = key
    return None if best is None else best[2]


def test_without_ties_the_pick_is_the_old_rules_table() -> None:
    """Where no two eligible tables are equally uncertain the tie-break plays no part: the
    sorted pick and the old exhaustive rule choose the same table."""
    rng = random.Random(5)
    picked = 0
    for _ in range(3000):
        bots, _, draw, busy, playing = _case(rng, False)
        ratings = {b.name: rng.uniform(1000, 2000) for b in bots}  # every bot rated: no ties
        fast = nearest_pair(bots, ratings, draw, busy, playing, 2)
        assert fast == old_rule(bots, ratings, busy, playing, rng.getrandbits(63))
        picked += fast is not None
    assert picked > 1000


def test_owners_busy_owners_and_tables_in_play_are_skipped() -> None:
    bots = [_bot("a1", "ann"), _bot("a2", "ann"), _bot("b1", "bo"), _bot("c1", "cy")]
    ratings = {"a1": 1500.0, "a2": 1500.0, "b1": 1510.0, "c1": 1700.0}

    def draw(name: str) -> int:
        return len(name)

    # a1 and a2 are nearest but share an owner; a2-b1 (equal gap to a1-b1) by the draw's tie
    # order: a1 sorts before a2 (same rating, same draw, by name).
    assert nearest_pair(bots, ratings, draw, {}, set(), 2) == (bots[0], bots[2])
    assert nearest_pair(bots, ratings, draw, {}, {frozenset(("a1", "b1"))}, 2) == (
        bots[1],
        bots[2],
    )
    assert nearest_pair(bots, ratings, draw, {"ann": 2}, set(), 2) == (bots[2], bots[3])
    assert nearest_pair(bots, ratings, draw, {"ann": 2, "cy": 2}, set(), 2) is None


def test_ten_thousand_bots_of_one_rating_and_few_owners_are_paired() -> None:
    bots = [_bot(f"b{i:05d}", f"u{i % 3}") for i in range(10_000)]
    picked = nearest_pair(bots, {}, lambda name: derive_seed(1, name), {"u0": 2}, set(), 2)
    assert picked is not None
    assert {b.owner for b in picked} == {"u1", "u2"}
