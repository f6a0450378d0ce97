"""One-sided bounds for a bot whose strength is unbounded on one side.

A bot that was never beaten has no finite maximum-likelihood strength: the fit's value comes
from the prior alone (for example ``2514 [2463, 2565]`` after four games). What the results do
say is a lower bound: strengths at which being unbeaten would have been unlikely are ruled out.

The bound inverts an exact test with the other parameters held at their fitted values: the
lowest strength ``x`` at which ``P(unbeaten | x) >= ALPHA`` (and the highest ``x`` at which a
bot that never beat anyone had ``P(always last alone | x) >= ALPHA``). Games of one duplicate
block share their luck, so a block counts as its least likely game: ``P(every game of a block)
<= min_g P(game g)`` under any dependence, which keeps the bound valid (coverage at least
``1 - ALPHA``) whatever the block's correlation.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.optimize import brentq

from server.ratings.data import Packed
from server.ratings.fit import FitResult, FloatArray, _utilities

#: One-sided level: a 95% bound.
ALPHA = 0.05
#: How far (natural units, about 8700 Elo) the search for a bound reaches from the fit.
SEARCH = 50.0


def _relative(packed: Packed, result: FitResult, bot: int) -> list[tuple[FloatArray, FloatArray]]:
    """Per table size: the other seats' utilities minus the bot's (``x`` = the fit's value),
    one row per game the bot played, and each game's block."""
    out = []
    for t in packed.tables:
        rows, pos = np.nonzero(t.bots == bot)
        if len(rows) == 0:
            continue
        u = _utilities(t, result.params, result.layout)[rows]
        mine = u[np.arange(len(rows)), pos]
        others = np.ones_like(u, dtype=bool)
        others[np.arange(len(rows)), pos] = False
        rel = (u - mine[:, None])[others].reshape(len(rows), t.k - 1)
        out.append((rel, t.block[rows].astype(np.float64)))
    return out


def _log_p_first(rel: FloatArray, shift: float) -> FloatArray:
    """log P(the bot finishes first alone) when its strength moves by ``shift``."""
    out: FloatArray = -np.log1p(np.exp(rel - shift).sum(axis=1))
    return out


def _log_p_last(rel: FloatArray, shift: float) -> FloatArray:
    """log P(the bot finishes last alone): by inclusion-exclusion over the other seats,
    ``sum_A (-1)^|A| / (1 + sum_{j in A} e_j)`` with ``e_j`` their weights over the bot's."""
    e = np.exp(rel - shift)
    m = e.shape[1]
    total = np.zeros(len(e))
    for size in range(m + 1):
        for subset in itertools.combinations(range(m), size):
            total += (-1) ** size / (1.0 + e[:, list(subset)].sum(axis=1))
    out: FloatArray = np.log(np.clip(total, 1e-300, 1.0))
    return out


def one_sided_bound(packed: Packed, result: FitResult, bot: int, upper: bool) -> float:
    """The bot's strength bound (natural units, the fit's parametrisation): a lower bound for
    a bot never beaten (``upper=False``), an upper bound for one that never beat anyone."""
    games = _relative(packed, result, bot)
    log_p = _log_p_last if upper else _log_p_first
    blocks = np.unique(np.concatenate([b for _, b in games]))

    def log_chance(shift: float) -> float:
        worst = np.zeros(len(blocks))  # log min over each block's games
        for rel, block in games:
            at = np.searchsorted(blocks, block)
            np.minimum.at(worst, at, log_p(rel, shift))
        return float(worst.sum()) - math.log(ALPHA)

    lo, hi = -SEARCH, SEARCH
    if log_chance(lo) * log_chance(hi) > 0:  # no crossing within reach: the far end
        return float(result.params[bot] + (hi if upper else lo))
    return float(result.params[bot] + brentq(log_chance, lo, hi, xtol=1e-6))
