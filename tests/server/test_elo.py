"""Elo maths: known values and properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server import elo

ratings = st.floats(min_value=100, max_value=3000, allow_nan=False)


def test_two_equal_players() -> None:
    assert elo.deltas([1500, 1500], [0, 1]) == pytest.approx([16, -16])
    assert elo.deltas([1500, 1500], [0, 0]) == pytest.approx([0, 0])


def test_expected_score_400_points() -> None:
    assert elo.expected_score(1900, 1500) == pytest.approx(10 / 11)


def test_k_scales_with_opponents() -> None:
    # Beating three equal players moves a rating by K * 1.5 / 3 * 3 / ... = K/(n-1) * sum.
    d = elo.deltas([1500] * 4, [0, 1, 2, 3])
    assert d == pytest.approx([16, 16 / 3, -16 / 3, -16])


def test_outcome_and_table() -> None:
    assert [elo.outcome(i, [0, 0, 2]) for i in range(3)] == ["draw", "draw", "loss"]
    table = elo.apply_match({}, ["a", "b", "c"], [0, 1, 1])
    assert (table["a"].wins, table["b"].losses, table["c"].games) == (1, 1, 1)
    assert sum(r.rating for r in table.values()) == pytest.approx(4500)


def test_same_bot_in_two_seats_plays_no_game_against_itself() -> None:
    table = elo.apply_match({}, ["a", "a"], [0, 1])
    assert table["a"].rating == pytest.approx(1500)
    assert table["a"].games == 2


@given(st.lists(ratings, min_size=2, max_size=6), st.data())
def test_updates_are_zero_sum(rs: list[float], data: st.DataObject) -> None:
    ranks = data.draw(st.lists(st.integers(0, len(rs) - 1), min_size=len(rs), max_size=len(rs)))
    assert sum(elo.deltas(rs, ranks)) == pytest.approx(0, abs=1e-9)


@given(st.lists(ratings, min_size=2, max_size=6), st.data())
def test_relabelling_seats_permutes_deltas(rs: list[float], data: st.DataObject) -> None:
    ranks = data.draw(st.lists(st.integers(0, 5), min_size=len(rs), max_size=len(rs)))
    perm = data.draw(st.permutations(range(len(rs))))
    d = elo.deltas(rs, ranks)
    dp = elo.deltas([rs[i] for i in perm], [ranks[i] for i in perm])
    assert dp == pytest.approx([d[i] for i in perm])


@given(ratings, ratings)
def test_winning_never_lowers_a_rating(a: float, b: float) -> None:
    win, lose = elo.deltas([a, b], [0, 1])
    assert win >= 0 >= lose
    assert elo.deltas([a, b], [0, 0])[0] == pytest.approx(-elo.deltas([a, b], [0, 0])[1])


@given(
    st.lists(
        st.tuples(
            st.permutations(["a", "b", "c"]), st.lists(st.integers(0, 2), min_size=3, max_size=3)
        )
    )
)
def test_rebuild_is_deterministic_and_sums_to_games(
    results: list[tuple[list[str], list[int]]],
) -> None:
    first = elo.rebuild(results)
    assert first == elo.rebuild(results)
    assert sum(r.games for r in first.values()) == 3 * len(results)
    assert sum(r.rating for r in first.values()) == pytest.approx(1500 * len(first))
