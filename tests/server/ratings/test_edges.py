"""The published table at its edges: groups that never met, bots never beaten (or never
winning), few games a bot, many equal bots, the anchor's line and seat advantages.

Coverage tests simulate planted strengths (:mod:`server.ratings.coverage`) and count; the number
of datasets in each is chosen so the tested share is several standard errors from its bound,
and each runs in a few seconds on a busy two-core machine (the full table with 400 datasets a
case is ``bench/coverage.py``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from server.ratings.coverage import CASES, Case, measure
from server.ratings.data import Result, pack
from server.ratings.fit import fit
from server.ratings.intervals import ANCHOR_RATING, Line, sandwich, seat_advantages, table
from server.services.leaderboards import Published, VersionLine


def _case(prefix: str) -> Case:
    return next(c for c in CASES if c.name.startswith(prefix))


def _lines(results: list[Result]) -> dict[str, Line]:
    packed = pack(results)
    result = fit(packed)
    return {x.bot: x for x in table(packed, result, sandwich(packed, result))}


def test_groups_that_never_met_are_never_ordered_across() -> None:
    """60 boards of two groups (6 bots each) that never met: no order is ever claimed across
    them, each group is anchored on its own (random's group at 1000, the other's mean of
    bounded bots at 1500), and both groups' intervals cover."""
    case = _case("two groups")
    tally = measure(case, 60)
    assert tally.boards_across_groups == 0
    assert tally.coverage >= 0.93, tally.coverage
    planted = pack(
        [
            Result(("random", "a"), (0, 1), "x1"),
            Result(("a", "random"), (0, 1), "x1"),
            Result(("b", "c"), (0, 1), "y1"),
            Result(("c", "b"), (0, 1), "y1"),
            Result(("b", "c"), (1, 0), "y2"),
            Result(("c", "b"), (1, 0), "y2"),
        ]
    )
    lines = {x.bot: x for x in table(planted, fit(planted), sandwich(planted, fit(planted)))}
    assert {x.group for x in lines.values()} == {0, 1}
    assert lines["random"].group == lines["a"].group == 0 and lines["random"].anchor
    assert lines["b"].group == lines["c"].group == 1
    assert lines["b"].rating + lines["c"].rating == pytest.approx(2 * 1500.0)
    for x in lines.values():
        assert all(lines[name].group == x.group for name in x.above)
        assert 1 <= x.rank_low <= x.rank_high <= 2  # ranks count within the group


def test_an_unbeaten_bot_is_open_above_and_provisional() -> None:
    """ace wins all its 4-seat games (a prior-driven narrow interval before): its line is a
    one-sided lower bound, open above, provisional, and the bound sits below the strength it
    was planted with in at least 95% of 200 boards (the bound is exact for any luck shared
    within a block: 200 boards put 95% about 3 standard errors above a 0.9 failure)."""
    results = []
    rng = np.random.default_rng(1)
    for i in range(8):
        others = list(rng.choice(["b", "c", "d", "random"], 3, replace=False))
        seats = ["ace", *others]
        rng.shuffle(seats)
        ranks = [0 if s == "ace" else 1 + others.index(s) for s in seats]
        results.append(Result(tuple(seats), tuple(ranks), f"t{i}"))
    lines = _lines(results)
    ace = lines["ace"]
    assert ace.open_high and not ace.open_low and ace.provisional
    assert math.isinf(ace.high) and ace.rating == ace.low and ace.low > lines["b"].rating
    assert ace.rank_low == ace.joint_rank_low == 1
    case = _case("one unbeaten")
    tally = measure(case, 200)
    assert tally.watched_open > 0.3 * tally.watched  # the case does test open lines
    assert tally.watched_covered >= 0.95 * tally.watched, tally.watched_covered
    assert tally.watched_provisional == tally.watched


def test_two_bots_that_only_lost_to_each_other_are_open_above() -> None:
    """a and b beat everyone else and split their own games: no finite strength above the
    field for either (before, the prior made them look certain)."""
    results = []
    for i, x in enumerate(["c", "d", "random"] * 3):  # every block plays both seatings
        for top in ("a", "b"):
            results += [
                Result((top, x), (0, 1), f"{top}{i}"),
                Result((x, top), (1, 0), f"{top}{i}"),
            ]
    results += [Result(("a", "b"), (0, 1), "ab1"), Result(("b", "a"), (0, 1), "ab2")]
    for i, (w, x) in enumerate([("c", "d"), ("d", "random"), ("random", "c"), ("d", "c")]):
        results += [Result((w, x), (0, 1), f"f{i}"), Result((x, w), (1, 0), f"f{i}")]
    lines = _lines(results)
    for bot in ("a", "b"):
        assert lines[bot].open_high and lines[bot].provisional and math.isinf(lines[bot].high)
        assert lines[bot].low > lines["c"].rating
    assert not lines["c"].open_high and not lines["c"].open_low and lines["random"].anchor


