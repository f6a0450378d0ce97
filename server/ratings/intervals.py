"""Intervals for the fit, and the published table.

- **Sandwich**: ``B^-1 M B^-1`` with ``B`` the negative Hessian and ``M`` the sum over duplicate
  blocks of (block score)(block score)^T, each score with the CR2 leverage correction
  (:mod:`server.ratings.smallsample`): games that share a seed are correlated, and treating them
  as independent misstates the uncertainty; few blocks a bot make the plain sum too small.
- **Cluster bootstrap**: resample whole blocks with replacement and refit (warm start); the
  spread of the refits is the check on the sandwich.
- **The table**: ratings on the Elo scale, one group per connected component of the comparison
  graph (:mod:`server.ratings.components`). The group holding the built-in ``random`` anchors it
  at :data:`ANCHOR_RATING`; any other group (or every group, when ``random`` never played or
  never won, so that it has no finite strength) puts the mean of its bots with finite strengths
  at :data:`MEAN_RATING`. 95% intervals use t quantiles with each bot's effective number of
  blocks minus one (combined with the anchor's by Welch-Satterthwaite); a bot never beaten
  (never beating anyone) gets an exact one-sided bound (:mod:`server.ratings.profile`) and is
  provisional. Rank ranges are per line and, separately,
  95% simultaneous (:mod:`server.ratings.ranks`), always within a group.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from server.ratings import components, profile, ranks, smallsample
from server.ratings.data import IntArray, Packed
from server.ratings.fit import ELO, FitResult, FloatArray, fit

ANCHOR_BOT = "random"
ANCHOR_RATING = 1000.0
MEAN_RATING = 1500.0
Z95 = 1.959963984540054
#: A bot is provisional until its 95% interval is narrower than +-PROVISIONAL_HALF_WIDTH Elo
#: and it has played PROVISIONAL_GAMES games (and always while its interval is open).
PROVISIONAL_HALF_WIDTH = 100.0
PROVISIONAL_GAMES = 30
#: The t quantile's degrees of freedom never go below this (a bot met in a single block).
MIN_DF = 1.0
#: Below this many degrees of freedom a line's variance is at least the model-based one.
THIN_DF = 2.0


@dataclass(frozen=True, slots=True)
class Line:
    """One bot's published line.

    ``open_high``: the bot was never beaten, so its strength has no upper bound: ``low`` is a
    one-sided 95% bound, ``rating`` equals it and ``high`` is +inf. ``open_low`` the same below
    (never beat anyone: ``low`` is -inf). ``anchor``: the line that fixes its group's scale
    (its interval is zero-width by definition, not by measurement). Rank ranges are within the
    line's ``group``; ``joint_rank_*`` hold for every line at once, and ``above`` names the
    lines this one is (jointly) claimed to be better than.
    """

    bot: str
    rating: float
    low: float
    high: float
    rank_low: int  # best rank the interval allows (1-based, within the group)
    rank_high: int  # worst rank the interval allows
    games: int
    average_place: float  # 1-based
    provisional: bool
    group: int = 0
    open_low: bool = False
    open_high: bool = False
    anchor: bool = False
    joint_rank_low: int = 0
    joint_rank_high: int = 0
    above: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SeatAdvantage:
    """Seat ``seat`` at tables of ``k`` against seat 0, in Elo, with a 95% interval."""

    k: int
    seat: int
    elo: float
    low: float
    high: float


def sandwich(packed: Packed, result: FitResult) -> FloatArray:
    """The cluster-robust (CR2) covariance of the parameters (natural units)."""
    bread: FloatArray = np.asarray(np.linalg.inv(result.neg_hessian), np.float64)
    if packed.blocks == 0:
        return bread
    b = smallsample.blocks(packed, result)
    scores = smallsample.cr2_scores(b, bread)
    meat = smallsample.meat(b, scores, result.layout.size)
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


@dataclass(frozen=True)
class Scale:
    """How the table is anchored: groups, open sides, and per line its contrast row and base."""

    groups: components.Groups
    sides: components.Sides
    anchor: int | None  # the anchoring line (None: every group is mean-anchored)
    contrasts: FloatArray
    base: FloatArray


def scale(packed: Packed) -> Scale:
    """Rows map parameters to anchored strengths: ``theta_i - theta_random`` in random's group
    (when random is bounded both ways), else minus the mean of the group's bounded bots."""
    n = len(packed.names)
    size = n + sum(t.k - 1 for t in packed.tables)
    anchor = anchor_index(packed)
    grp = components.groups(packed, anchor)
    side = components.sides(packed, grp, anchor)
    closed = ~(side.open_high | side.open_low)
    if anchor is not None and not closed[anchor]:
        anchor = None  # random has no finite strength: it cannot fix a scale
    out = np.zeros((n, size))
    out[:, :n] = np.eye(n)
    base = np.full(n, MEAN_RATING)
    for g in range(grp.count):
        members = grp.members(g)
        if anchor is not None and grp.of[anchor] == g:
            out[members, anchor] -= 1.0
            base[members] = ANCHOR_RATING
            continue
        reference = members[closed[members]]
        if len(reference) == 0:
            reference = members
        out[np.ix_(members, reference)] -= 1.0 / len(reference)
    return Scale(grp, side, anchor, out, base)


