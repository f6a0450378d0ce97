"""Is version B better than version A? A sequential test on paired duplicate blocks.

Each observation is one pair of block results: the same seeds, opponents and seats played once
with A and once with B. Its score is ``x = (1 + s_B - s_A) / 2`` in [0, 1], ``s`` a version's
average normalized place over the block (1 = won every match). Normalized Elo (fishtest's
"nElo") measures the effect in units of the observations' own spread, so luck and draws do not
change how many blocks an effect needs: ``nElo = (mu - 1/2) / sigma * 800 / ln 10``.

The test is the generalized SPRT for a normal model whose normalized mean
``t = (mu - 1/2) / sigma`` is ``t_j = elo_j * ln 10 / 800`` under hypothesis ``j``: the LLR is the
difference of the two constrained maximum log-likelihoods (``sigma`` fitted under each
constraint), which near the hypotheses is ``N/2 * ln[(1 + (t - t0)^2) / (1 + (t - t1)^2)]`` (the
form fishtest quotes) and, unlike that form, keeps growing with ``N`` for a large effect. It
stops for H1 (B better by at least elo1) above ``ln((1 - beta) / alpha)`` and for H0 (no better
than elo0) below ``ln(beta / (1 - alpha))``. Evaluate it at block boundaries only.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

NELO_PER_T = 800.0 / math.log(10.0)
MIN_SD = 1e-3  # identical observations would make t infinite


class Verdict(enum.Enum):
    """Where a test stands."""

    CONTINUE = "continue"
    H1 = "h1"  # B is better (at least elo1)
    H0 = "h0"  # B is not better (at most elo0)


@dataclass(frozen=True, slots=True)
class Bounds:
    """The user's hypotheses (normalized Elo) and error rates."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo1 > self.elo0:
            raise ValueError("elo1 must be above elo0")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError("alpha and beta must be in (0, 0.5)")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1 - self.beta) / self.alpha)

    @property
    def t0(self) -> float:
        return self.elo0 / NELO_PER_T

    @property
    def t1(self) -> float:
        return self.elo1 / NELO_PER_T

    def expected_blocks(self) -> tuple[float, float, float]:
        """Expected paired blocks until a verdict (Wald's approximations): when the truth is at
        elo0, at elo1, and halfway (the longest case)."""
        delta = self.t1 - self.t0
        drift = 0.5 * math.log(1 + delta * delta)  # mean LLR step at either hypothesis
        at_h1 = ((1 - self.beta) * self.upper + self.beta * self.lower) / drift
        at_h0 = ((1 - self.alpha) * -self.lower + self.alpha * -self.upper) / drift
        midway = -self.lower * self.upper / (delta * delta)
        return at_h0, at_h1, midway


@dataclass(frozen=True, slots=True)
class State:
    """The test after ``blocks`` paired observations."""

    blocks: int
    llr: float
    nelo: float  # the estimate, normalized Elo
    verdict: Verdict


def _constrained(t: float, m1: float, m2: float) -> float:
    """Max over sigma of the mean normal log-likelihood (constants dropped) when the mean is
    ``1/2 + t * sigma``; ``m1``, ``m2`` are the first two moments of ``x - 1/2``."""
    sigma = (-t * m1 + math.sqrt(t * t * m1 * m1 + 4 * m2)) / 2
    return -math.log(sigma) - m2 / (2 * sigma * sigma) + t * m1 / sigma - t * t / 2


def llr(bounds: Bounds, count: int, mean: float, sd: float) -> float:
    """The log-likelihood ratio from the observations' count, mean and standard deviation."""
    if count < 2:
        return 0.0
    m1 = mean - 0.5
    m2 = max(sd, MIN_SD) ** 2 + m1 * m1
    return count * (_constrained(bounds.t1, m1, m2) - _constrained(bounds.t0, m1, m2))


def evaluate(bounds: Bounds, scores: Sequence[float]) -> State:
    """Where the test stands after ``scores`` (paired-block scores in [0, 1])."""
    n = len(scores)
    if n < 2:
        return State(n, 0.0, 0.0, Verdict.CONTINUE)
    mean = math.fsum(scores) / n
    sd = math.sqrt(max(math.fsum((x - mean) ** 2 for x in scores) / n, 0.0))
    value = llr(bounds, n, mean, sd)
    return State(n, value, (mean - 0.5) / max(sd, MIN_SD) * NELO_PER_T, decide(bounds, value))


def decide(bounds: Bounds, value: float) -> Verdict:
    """The verdict for an LLR."""
    if value >= bounds.upper:
        return Verdict.H1
    if value <= bounds.lower:
        return Verdict.H0
    return Verdict.CONTINUE


def block_score(places: Sequence[int], players: int) -> float:
    """A version's score over one block: the mean of ``(players - 1 - rank) / (players - 1)``
    over its matches (``places`` are 0-based ranks)."""
    return sum((players - 1 - r) / (players - 1) for r in places) / len(places)


def paired(score_a: float, score_b: float) -> float:
    """One observation from the two versions' scores on the same block."""
    return (1.0 + score_b - score_a) / 2.0