def test_a_bot_that_never_won_is_open_below() -> None:
    results = [
        Result(("loser", x), (1, 0), f"k{i}") for i, x in enumerate(["a", "b", "random"] * 3)
    ] + [Result(("a", "b"), (0, 1), "m1"), Result(("b", "random"), (0, 1), "m2")]
    results += [Result(("random", "a"), (0, 1), "m3"), Result(("b", "a"), (0, 1), "m4")]
    loser = _lines(results)["loser"]
    assert loser.open_low and not loser.open_high and loser.provisional
    assert math.isinf(loser.low) and loser.rating == loser.high


def test_coverage_at_18_games_a_bot_is_at_least_93_percent() -> None:
    """10 bots at two seats, 45 duplicate blocks (18 games a bot; 89-92% before the small-sample
    correction). 200 boards give 1,800 intervals: a binomial standard error of about 0.005 at
    95% (0.01 allowing for the intervals of one board sharing the anchor), so 0.93 is about
    two standard errors below a true 95%, and a true 91% would fail."""
    tally = measure(_case("18 games a bot (45"), 200)
    assert tally.intervals >= 1700
    assert tally.coverage >= 0.93, tally.coverage


def test_joint_rank_ranges_of_ten_equal_bots_claim_no_order() -> None:
    """Ten bots of equal strength: the per-line ranges claimed an order on 28-31% of boards;
    the joint ranges may do so on about 5%. 200 boards: at a true 5% the count has a standard
    deviation of 3, so at most 16 (8%) holds with room for noise while 10% would not pass."""
    tally = measure(_case("ten equal bots, 45"), 200)
    assert tally.boards_false_joint <= 16, tally.boards_false_joint
    assert tally.boards_false_order > tally.boards_false_joint  # per line is not simultaneous


def test_the_anchor_line_is_marked_not_a_zero_width_interval() -> None:
    results = [
        Result(("random", x), (1, 0) if i % 3 else (0, 1), f"b{i}")
        for i, x in enumerate(["a", "b"] * 6)
    ] + [Result(("a", "b"), (0, 1), "c1"), Result(("b", "a"), (0, 1), "c2")]
    lines = _lines(results)
    assert lines["random"].anchor and lines["random"].rating == ANCHOR_RATING
    assert [x.bot for x in lines.values() if x.anchor] == ["random"]
    assert not lines["a"].anchor and lines["a"].high > lines["a"].low


def test_a_seat_without_information_is_left_out() -> None:
    """Every block plays both rotations with the same winner: each block's seat score cancels,
    the seat's sandwich variance is zero, and a certain "+0 (+0 .. +0)" would be a lie."""
    results = []
    for i, (w, x) in enumerate(
        [("a", "b"), ("b", "a"), ("a", "b"), ("random", "a"), ("b", "random")]
    ):
        results += [Result((w, x), (0, 1), f"d{i}"), Result((x, w), (1, 0), f"d{i}")]
    packed = pack(results)
    result = fit(packed)
    cov = sandwich(packed, result)
    assert cov[result.layout.seat_offset[2], result.layout.seat_offset[2]] < 1e-20
    assert seat_advantages(result, cov) == []
    mixed = [*results, Result(("a", "b"), (0, 1), "e1"), Result(("b", "a"), (0, 1), "e1")]
    packed = pack(mixed)
    result = fit(packed)
    (seat,) = seat_advantages(result, sandwich(packed, result))
    assert seat.high - seat.low > 1.0


def test_latest_only_keeps_joint_claims_within_the_shown_lines() -> None:
    def line(bot: str, rating: float, above: tuple[str, ...]) -> Line:
        return Line(bot, rating, rating - 50, rating + 50, 1, 3, 40, 1.5, False, above=above)

    board = Published(
        "toy",
        "toy-1",
        (
            VersionLine("a", 2, line("a@2", 1600, ("b@1", "a@1")), (1,)),
            VersionLine("a", 1, line("a@1", 1400, ("b@1",)), (2,)),
            VersionLine("b", 1, line("b@1", 1200, ()), ()),
        ),
        (),
        10,
        5,
    )
    shown = {vl.bot: vl.line for vl in board.latest_only()}
    assert shown["a"].above == ("b@1",)
    assert (shown["a"].joint_rank_low, shown["a"].joint_rank_high) == (1, 1)
    assert (shown["b"].joint_rank_low, shown["b"].joint_rank_high) == (2, 2)


def test_a_line_from_one_block_is_never_zero_width() -> None:
    """One duplicate block (a win each way, random against alpha): the sandwich has nothing
    to estimate a variance from (it is zero), so alpha's line takes the model-based one
    instead of reading ``1000 [1000, 1000]``; only the anchor's line is fixed."""
    lines = _lines(
        [
            Result(("random", "alpha"), (0, 1), "b"),
            Result(("alpha", "random"), (0, 1), "b"),
        ]
    )
    alpha, anchor = lines["alpha"], lines["random"]
    assert anchor.anchor and anchor.low == anchor.high == ANCHOR_RATING
    assert alpha.high - alpha.low > 200 and alpha.low < alpha.rating < alpha.high
    assert alpha.provisional
