"""Simultaneous (joint) rank ranges within one group of the table.

Per-line rank ranges compare each line's own 95% interval with the others': with ten equal
bots, 28-31% of boards then claim some order that is false, because 45 comparisons are each
made at 5%. Here an order ``i above j`` is claimed only when the difference of their ratings
exceeds ``q`` times its standard error, ``q`` the 95% quantile of the largest standardized
difference over every pair at once (a max-t bound, using the covariance of the differences,
not overlapping marginal intervals). ``q`` comes from :data:`DRAWS` seeded normal draws, and is
then moved to the t distribution with the pair's degrees of freedom; beyond
:data:`MAX_SIMULATED` lines a Bonferroni bound over the pairs replaces the draws.

Lines with an open side (never beaten, or never beat anyone) have no standard error: they are
ordered only when their one-sided bound clears the other line's interval.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from server.ratings.fit import FloatArray

LEVEL = 0.95
DRAWS = 4000
MAX_SIMULATED = 150


@dataclass(frozen=True)
class Joint:
    """Per line: the best and worst rank (1-based) and the lines it is claimed better than."""

    rank_low: list[int]
    rank_high: list[int]
    above: list[list[int]]


def max_t_quantile(cov: FloatArray, closed: np.ndarray, seed: int = 0) -> float:
    """The :data:`LEVEL` quantile of ``max |Z_i - Z_j| / sd_ij`` over pairs of closed lines,
    ``Z ~ N(0, cov)`` (a normal quantile)."""
    idx = np.flatnonzero(closed)
    m = len(idx)
    pairs = m * (m - 1) // 2
    if pairs == 0:
        return float(stats.norm.ppf(0.5 + LEVEL / 2))
    if m > MAX_SIMULATED:
        return float(stats.norm.ppf(1 - (1 - LEVEL) / (2 * pairs)))
    sub = cov[np.ix_(idx, idx)]
    w, v = np.linalg.eigh(sub)
    root = v * np.sqrt(np.maximum(w, 0.0))
    z = np.random.default_rng(seed).standard_normal((DRAWS, m)) @ root.T
    a, b = np.triu_indices(m, 1)
    var = np.diag(sub)[a] + np.diag(sub)[b] - 2 * sub[a, b]
    sd = np.sqrt(np.maximum(var, 1e-300))
    biggest = np.zeros(DRAWS)
    for start in range(0, len(a), 2000):  # bounded memory: DRAWS x 2000 at a time
        s = slice(start, start + 2000)
        t = np.abs(z[:, a[s]] - z[:, b[s]]) / sd[s]
        biggest = np.maximum(biggest, t.max(axis=1))
    return float(np.quantile(biggest, LEVEL))


def joint(
    rating: FloatArray,
    cov: FloatArray,
    low: FloatArray,
    high: FloatArray,
    df: FloatArray,
    q: float | None = None,
) -> Joint:
    """Joint rank ranges of one group's lines (Elo ratings, their covariance, marginal bounds
    (infinite on an open side), degrees of freedom per line); ``q``, when given, is
    :func:`max_t_quantile` of this covariance and these closed lines, computed before."""
    n = len(rating)
    closed = np.isfinite(low) & np.isfinite(high)
    if q is None:
        q = max_t_quantile(cov, closed)
    tail = stats.norm.sf(q)  # per-pair one-sided level the joint bound amounts to
    var = np.diag(cov)[:, None] + np.diag(cov)[None, :] - 2 * cov
    both = closed[:, None] & closed[None, :]
    crit = stats.t.isf(tail, np.minimum.outer(df, df))
    gap = rating[:, None] - rating[None, :]
    spread = np.sqrt(np.maximum(var, 0.0))
    with np.errstate(invalid="ignore"):  # inf * 0 where a pair has no measured difference
        measured = both & (var > 0) & (gap > np.where(var > 0, crit * spread, np.inf))
    bounded = ~both & (low[:, None] > high[None, :])
    claim = (measured | bounded) & ~np.eye(n, dtype=bool)
    above = [np.flatnonzero(row).tolist() for row in claim]
    rank_low = (1 + claim.sum(axis=0)).tolist()
    rank_high = (n - claim.sum(axis=1)).tolist()
    return Joint(rank_low, rank_high, above)
