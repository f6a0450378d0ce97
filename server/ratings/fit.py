"""Plackett–Luce maximum likelihood with ties and seat advantages, by Newton's method.

The model: at a table of ``k`` seats, seat ``j`` held by bot ``b`` has utility
``u = theta[b] + delta_k[j]`` (``delta_k[0] = 0``). The finishing order is built from the top:
the best remaining group is chosen with probability ``prod_{i in G} exp(u_i) / S^{|G|}``,
``S`` the sum of ``exp(u)`` over the seats not yet placed. A tied group is thus one stage in
which each of its members is "chosen" from the same remaining set (Breslow's treatment of ties,
as in the Cox model); for two seats and no ties this is exactly Bradley–Terry, the model behind
Elo. A weak normal prior on every parameter keeps unbeaten and winless bots finite.

Everything is vectorised over the games of one table size: a Newton step costs a few passes
over ``games x seats`` arrays and one ``bincount`` for the Hessian, never a Python loop per game.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from server.ratings.data import Packed, Tables

FloatArray = NDArray[np.float64]

#: Natural-log strength units to Elo points: a difference of 400 is a 10:1 winning odds.
ELO = 400.0 / math.log(10.0)
#: Prior standard deviations (Elo): weak, so that only bots with almost no games feel them.
PRIOR_SD_STRENGTH = 600.0
PRIOR_SD_SEAT = 300.0


@dataclass(frozen=True)
class Layout:
    """Where each parameter lives in the vector: strengths first, then seats per table size."""

    bots: int
    seat_offset: dict[int, int]  # table size -> index of delta_k[1]
    size: int

    @classmethod
    def of(cls, packed: Packed) -> Layout:
        offset, seats = len(packed.names), {}
        for t in packed.tables:
            seats[t.k] = offset
            offset += t.k - 1
        return cls(len(packed.names), seats, offset)

    def prior_precision(self) -> FloatArray:
        """The diagonal of the prior's precision (natural units)."""
        out = np.full(self.size, (ELO / PRIOR_SD_SEAT) ** 2)
        out[: self.bots] = (ELO / PRIOR_SD_STRENGTH) ** 2
        return out


@dataclass(frozen=True)
class Evaluation:
    """Penalized log-likelihood, its gradient and the negative Hessian at one point."""

    loglik: float
    grad: FloatArray
    neg_hessian: FloatArray


@dataclass(frozen=True)
class FitResult:
    """Fitted parameters (natural units) and what the intervals need."""

    params: FloatArray
    layout: Layout
    neg_hessian: FloatArray
    loglik: float
    iterations: int


def _utilities(t: Tables, params: FloatArray, layout: Layout) -> FloatArray:
    seats = np.zeros(t.k)
    start = layout.seat_offset[t.k]
    seats[1:] = params[start : start + t.k - 1]
    u: FloatArray = params[t.bots] + seats[t.seats]
    shifted: FloatArray = u - u.max(axis=1, keepdims=True)  # exp stays finite; p unchanged
    return shifted


def _stages(
    t: Tables,
    params: FloatArray,
    layout: Layout,
    weights: FloatArray | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, float]:
    """Per game, in finishing order: d loglik / d u, the Hessian's diagonal part ``e * c``,
    ``e`` and the cumulative ``sum w / S^2`` that gives its off-diagonal part, and the total
    log-likelihood.

    With the seats in finishing order, the remaining set of the stage starting at position
    ``i`` is every position ``>= i``, so its sum ``S_i`` is a reversed cumulative sum and each
    seat's share of the stages it took part in is a cumulative sum: no loop over stages.
    """
    u = _utilities(t, params, layout)
    e = np.exp(u)
    remaining = np.cumsum(e[:, ::-1], axis=1)[:, ::-1]
    starts = t.stage > 0
    w = t.stage.astype(np.float64)
    inv = np.where(starts, w / remaining, 0.0)
    c = np.cumsum(inv, axis=1)
    c2 = np.cumsum(inv / remaining, axis=1)
    gw = np.ones(len(u)) if weights is None else weights
    ll = float(u.sum(axis=1) @ gw - (w * np.log(remaining)).sum(axis=1) @ gw)
    diag = e * c
    grad = (1.0 - diag) * gw[:, None]
    if weights is not None:
        diag = diag * gw[:, None]
        c2 = c2 * gw[:, None]
    return grad, diag, e, c2, ll


def _curvature(t: Tables, diag: FloatArray, e: FloatArray, c2: FloatArray) -> FloatArray:
    """Per game ``diag(e c) - [e_i e_j c2_min(i,j)]``: minus the Hessian in the seats'
    utilities (positive semi-definite)."""
    pos = np.arange(t.k)
    lower = np.minimum(pos[:, None], pos[None, :])
    curv = -(e[:, :, None] * e[:, None, :]) * c2[:, lower]
    curv[:, pos, pos] += diag
    return curv


