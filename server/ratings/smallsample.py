"""Small-sample corrections for the cluster-robust intervals (duplicate blocks are the clusters).

The plain sandwich sums each block's score, evaluated at the fitted strengths. A bot seen in
only a few blocks has pulled the fit towards its own results, so its blocks' scores are too
small and its interval too narrow (45 blocks, 18 games a bot: 89-92% coverage for a nominal
95%). Two corrections, as in Bell and McCaffrey (2002):

- **CR2**: each block's score ``s_g`` is scaled up by ``(I - H_g)^(-1/2)``, ``H_g`` the block's
  leverage, so that under a working model of independent games the meat is unbiased. In
  parameter space, with ``B`` the negative Hessian and ``B_g = U U^T`` the block's own part,
  ``s~ = s + U F U^T B^-1 s``, ``F = f(U^T B^-1 U)``, ``f(m) = ((1 - m)^(-1/2) - 1) / m``:
  a small eigenproblem per block (at most ``2k - 1`` parameters), batched.
- **Degrees of freedom**: each bot's interval uses a t quantile with its effective number of
  blocks minus one, ``(sum_g b_g)^2 / sum_g b_g^2`` over the information ``b_g`` each block
  gives on it (a bot met in 4 blocks has about 3 degrees of freedom, however large the
  leaderboard).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from server.ratings.data import IntArray, Packed
from server.ratings.fit import FitResult, FloatArray, _curvature, _stages

#: Leverage is capped below 1: a block that alone decides a parameter gets a large but finite
#: inflation (its line is provisional anyway).
MAX_LEVERAGE = 0.98


@dataclass(frozen=True)
class Blocks:
    """Every block's score and negative Hessian on the parameters it touches.

    ``params[g, r]`` is the ``r``-th parameter block ``g`` touches (``mask`` says which slots
    are real), ``score[g]`` and ``info[g]`` its score vector and information matrix there.
    """

    params: IntArray
    mask: NDArray[np.bool_]
    score: FloatArray
    info: FloatArray


def blocks(packed: Packed, result: FitResult) -> Blocks:
    """Scores and information per block, on each block's own parameters."""
    layout, theta = result.layout, result.params
    keys, slot_scores, vals = [], [], []
    size = layout.size
    for t in packed.tables:
        g_u, diag, e, c2, _ = _stages(t, theta, layout)
        curv = _curvature(t, diag, e, c2)
        start = layout.seat_offset[t.k]
        seat_param = np.where(t.seats > 0, start + t.seats - 1, -1)
        # slots: each position's bot, then each position's seat parameter (-1: seat 0)
        slot_param = np.concatenate([t.bots, seat_param], axis=1)
        slot_curv = np.tile(curv, (1, 2, 2))
        slot_score = np.concatenate([g_u, g_u], axis=1)
        block = t.block[:, None]
        keys.append((block * size + slot_param).ravel()[slot_param.ravel() >= 0])
        slot_scores.append((block, slot_param, slot_score))
        vals.append(slot_curv)
    unique = _distinct(np.concatenate(keys)) if keys else np.zeros(0, np.int64)
    owner = unique // size
    first = np.searchsorted(owner, np.arange(packed.blocks))
    local_of_key = np.arange(len(unique)) - first[owner]
    width = int(local_of_key.max()) + 1 if len(unique) else 1
    params = np.zeros((packed.blocks, width), np.int64)
    mask = np.zeros((packed.blocks, width), bool)
    params[owner, local_of_key] = unique % size
    mask[owner, local_of_key] = True
    score = np.zeros(packed.blocks * width)
    info = np.zeros(packed.blocks * width * width)
    for (block, slot_param, slot_score), curv in zip(slot_scores, vals, strict=True):
        real = slot_param >= 0
        key = np.where(real, block * size + slot_param, unique[0] if len(unique) else 0)
        local = local_of_key[np.searchsorted(unique, key)]
        flat = block * width + local
        score += np.bincount(flat[real], weights=slot_score[real], minlength=len(score))
        both = real[:, :, None] & real[:, None, :]
        pair = (flat[:, :, None] * width + local[:, None, :])[both]
        info += np.bincount(pair, weights=curv[both], minlength=len(info))
    return Blocks(
        params,
        mask,
        score.reshape(packed.blocks, width),
        info.reshape(packed.blocks, width, width),
    )


