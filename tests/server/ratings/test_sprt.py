"""The head-to-head SPRT: its error rates by simulation, and its expected length."""

from __future__ import annotations

import numpy as np
import pytest

from server.ratings.sprt import (
    NELO_PER_T,
    Bounds,
    Verdict,
    block_score,
    decide,
    evaluate,
    llr,
    paired,
)


def _run(bounds: Bounds, true_nelo: float, rng: np.random.Generator, cap: int) -> Verdict:
    """Paired-block scores with a planted normalized effect, tested after every block."""
    sd = 0.12
    mean = 0.5 + true_nelo / NELO_PER_T * sd
    scores = np.clip(rng.normal(mean, sd, cap), 0.0, 1.0)
    total, squares = np.cumsum(scores), np.cumsum(scores * scores)
    for n in range(10, cap + 1, 5):  # evaluated at batch boundaries
        m = total[n - 1] / n
        verdict = decide(bounds, llr(bounds, n, m, float(np.sqrt(squares[n - 1] / n - m * m))))
        if verdict is not Verdict.CONTINUE:
            return verdict
    return Verdict.CONTINUE


@pytest.mark.parametrize(("truth", "want"), [(0.0, Verdict.H0), (40.0, Verdict.H1)])
def test_error_rates_by_simulation(truth: float, want: Verdict) -> None:
    """At elo0 the test passes (H1) about alpha of the time at most; at elo1 at least 1-beta."""
    bounds = Bounds(0.0, 40.0, alpha=0.05, beta=0.05)
    rng = np.random.default_rng(1)
    verdicts = [_run(bounds, truth, rng, cap=4000) for _ in range(300)]
    passed = sum(v is Verdict.H1 for v in verdicts) / len(verdicts)
    print(f"true nElo {truth}: H1 in {passed:.3f} of runs")
    if want is Verdict.H0:
        assert passed <= 0.08
    else:
        assert passed >= 0.92


def test_expected_length_matches_the_known_constants() -> None:
    """fishtest: about 5.3/delta^2 at a bound and 8.7/delta^2 halfway, for alpha = beta = 5%."""
    bounds = Bounds(0.0, 20.0)
    delta = 20.0 / NELO_PER_T
    at_h0, at_h1, midway = bounds.expected_blocks()
    assert at_h0 == pytest.approx(5.3 / delta**2, rel=0.02)
    assert at_h1 == pytest.approx(5.3 / delta**2, rel=0.02)
    assert midway == pytest.approx(8.67 / delta**2, rel=0.01)


def test_block_scores_and_pairs() -> None:
    assert block_score([0, 0, 1, 3], 4) == pytest.approx((1 + 1 + 2 / 3 + 0) / 4)
    assert paired(0.25, 0.75) == 0.75
    assert evaluate(Bounds(0, 10), [0.5]).verdict is Verdict.CONTINUE
    strong = evaluate(Bounds(0, 40), [0.6, 0.7, 0.65, 0.7, 0.6] * 20)
    assert strong.verdict is Verdict.H1 and strong.nelo > 10
    with pytest.raises(ValueError):
        Bounds(10, 0)