def evaluate(
    packed: Packed, params: FloatArray, layout: Layout, weights: dict[int, FloatArray] | None = None
) -> Evaluation:
    """Penalized log-likelihood, gradient and negative Hessian at ``params``."""
    n = layout.bots
    precision = layout.prior_precision()
    ll = -0.5 * float(precision @ (params * params))
    grad = -precision * params
    neg = np.diag(precision)
    for t in packed.tables:
        g_u, diag, e, c2, tll = _stages(
            t, params, layout, None if weights is None else weights[t.k]
        )
        ll += tll
        curv = _curvature(t, diag, e, c2)
        k, bots, seats = t.k, t.bots, t.seats
        grad[:n] += np.bincount(bots.ravel(), weights=g_u.ravel(), minlength=n)
        pair = (bots[:, :, None] * n + bots[:, None, :]).ravel()
        neg[:n, :n] += np.bincount(pair, weights=curv.ravel(), minlength=n * n).reshape(n, n)
        # seat parameters: seat 0 is the reference, so only columns 1..k-1 are parameters
        start = layout.seat_offset[k]
        cols = slice(start, start + k - 1)
        grad[cols] += np.bincount(seats.ravel(), weights=g_u.ravel(), minlength=k)[1:]
        bot_seat = (bots[:, :, None] * k + seats[:, None, :]).ravel()
        cross = np.bincount(bot_seat, weights=curv.ravel(), minlength=n * k).reshape(n, k)[:, 1:]
        neg[:n, cols] += cross
        neg[cols, :n] += cross.T
        seat_seat = (seats[:, :, None] * k + seats[:, None, :]).ravel()
        block = np.bincount(seat_seat, weights=curv.ravel(), minlength=k * k).reshape(k, k)
        neg[cols, cols] += block[1:, 1:]
    return Evaluation(ll, grad, neg)


def fit(
    packed: Packed,
    start: FloatArray | None = None,
    weights: dict[int, FloatArray] | None = None,
    tolerance: float = 1e-9,
    max_iterations: int = 50,
) -> FitResult:
    """The penalized maximum-likelihood parameters (damped Newton; the objective is concave).

    Stops when the Newton decrement ``grad . step`` (twice the log-likelihood still to gain)
    is below ``tolerance``. ``weights`` (per table size, one per game) reweights games, as a
    bootstrap resample does.
    """
    layout = Layout.of(packed)
    params = np.zeros(layout.size) if start is None else start.astype(np.float64).copy()
    current = evaluate(packed, params, layout, weights)
    for iteration in range(1, max_iterations + 1):
        step = np.linalg.solve(current.neg_hessian, current.grad)
        if float(current.grad @ step) < tolerance:
            return FitResult(params, layout, current.neg_hessian, current.loglik, iteration)
        scale = 1.0
        while True:
            trial = params + scale * step
            candidate = evaluate(packed, trial, layout, weights)
            # rounding in a sum of many terms: accept a change within its noise
            slack = 1e-12 * (1.0 + abs(current.loglik))
            if candidate.loglik >= current.loglik - slack or scale < 1e-4:
                break
            scale /= 2
        params, current = trial, candidate
    return FitResult(params, layout, current.neg_hessian, current.loglik, max_iterations)


def game_scores(t: Tables, params: FloatArray, layout: Layout) -> FloatArray:
    """Each game's score (gradient of its log-likelihood) with respect to its seats' utilities,
    in finishing order (``t.bots`` and ``t.seats`` say whose); the sandwich sums these by
    duplicate block."""
    return _stages(t, params, layout)[0]


def warm_start(previous: FitResult, previous_names: tuple[str, ...], packed: Packed) -> FloatArray:
    """A start for fitting ``packed`` from an earlier solution over fewer results: each bot's
    strength and each seat's advantage where the earlier fit had them (bots matched by name,
    seats by table size and seat), zero for bots and table sizes it had not seen. Newton's
    method then needs a step or two when a few results were added."""
    layout = Layout.of(packed)
    start = np.zeros(layout.size)
    where = {name: i for i, name in enumerate(previous_names)}
    for i, name in enumerate(packed.names):
        j = where.get(name)
        if j is not None:
            start[i] = previous.params[j]
    for k, offset in layout.seat_offset.items():
        old = previous.layout.seat_offset.get(k)
        if old is not None:
            start[offset : offset + k - 1] = previous.params[old : old + k - 1]
    return start
