"""One-sided bounds for bots whose strengths are unbounded on one side.

A bot that was never beaten has no finite maximum-likelihood strength: the fit's value comes
from the prior alone (for example ``2514 [2463, 2565]`` after four games). What the results do
say is a lower bound: strengths at which being unbeaten would have been unlikely are ruled out.
The same holds for a set of bots that only ever lost among themselves
(:mod:`server.ratings.components`): the set as a whole is bounded below only.

The bound inverts an exact test with the other parameters held at their fitted values: the
smallest shift ``x`` of the set's strengths at which ``P(no one outside the set ever finished
ahead of or level with a member | x) >= ALPHA`` (and, for a set that never finished ahead of
anyone outside it, the largest ``x`` at which that had a chance of ``ALPHA``). Games of one
duplicate block share their luck, so a block counts as its least likely game: ``P(every game of
a block) <= min_g P(game g)`` under any dependence, which keeps the bound valid (coverage at
least ``1 - ALPHA``) whatever the block's correlation.

In one game, with the members' weights ``w_A`` and the others' ``w_B`` (finishing order as a
race of exponential clocks), ``P(all of A before all of B) = sum over D in A of (-1)^|D|
W_B / (W_B + W_D)``: a sum over at most ``2^(k-1)`` subsets of the table's seats.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq

from server.ratings.data import IntArray, Packed
from server.ratings.fit import FitResult, FloatArray, _utilities

#: One-sided level: a 95% bound.
ALPHA = 0.05
#: How far (natural units, about 8700 Elo) the search for a bound reaches from the fit.
SEARCH = 50.0


def _games(
    packed: Packed, result: FitResult, members: IntArray
) -> list[tuple[FloatArray, NDArray[np.bool_], IntArray]]:
    """Per table size, the games a member played with someone outside the set: each seat's
    weight (``exp`` of its utility, shifted per game), which seats are members, the block."""
    out = []
    for t in packed.tables:
        inside = np.isin(t.bots, members)
        mixed = inside.any(axis=1) & ~inside.all(axis=1)
        if not mixed.any():
            continue
        u = _utilities(t, result.params, result.layout)[mixed]
        out.append((np.exp(u - u.max(axis=1, keepdims=True)), inside[mixed], t.block[mixed]))
    return out


def _log_chance(
    weights: FloatArray, inside: NDArray[np.bool_], shift: float, upper: bool
) -> FloatArray:
    """log P(every member at the table finished ahead of every other seat (``upper``), or
    behind every other seat), the members' strengths moved by ``shift``."""
    w = np.where(inside, weights * math.exp(shift), weights)
    ahead = inside if upper else ~inside  # the seats that must all come first
    behind_total = np.where(ahead, 0.0, w).sum(axis=1)
    k = w.shape[1]
    total = np.zeros(len(w))
    for mask in range(1 << k):
        chosen = np.array([(mask >> j) & 1 for j in range(k)], dtype=bool)
        valid = ~(chosen[None, :] & ~ahead).any(axis=1)  # the subset lies inside ``ahead``
        sign = -1.0 if bin(mask).count("1") % 2 else 1.0
        term = behind_total / (behind_total + w[:, chosen].sum(axis=1))
        total += np.where(valid, sign * term, 0.0)
    out: FloatArray = np.log(np.clip(total, 1e-300, 1.0))
    return out


def set_bound(packed: Packed, result: FitResult, members: IntArray, upper: bool) -> float:
    """How far (natural units) the set's strengths can be moved from the fit and stay within
    the 95% one-sided bound: the lower bound's shift for a set open above (``upper``), the
    upper bound's for a set open below."""
    games = _games(packed, result, members)
    if not games:
        return -SEARCH if upper else SEARCH
    blocks = np.unique(np.concatenate([b for _, _, b in games]))

    def excess(shift: float) -> float:
        worst = np.zeros(len(blocks))  # log of each block's least likely game
        for weights, inside, block in games:
            at = np.searchsorted(blocks, block)
            np.minimum.at(worst, at, _log_chance(weights, inside, shift, upper))
        return float(worst.sum()) - math.log(ALPHA)

    lo, hi = -SEARCH, SEARCH
    if excess(lo) * excess(hi) > 0:  # no crossing within reach: the far end
        return lo if upper else hi
    return float(brentq(excess, lo, hi, xtol=1e-6))


def one_sided_bound(packed: Packed, result: FitResult, bot: int, upper: bool) -> float:
    """A lone bot's strength bound (natural units, the fit's parametrisation): a lower bound
    for a bot never beaten (``upper=False``), an upper bound for one that never beat anyone."""
    shift = set_bound(packed, result, np.array([bot], np.int64), upper=not upper)
    return float(result.params[bot] + shift)
