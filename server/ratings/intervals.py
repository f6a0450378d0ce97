"""Intervals for the fit, and the published table.

- **Sandwich**: ``B^-1 M B^-1`` with ``B`` the negative Hessian and ``M`` the sum over duplicate
  blocks of (block score)(block score)^T, times ``C / (C - 1)``: games that share a seed are
  correlated, and treating them as independent understates the uncertainty.
- **Cluster bootstrap**: resample whole blocks with replacement and refit (warm start); the
  spread of the refits is the check on the sandwich.
- **The table**: ratings on the Elo scale anchored so the built-in ``random`` sits at
  :data:`ANCHOR_RATING` (without ``random`` the field's mean sits at :data:`MEAN_RATING`), 95%
  intervals, rank ranges, games, average place and a provisional mark.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from server.ratings.data import Packed
from server.ratings.fit import ELO, FitResult, FloatArray, fit, game_scores

ANCHOR_BOT = "random"
ANCHOR_RATING = 1000.0
MEAN_RATING = 1500.0
Z95 = 1.959963984540054
#: A bot is provisional until its 95% interval is narrower than +-PROVISIONAL_HALF_WIDTH Elo
#: and it has played PROVISIONAL_GAMES games.
PROVISIONAL_HALF_WIDTH = 100.0
PROVISIONAL_GAMES = 30


@dataclass(frozen=True, slots=True)
class Line:
    """One bot's published line."""

    bot: str
    rating: float
    low: float
    high: float
    rank_low: int  # best rank the interval allows (1-based)
    rank_high: int  # worst rank the interval allows
    games: int
    average_place: float  # 1-based
    provisional: bool


@dataclass(frozen=True, slots=True)
class SeatAdvantage:
    """Seat ``seat`` at tables of ``k`` against seat 0, in Elo, with a 95% interval."""

    k: int
    seat: int
    elo: float
    low: float
    high: float


def sandwich(packed: Packed, result: FitResult) -> FloatArray:
    """The cluster-robust covariance of the parameters (natural units)."""
    layout, params = result.layout, result.params
    rows, cols, data = [], [], []
    for t in packed.tables:
        g = game_scores(t, params, layout)
        block = np.repeat(t.block, t.k)
        seated = t.seats.ravel() > 0  # seat 0 is the reference, not a parameter
        start = layout.seat_offset[t.k]
        rows += [block, block[seated]]
        cols += [t.bots.ravel(), start + t.seats.ravel()[seated] - 1]
        data += [g.ravel(), g.ravel()[seated]]
    scores = sparse.csr_matrix(
        (np.concatenate(data), (np.concatenate(rows), np.concatenate(cols))),
        shape=(packed.blocks, layout.size),
    )
    meat = (scores.T @ scores).toarray()
    c = packed.blocks
    meat *= c / max(c - 1, 1)
    bread = np.linalg.inv(result.neg_hessian)
    return np.asarray(bread @ meat @ bread)


def bootstrap(packed: Packed, result: FitResult, resamples: int, seed: int = 0) -> FloatArray:
    """``resamples`` refits on block resamples: an array ``[resamples, parameters]``."""
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, result.layout.size))
    for r in range(resamples):
        counts = rng.multinomial(packed.blocks, np.full(packed.blocks, 1.0 / packed.blocks))
        weights = {t.k: counts[t.block].astype(np.float64) for t in packed.tables}
        out[r] = fit(packed, start=result.params, weights=weights, tolerance=1e-7).params
    return out


def anchor_index(packed: Packed) -> int | None:
    """The index of ``random`` (as a bot or a version line ``random@1``), if it played."""
    for i, name in enumerate(packed.names):
        if name == ANCHOR_BOT or name.startswith(ANCHOR_BOT + "@"):
            return i
    return None


def contrasts(packed: Packed) -> FloatArray:
    """Rows map parameters to anchored strengths: ``theta_i - theta_random`` (or minus the
    field's mean without ``random``)."""
    n = len(packed.names)
    size = n + sum(t.k - 1 for t in packed.tables)
    out = np.zeros((n, size))
    out[:, :n] = np.eye(n)
    anchor = anchor_index(packed)
    if anchor is not None:
        out[:, anchor] -= 1.0
    else:
        out[:, :n] -= 1.0 / n
    return out


def ratings_and_sd(
    packed: Packed, result: FitResult, cov: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Anchored Elo ratings and their standard errors from a covariance."""
    c = contrasts(packed)
    base = ANCHOR_RATING if anchor_index(packed) is not None else MEAN_RATING
    rating = base + ELO * (c @ result.params)
    var = np.einsum("ij,jk,ik->i", c, cov, c)
    return rating, ELO * np.sqrt(np.maximum(var, 0.0))


def rank_ranges(low: FloatArray, high: FloatArray) -> list[tuple[int, int]]:
    """1-based (best, worst) rank each line's interval allows among these lines: better than
    every line whose interval lies wholly below it, worse than every one wholly above it."""
    n = len(low)
    return [
        (1 + int(np.sum(np.delete(low, i) > high[i])), n - int(np.sum(np.delete(high, i) < low[i])))
        for i in range(n)
    ]


def table(packed: Packed, result: FitResult, cov: FloatArray) -> list[Line]:
    """The published leaderboard, best first."""
    rating, sd = ratings_and_sd(packed, result, cov)
    low, high = rating - Z95 * sd, rating + Z95 * sd
    lines = []
    ranks = rank_ranges(low, high)
    for i, name in enumerate(packed.names):
        rank_low, rank_high = ranks[i]
        games = int(packed.games[i])
        lines.append(
            Line(
                bot=name,
                rating=float(rating[i]),
                low=float(low[i]),
                high=float(high[i]),
                rank_low=rank_low,
                rank_high=rank_high,
                games=games,
                average_place=float(packed.places[i] / games) if games else 0.0,
                provisional=bool(Z95 * sd[i] > PROVISIONAL_HALF_WIDTH or games < PROVISIONAL_GAMES),
            )
        )
    return sorted(lines, key=lambda line: (-line.rating, line.bot))


def seat_advantages(result: FitResult, cov: FloatArray) -> list[SeatAdvantage]:
    """Each seat against seat 0 per table size, in Elo."""
    out = []
    for k, start in sorted(result.layout.seat_offset.items()):
        for j in range(1, k):
            i = start + j - 1
            value, sd = ELO * result.params[i], ELO * float(np.sqrt(max(cov[i, i], 0.0)))
            out.append(SeatAdvantage(k, j, float(value), value - Z95 * sd, value + Z95 * sd))
    return out