def contrasts(packed: Packed) -> FloatArray:
    """The rows of :func:`scale` (anchored strengths from parameters)."""
    return scale(packed).contrasts


def ratings_and_sd(
    packed: Packed, result: FitResult, cov: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Anchored Elo ratings and their standard errors from a covariance."""
    s = scale(packed)
    rating = s.base + ELO * (s.contrasts @ result.params)
    var = np.einsum("ij,jk,ik->i", s.contrasts, cov, s.contrasts)
    return rating, ELO * np.sqrt(np.maximum(var, 0.0))


def degrees_of_freedom(packed: Packed, result: FitResult) -> FloatArray:
    """Per bot: its effective number of blocks minus one (at least :data:`MIN_DF`)."""
    eff = smallsample.effective_blocks(packed, result)
    out: FloatArray = np.maximum(eff - 1.0, MIN_DF)
    return out


def rank_ranges(low: FloatArray, high: FloatArray) -> list[tuple[int, int]]:
    """1-based (best, worst) rank each line's interval allows among these lines: better than
    every line whose interval lies wholly below it, worse than every one wholly above it."""
    n = len(low)
    return [
        (1 + int(np.sum(np.delete(low, i) > high[i])), n - int(np.sum(np.delete(high, i) < low[i])))
        for i in range(n)
    ]


@dataclass(frozen=True)
class Frame:
    """The published table as arrays by bot index, before it is cut into lines: what a fast
    update (:mod:`server.ratings.update`) moves when only the point estimate changed."""

    names: tuple[str, ...]
    rating: FloatArray
    low: FloatArray
    high: FloatArray
    half: FloatArray  # the two-sided half-width the provisional rule reads
    games: IntArray
    places: FloatArray
    groups: components.Groups
    open_high: NDArray[np.bool_]
    open_low: NDArray[np.bool_]
    anchor: int | None
    cov_elo: FloatArray
    df: FloatArray
    #: Per group, the joint rank ranges' critical value (depends on the covariance only).
    quantiles: tuple[float, ...]
    #: Rows giving the anchored strengths from the parameters (``scale(...).contrasts``).
    contrasts: FloatArray


def table(packed: Packed, result: FitResult, cov: FloatArray) -> list[Line]:
    """The published leaderboard: group by group, best first within each."""
    return render(frame(packed, result, cov))


def frame(packed: Packed, result: FitResult, cov: FloatArray) -> Frame:
    """The published table's arrays (see :func:`table`)."""
    s = scale(packed)
    rating = s.base + ELO * (s.contrasts @ result.params)
    cov_elo = ELO * ELO * (s.contrasts @ cov @ s.contrasts.T)
    sd = np.sqrt(np.maximum(np.diag(cov_elo), 0.0))
    df = degrees_of_freedom(packed, result)
    # thin is judged on each line's own blocks (and the anchor's): the Welch-Satterthwaite
    # sum of two one-block lines reads two degrees of freedom although neither has any
    thin = df < THIN_DF
    if s.anchor is not None:
        thin |= df[s.anchor] < THIN_DF
    if s.anchor is not None:  # theta_i - theta_random: Welch-Satterthwaite over the two
        v, a = np.diag(cov)[: len(df)], s.anchor
        df = (v + v[a]) ** 2 / np.maximum(v * v / df + v[a] ** 2 / df[a], 1e-300)
        df = np.maximum(df, MIN_DF)
    # With one or two effective blocks the sandwich has almost nothing to estimate a variance
    # from (it can be near zero): such a line never gets less than the model-based variance.
    thin |= df < THIN_DF
    if thin.any():
        model = np.linalg.inv(result.neg_hessian)
        rows = s.contrasts[thin]
        model_sd = ELO * np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", rows, model, rows), 0.0))
        sd[thin] = np.maximum(sd[thin], model_sd)
    half = stats.t.ppf(0.975, df) * sd
    low, high = rating - half, rating + half
    open_high, open_low = s.sides.open_high, s.sides.open_low
    for i in np.flatnonzero(packed.games == 0):  # named but never played: nothing known
        low[i], high[i] = -np.inf, np.inf
    for i in np.flatnonzero(open_high & open_low):  # placed neither above nor below: no bound
        low[i], high[i] = -np.inf, np.inf
    for open_set in s.sides.sets:  # above (or below) the group's main component
        members = open_set.members
        shift = ELO * profile.set_bound(packed, result, open_set.moved, open_set.upper)
        rating[members] += shift
        if open_set.upper:
            low[members], high[members] = rating[members], np.inf
        else:
            low[members], high[members] = -np.inf, rating[members]
    if s.anchor is not None:
        low[s.anchor] = high[s.anchor] = rating[s.anchor]
    quantiles = []
    for g in range(s.groups.count):
        members = s.groups.members(g)
        closed = np.isfinite(low[members]) & np.isfinite(high[members])
        quantiles.append(ranks.max_t_quantile(cov_elo[np.ix_(members, members)], closed))
    return Frame(
        packed.names,
        rating,
        low,
        high,
        half,
        np.array(packed.games, np.int64),
        np.array(packed.places, np.float64),
        s.groups,
        open_high,
        open_low,
        s.anchor,
        cov_elo,
        df,
        tuple(quantiles),
        s.contrasts,
    )


def render(f: Frame) -> list[Line]:
    """A frame's lines: group by group, best first within each."""
    lines: list[Line] = []
    for g in range(f.groups.count):
        members = f.groups.members(g)
        low, high = f.low[members], f.high[members]
        per_line = rank_ranges(low, high)
        joint = ranks.joint(
            f.rating[members],
            f.cov_elo[np.ix_(members, members)],
            low,
            high,
            f.df[members],
            q=f.quantiles[g],
        )
        for m, i in enumerate(members):
            games = int(f.games[i])
            is_open = bool(f.open_high[i] or f.open_low[i])
            lines.append(
                Line(
                    bot=f.names[i],
                    rating=float(f.rating[i]),
                    low=float(f.low[i]),
                    high=float(f.high[i]),
                    rank_low=per_line[m][0],
                    rank_high=per_line[m][1],
                    games=games,
                    average_place=float(f.places[i] / games) if games else 0.0,
                    provisional=bool(
                        is_open or f.half[i] > PROVISIONAL_HALF_WIDTH or games < PROVISIONAL_GAMES
                    ),
                    group=g,
                    open_low=bool(f.open_low[i]),
                    open_high=bool(f.open_high[i]),
                    anchor=f.anchor is not None and i == f.anchor,
                    joint_rank_low=joint.rank_low[m],
                    joint_rank_high=joint.rank_high[m],
                    above=tuple(f.names[members[j]] for j in joint.above[m]),
                )
            )
    return sorted(lines, key=lambda line: (line.group, -line.rating, line.bot))


def seat_advantages(result: FitResult, cov: FloatArray) -> list[SeatAdvantage]:
    """Each seat against seat 0 per table size, in Elo. A seat whose games carry no information
    on it (every block's score for it cancels: its variance is zero) is left out rather than
    shown as a certain ``+0 (+0 .. +0)``."""
    out = []
    for k, start in sorted(result.layout.seat_offset.items()):
        for j in range(1, k):
            i = start + j - 1
            value, sd = ELO * result.params[i], ELO * float(np.sqrt(max(cov[i, i], 0.0)))
            if sd < NO_INFORMATION_ELO:
                continue
            out.append(SeatAdvantage(k, j, float(value), value - Z95 * sd, value + Z95 * sd))
    return out


#: A standard error below this (Elo) means no information, not certainty.
NO_INFORMATION_ELO = 1e-6
