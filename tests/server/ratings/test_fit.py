"""The published rating fit: hand-computed cases, properties, and a planted-strength
simulation in which nominal 95% intervals must cover the truth 93-97% of the time."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy.optimize import brentq

from server.ratings.data import Result, pack
from server.ratings.fit import ELO, PRIOR_SD_STRENGTH, fit
from server.ratings.intervals import (
    ANCHOR_RATING,
    Z95,
    bootstrap,
    ratings_and_sd,
    sandwich,
    seat_advantages,
    table,
)
from server.ratings.simulate import simulate


def _board(results: list[Result]) -> dict[str, float]:
    packed = pack(results)
    result = fit(packed)
    return {line.bot: line.rating for line in table(packed, result, sandwich(packed, result))}


def test_two_bots_six_wins_of_eight_by_hand() -> None:
    """a beats b 6 times in 8, seats balanced (so the seat term is 0 by symmetry). With the
    prior N(0, s^2) on each strength, d = theta_a - theta_b solves 6 - 8 sigma(d) = d / (2 s^2);
    without the prior it would be ln 3 = 190.8 Elo."""
    results = (
        [Result(("a", "b"), (0, 1))] * 3
        + [Result(("a", "b"), (1, 0))]
        + [Result(("b", "a"), (1, 0))] * 3
        + [Result(("b", "a"), (0, 1))]
    )
    s = PRIOR_SD_STRENGTH / ELO
    d = brentq(lambda x: 6 - 8 / (1 + math.exp(-x)) - x / (2 * s * s), 0, 5)
    board = _board(results)
    assert board["a"] - board["b"] == pytest.approx(ELO * d, abs=1e-3)  # Newton's tolerance
    assert 185 < ELO * d < math.log(3) * ELO
    packed = pack(results)
    (seat,) = seat_advantages(fit(packed), sandwich(packed, fit(packed)))
    assert seat.elo == pytest.approx(0.0, abs=1e-6)


def test_a_tie_is_one_stage_of_the_tied_group() -> None:
    """Three bots; in every game a wins and b, c tie behind: b and c must come out equal, and
    each tie stage's likelihood is exp(u_b + u_c) / (e^u_b + e^u_c)^2. a is never beaten, so
    its line is a lower bound (open above)."""
    results = [
        Result(rotation, tuple(0 if x == "a" else 1 for x in rotation), f"blk{i}")
        for i in range(4)
        for rotation in (("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b"))
    ]
    board = _board(results)
    assert board["b"] == pytest.approx(board["c"], abs=1e-6)
    assert board["a"] > board["b"] + 50
    packed = pack(results)
    lines = {x.bot: x for x in table(packed, fit(packed), sandwich(packed, fit(packed)))}
    assert lines["a"].open_high and lines["a"].provisional and lines["a"].low == board["a"]


def test_shuffling_the_results_changes_nothing() -> None:
    planted = simulate(6, 40, seats=3, seed=3)
    rows = []
    t = planted.packed.tables[0]
    names = planted.packed.names
    for g in range(len(t.bots)):
        ranks = [0] * t.k
        bots = [""] * t.k
        for pos in range(t.k):
            bots[t.seats[g, pos]] = names[t.bots[g, pos]]
        order = sorted(range(t.k), key=lambda s: list(t.seats[g]).index(s))
        for s in order:
            ranks[s] = list(t.seats[g]).index(s)
        rows.append(Result(tuple(bots), tuple(ranks), f"b{t.block[g]}"))
    first = _board(rows)
    random.Random(7).shuffle(rows)
    again = _board(rows)
    assert max(abs(first[b] - again[b]) for b in first) < 1e-6


def test_a_bot_that_wins_every_game_ranks_first_and_stays_finite() -> None:
    rng = random.Random(1)
    results = []
    for i in range(30):
        others = rng.sample(["b", "c", "d", "random"], 3)
        order = ["ace", *others]
        rng.shuffle(order)
        ranks = [0 if x == "ace" else 1 + others.index(x) for x in order]
        results.append(Result(tuple(order), tuple(ranks), f"t{i}"))
    packed = pack(results)
    result = fit(packed)
    lines = table(packed, result, sandwich(packed, result))
    assert lines[0].bot == "ace" and math.isfinite(lines[0].rating)
    assert lines[0].rank_low == 1 and lines[0].average_place == 1.0


def test_renaming_two_bots_swaps_their_lines() -> None:
    planted = simulate(5, 30, seats=2, seed=5)
    t = planted.packed.tables[0]
    names = planted.packed.names

    def rows(rename: dict[str, str]) -> list[Result]:
        out = []
        for g in range(len(t.bots)):
            bots, ranks = [""] * 2, [0] * 2
            for pos in range(2):
                bots[t.seats[g, pos]] = rename.get(names[t.bots[g, pos]], names[t.bots[g, pos]])
                ranks[t.seats[g, pos]] = pos
            out.append(Result(tuple(bots), tuple(ranks), f"b{t.block[g]}"))
        return out

    plain = _board(rows({}))
    swapped = _board(rows({"bot001": "bot002", "bot002": "bot001"}))
    assert swapped["bot001"] == pytest.approx(plain["bot002"], abs=1e-6)
    assert swapped["bot002"] == pytest.approx(plain["bot001"], abs=1e-6)
    assert plain["random"] == ANCHOR_RATING


@pytest.mark.parametrize("shared_luck", [0.0, 0.5, 1.0])
def test_intervals_cover_the_planted_truth(shared_luck: float) -> None:
    """Nominal 95% sandwich intervals, clustered on duplicate blocks, over 200 simulated
    leaderboards (8 bots, 60 blocks of 4 rotations): coverage in 93-97%."""
    covered = total = 0
    for seed in range(200):
        planted = simulate(
            8, 60, seats=4, seat_elo=(-30, -40, -50), shared_luck=shared_luck, seed=seed
        )
        result = fit(planted.packed)
        rating, sd = ratings_and_sd(planted.packed, result, sandwich(planted.packed, result))
        truth = ANCHOR_RATING + planted.strength_elo
        hit = np.abs(rating - truth)[1:] <= Z95 * sd[1:]  # bot 0 is the anchor itself
        covered += int(hit.sum())
        total += len(hit)
    rate = covered / total
    print(f"shared luck {shared_luck}: coverage {rate:.3f} over {total} intervals")
    assert 0.93 <= rate <= 0.97


def test_the_cluster_bootstrap_agrees_with_the_sandwich() -> None:
    planted = simulate(6, 80, seats=4, shared_luck=1.0, seed=11)
    result = fit(planted.packed)
    _, sd = ratings_and_sd(planted.packed, result, sandwich(planted.packed, result))
    draws = bootstrap(planted.packed, result, resamples=150, seed=2)
    boot_sd = ELO * np.std(draws[:, 1:6] - draws[:, :1], axis=0)
    assert np.all(np.abs(boot_sd / sd[1:] - 1) < 0.3), (boot_sd, sd[1:])