def _distinct(values: IntArray) -> IntArray:
    """The sorted distinct values (a sort and a comparison: faster than ``np.unique``'s hash
    for millions of integers)."""
    ordered = np.sort(values)
    keep = np.ones(len(ordered), bool)
    keep[1:] = ordered[1:] != ordered[:-1]
    out: IntArray = ordered[keep]
    return out


def _leverage_factor(m: FloatArray) -> FloatArray:
    """``((1 - m)^(-1/2) - 1) / m``, 1/2 at ``m = 0``."""
    m = np.clip(m, 0.0, MAX_LEVERAGE)
    small = m < 1e-8
    safe = np.where(small, 0.5, m)
    out: FloatArray = np.where(small, 0.5 + 0.375 * m, ((1.0 - safe) ** -0.5 - 1.0) / safe)
    return out


def cr2_scores(b: Blocks, bread: FloatArray) -> FloatArray:
    """Each block's score with the CR2 leverage correction (same layout as ``b.score``).

    Blocks are corrected in groups of equal size (the parameters each touches): a block's
    real slots come first, and the padding up to the widest block (a four-seat block beside
    two-seat ones) only adds zero rows, so each group is worked at its own width, not the
    widest (the eigenproblems cost the cube of it)."""
    out: FloatArray = np.array(b.score, np.float64)
    touched = b.mask.sum(axis=1)
    for width in np.unique(touched):
        rows = np.flatnonzero(touched == width)
        part = Blocks(
            b.params[rows, :width],
            b.mask[rows, :width],
            b.score[rows, :width],
            b.info[rows][:, :width, :width],
        )
        out[rows, :width] = _cr2(part, bread)
    return out


def _cr2(b: Blocks, bread: FloatArray) -> FloatArray:
    """:func:`cr2_scores` of blocks of one width."""
    w, v = np.linalg.eigh(b.info)
    u = v * np.sqrt(np.maximum(w, 0.0))[:, None, :]  # info = u u^T
    idx = b.params
    local_bread = bread[idx[:, :, None], idx[:, None, :]] * (
        b.mask[:, :, None] & b.mask[:, None, :]
    )
    ut = u.transpose(0, 2, 1)
    q = ut @ local_bread @ u
    mu, vq = np.linalg.eigh(q)
    f = (vq * _leverage_factor(mu)[:, None, :]) @ vq.transpose(0, 2, 1)
    bs = local_bread @ b.score[:, :, None]
    extra = (u @ (f @ (ut @ bs)))[:, :, 0]
    out: FloatArray = b.score + extra
    return out


def meat(b: Blocks, scores: FloatArray, size: int) -> FloatArray:
    """``sum_g s_g s_g^T`` on the whole parameter vector."""
    rows = np.broadcast_to(np.arange(len(scores))[:, None], scores.shape)[b.mask]
    matrix = sparse.csr_matrix(
        (scores[b.mask], (rows, b.params[b.mask])), shape=(len(scores), size)
    )
    return np.asarray((matrix.T @ matrix).toarray())


def effective_blocks(packed: Packed, result: FitResult) -> FloatArray:
    """Per bot, ``(sum_g b_g)^2 / sum_g b_g^2`` over the information ``b_g`` each block gives
    on its strength: the number of blocks it was effectively measured in."""
    n = len(packed.names)
    keys, weights = [], []
    for t in packed.tables:
        _, diag, e, c2, _ = _stages(t, result.params, result.layout)
        own = diag - e * e * c2  # the diagonal of each game's curvature
        keys.append((t.block[:, None] * n + t.bots).ravel())
        weights.append(own.ravel())
    if not keys:
        return np.zeros(n)
    every = np.concatenate(keys)
    unique = _distinct(every)
    inverse = np.searchsorted(unique, every)
    per_block = np.bincount(inverse, weights=np.concatenate(weights), minlength=len(unique))
    bot = unique % n
    total = np.bincount(bot, weights=per_block, minlength=n)
    square = np.bincount(bot, weights=per_block * per_block, minlength=n)
    out: FloatArray = np.where(square > 0, total * total / np.maximum(square, 1e-300), 0.0)
    return out
