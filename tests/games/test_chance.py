"""Named chance streams (games/chance.py)."""

from __future__ import annotations

import random

from games import Chance, derive_seed


def test_streams_depend_on_seed_name_and_index_only() -> None:
    a, b = Chance(7), Chance(7)
    # Drawing from one stream does not move another: order of use is irrelevant.
    a.stream("deck").random()
    assert a.stream("bag", 2).random() == b.stream("bag", 2).random()
    assert Chance(7).stream("bag", 1).random() != Chance(7).stream("bag", 2).random()
    assert Chance(7).stream("bag").random() != Chance(8).stream("bag").random()
    assert derive_seed(1, "x", 0) == derive_seed(1, "x", 0)


def test_clone_continues_each_stream_from_the_same_point() -> None:
    a = Chance(3)
    a.stream("dice").random()
    b = a.clone()
    assert [a.stream("dice").random() for _ in range(5)] == [
        b.stream("dice").random() for _ in range(5)
    ]


def test_reseeded_source_shares_nothing_with_the_original() -> None:
    a = Chance(3)
    b = a.reseeded(random.Random(1))
    assert b.seed != a.seed
    assert a.stream("deck").random() != b.stream("deck").random()


def test_once_gives_the_stream_generator_without_keeping_it() -> None:
    a = Chance(5)
    assert a.once("bag", 3).random() == Chance(5).stream("bag", 3).random()
    assert a.once("bag", 3).random() == a.once("bag", 3).random()
    assert not a.clone()._streams
