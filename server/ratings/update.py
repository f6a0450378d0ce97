"""Fast updates between full fits: a cost that grows with the new results, not with the log.

A full fit of a million results costs seconds of CPU (Newton over every game, then the
clustered sandwich over every block). Between two full fits a leaderboard is instead updated
from a :class:`Base` (the last full fit: its solution ``theta0``, its negative Hessian ``H0``,
the published :class:`~server.ratings.intervals.Frame`) and the results added since (the
*tail*). The log-likelihood of the results the base holds is replaced by its second-order
expansion at ``theta0``,

    l_base(theta) ~ l_base(theta0) - 1/2 (theta - theta0)' H0 (theta - theta0)

(its gradient at ``theta0`` is zero to the full fit's tolerance; ``H0`` includes the prior,
which is quadratic, so the prior stays exact), and Newton's method maximizes that plus the
tail's exact log-likelihood. A step costs one pass over the tail and a solve in the
``bots + seats`` parameters: O(tail + bots^2) work (plus the O(bots^3) solve), whatever the
size of the log. What the expansion leaves out is the third-order term of ``l_base``: with
``d`` the change of the solution since the base, the error of the updated point estimate is
of order ``|d|^2`` (relative to the information), a few millionths of an Elo point when the
tail is a thousandth of the log (``tests/server/ratings/test_update.py`` measures it).

The intervals are the base's: each line's interval moves with its rating (same half-width),
its degrees of freedom, covariance and joint critical values stay until the next full fit
(the variance of a million results changes by a fraction of a percent over a few thousand
more). Lines with an open side (a profile bound) and the groups stay as the base had them,
so a tail that could change them (a new bot or table size, a result between two groups, or
one involving an open line) is refused: the caller then runs a full fit.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from server.ratings.data import Packed, Tables
from server.ratings.fit import ELO, FitResult, FloatArray, evaluate
from server.ratings.intervals import Frame

#: Newton's stopping rule on the updated objective (as for full fits: see fitter.TOLERANCE).
TOLERANCE = 1e-13
MAX_ITERATIONS = 20


@dataclass(frozen=True)
class Base:
    """A full fit that fast updates start from."""

    result: FitResult  # theta0, its layout and H0
    rows: dict[int, int]  # results of each table size the full fit held
    cov: FloatArray  # the parameters' (sandwich) covariance, for the seat advantages
    frame: Frame  # the published table's arrays


def base_of(packed: Packed, result: FitResult, cov: FloatArray, frame: Frame) -> Base:
    """The base a full fit of ``packed`` leaves."""
    return Base(result, {t.k: len(t.block) for t in packed.tables}, cov, frame)


def tail(base: Base, packed: Packed) -> Packed | None:
    """The results of ``packed`` (a later state of the base's design) that the base does not
    hold, laid out as the base (every table size it has, in order); None when they need a full
    fit (see the module's docstring)."""
    if packed.names != base.frame.names or [t.k for t in packed.tables] != sorted(base.rows):
        return None
    f = base.frame
    moving = ~(f.open_high | f.open_low)
    tables = []
    for t in packed.tables:
        start = base.rows[t.k]
        if len(t.block) < start:
            return None
        new = Tables(t.k, t.bots[start:], t.seats[start:], t.stage[start:], t.block[start:])
        groups = f.groups.of[new.bots]
        if (groups != groups[:, :1]).any() or not moving[new.bots].all():
            return None
        tables.append(new)
    return Packed(packed.names, tuple(tables), packed.blocks, packed.games, packed.places)


def solve(base: Base, new: Packed, start: FloatArray | None = None) -> FitResult:
    """Maximize the base's quadratic expansion plus the exact log-likelihood of ``new`` (the
    tail, from :func:`tail`) by damped Newton, from ``start`` (default the base's solution).
    The returned negative Hessian is the updated objective's."""
    layout = base.result.layout
    theta0, h0 = base.result.params, base.result.neg_hessian
    prior = layout.prior_precision()

    def objective(theta: FloatArray) -> tuple[float, FloatArray, FloatArray]:
        e = evaluate(new, theta, layout)
        d = theta - theta0
        # ``evaluate`` adds the prior, which H0 already holds: take it out again
        ll = e.loglik + 0.5 * float(prior @ (theta * theta)) - 0.5 * float(d @ h0 @ d)
        grad = e.grad + prior * theta - h0 @ d
        neg = e.neg_hessian - np.diag(prior) + h0
        return ll, grad, neg

    params = (theta0 if start is None else start).astype(np.float64).copy()
    ll, grad, neg = objective(params)
    for iteration in range(1, MAX_ITERATIONS + 1):
        step = np.linalg.solve(neg, grad)
        if float(grad @ step) < TOLERANCE:
            return FitResult(params, layout, neg, ll, iteration)
        scale = 1.0
        while True:
            trial = params + scale * step
            candidate = objective(trial)
            if candidate[0] >= ll - 1e-12 * (1.0 + abs(ll)) or scale < 1e-4:
                break
            scale /= 2
        params, (ll, grad, neg) = trial, candidate
    return FitResult(params, layout, neg, ll, MAX_ITERATIONS)


def moved(base: Base, result: FitResult, packed: Packed) -> Frame:
    """The base's frame with each closed line moved to the updated estimate (its interval
    moves with it) and every bot's games and places from ``packed``."""
    f = base.frame
    delta = ELO * (f.contrasts @ (result.params - base.result.params))
    delta[f.open_high | f.open_low] = 0.0  # a profile bound stays the base's
    return dataclasses.replace(
        f,
        rating=f.rating + delta,
        low=f.low + delta,
        high=f.high + delta,
        games=np.array(packed.games, np.int64),
        places=np.array(packed.places, np.float64),
    )
