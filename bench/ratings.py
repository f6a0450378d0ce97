"""The rating fit's speed and calibration, printed.

``python bench/ratings.py [--quick]``:

- fit time (Newton to convergence, cluster-robust intervals included) for 100,000 and
  1,000,000 four-seat matches among 200 bots, in CPU seconds of this one process (per core),
  and its ratio to the same Newton steps done with a Python loop per game;
- a cluster bootstrap of 200 resamples of 100,000 matches;
- the planted-strength coverage of nominal 95% intervals (sandwich, and model-based intervals
  that treat games as independent) at three levels of duplicate-block luck.

- the service's whole refit path through the store (``--service``, or by default): rated
  results recorded through the store's API into SQLite (two- and four-seat tables among 200
  bots), then per stage (SQL read, packing, Newton, intervals and table) the cold path a
  read used to take on every new result (``rated_results`` -> ``pack`` -> ``fit`` ->
  ``sandwich`` -> ``table``), the background refit's first fit (the log's tail from 0 into
  an appendable design) and its incremental refit after 100 more results (the tail since
  the last read appended, the fit warm-started), at 10,000 and 100,000 results
  (``--service-results`` to change; recording 100,000 results takes several minutes), and
  the fitting side of that incremental refit in memory at 100,000 and 1,000,000 results.
  ``--service-db FILE`` times the path on a copy of a file generated before (``bench/
  reads_million.py --db FILE``), ``--service-results ""`` skips recording.
- ``--updates``: a full refit against a fast update (``server/ratings/update.py``) after
  1,200 new results, at 100,000 and 1,000,000 results (two- and four-seat), in CPU seconds,
  and the largest difference of their ratings.

Targets (the ranked-play issue): 100k in under 2 s, 1M in under 15 s, the bootstrap under
3 minutes, coverage 93-97%. Numbers only; tests assert nothing about time.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import refit_path
from server.ratings.data import Packed, Result
from server.ratings.design import Design
from server.ratings.fit import ELO, Layout, fit
from server.ratings.fitter import Fitter
from server.ratings.intervals import ANCHOR_RATING, Z95, bootstrap, ratings_and_sd, sandwich
from server.ratings.simulate import simulate


def loop_evaluation_seconds(packed: Packed, params: np.ndarray, games: int) -> float:
    """CPU seconds of one gradient + Hessian pass with a Python loop per game (on ``games``
    games), the way a straightforward implementation would do it."""
    layout = Layout.of(packed)
    t = packed.tables[0]
    n = layout.bots
    start = time.process_time()
    grad = np.zeros(layout.size)
    hess = np.zeros((layout.size, layout.size))
    for g in range(games):
        bots, seats, stage = t.bots[g], t.seats[g], t.stage[g]
        idx = [int(b) for b in bots]
        cols = [(layout.seat_offset[t.k] + int(s) - 1) if s else -1 for s in seats]
        u = [params[b] + (params[c] if c >= 0 else 0.0) for b, c in zip(idx, cols, strict=True)]
        e = [math.exp(x) for x in u]
        for i in range(t.k):
            if not stage[i]:
                continue
            rest = range(i, t.k)
            total = sum(e[j] for j in rest)
            w = float(stage[i])
            for j in rest:
                p = e[j] / total
                for a in (idx[j], cols[j]):
                    if a < 0:
                        continue
                    grad[a] -= w * p
                    for m in rest:
                        q = e[m] / total
                        for b in (idx[m], cols[m]):
                            if b >= 0:
                                hess[a, b] -= w * p * q
                    hess[a, a] += w * p
        for j in range(t.k):
            grad[idx[j]] += 1.0
    assert n > 0
    return time.process_time() - start


def timed_fit(matches: int) -> tuple[float, float, int, float]:
    """(fit s, intervals s, iterations, loop-equivalent s) for ``matches`` 4-seat matches."""
    planted = simulate(200, matches // 4, seats=4, spread_elo=200, shared_luck=0.5, seed=1)
    start = time.process_time()
    result = fit(planted.packed)
    fitted = time.process_time()
    sandwich(planted.packed, result)
    done = time.process_time()
    sample = 5_000
    loop = loop_evaluation_seconds(planted.packed, result.params, sample)
    loop_total = loop * (matches / sample) * (result.iterations + 1)
    return fitted - start, done - fitted, result.iterations, loop_total


def mixed(n: int, bots: int = 200, seed: int = 0) -> list[Result]:
    """``n`` results of planted strengths among ``bots``: events of 50,000, every fourth at
    four seats, the others at two (as ``bench/reads_million.py`` generates), blocks of two."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, 1.0, bots)
    names = ["random@1", *(f"m{i:03d}@1" for i in range(1, bots))]
    out = []
    for i in range(n):
        k = 4 if (i // 50_000) % 4 == 3 else 2
        seats = rng.choice(bots, size=k, replace=False)
        order = np.argsort(-(rng.gumbel(size=k) + strength[seats]))
        ranks = np.empty(k, np.int64)
        ranks[order] = np.arange(k)
        out.append(Result(tuple(names[s] for s in seats), tuple(map(int, ranks)), f"b{i // 2}"))
    return out


def updates(sizes: list[int], new: int = 1_200) -> None:
    """A full refit against a fast update (server.ratings.update) after ``new`` results (a
    minute at 20 a second), CPU seconds, and how far apart their ratings are."""
    print(f"refit after {new:,} new results: full fit against fast update (CPU s; 200 bots)")
    print(f"{'results':>10} {'full s':>8} {'fast s':>8} {'max |fast - full| Elo':>22}")
    for n in sizes:
        rows = mixed(n + new)
        design, fitter, key = Design(), Fitter(), ("g", "r")
        design.append(rows[:n])
        fitter.fit(key, design)
        design.append(rows[n:])
        fast = fitter.fit(key, design, full=False)
        full = fitter.fit(key, design)
        assert not fast.full and full.full
        exact = {line.bot: line.rating for line in full.lines}
        gap = max(abs(line.rating - exact[line.bot]) for line in fast.lines)
        print(f"{n:>10,} {full.cpu_seconds:>8.2f} {fast.cpu_seconds:>8.3f} {gap:>22.2g}")


def coverage(shared_luck: float, datasets: int) -> tuple[float, float]:
    """(sandwich, independent) coverage of nominal 95% intervals."""
    hits = np.zeros(2)
    total = 0
    for seed in range(datasets):
        planted = simulate(
            8, 60, seats=4, seat_elo=(-30, -40, -50), shared_luck=shared_luck, seed=seed
        )
        result = fit(planted.packed)
        truth = ANCHOR_RATING + planted.strength_elo
        for i, cov in enumerate(
            (sandwich(planted.packed, result), np.linalg.inv(result.neg_hessian))
        ):
            rating, sd = ratings_and_sd(planted.packed, result, cov)
            hits[i] += np.sum(np.abs(rating - truth)[1:] <= Z95 * sd[1:])
        total += len(truth) - 1
    return hits[0] / total, hits[1] / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="skip 1M matches and the bootstrap")
    parser.add_argument(
        "--updates",
        action="store_true",
        help="only a full refit against a fast update, at 100,000 and 1,000,000 results",
    )
    parser.add_argument(
        "--service", action="store_true", help="only the service's refit path through the store"
    )
    parser.add_argument(
        "--service-results",
        type=lambda x: [int(n) for n in x.split(",") if n],
        default=[10_000, 100_000],
        help="result counts of the refit-path table, comma-separated (default 10000,100000)",
    )
    parser.add_argument(
        "--service-db",
        type=Path,
        action="append",
        help="also time the refit path on a copy of this SQLite file (e.g. one generated by "
        "bench/reads_million.py --db)",
    )
    args = parser.parse_args()
    if args.updates:
        updates([100_000] if args.quick else [100_000, 1_000_000])
        return
    refit_path.table(args.service_results, args.service_db)
    if args.service:
        return
    refit_path.in_memory([100_000] if args.quick else [100_000, 1_000_000])
    print("fit: Plackett-Luce with seat advantages, 200 bots, four-seat matches (CPU seconds)")
    print(f"{'matches':>10} {'fit s':>7} {'intervals s':>12} {'Newton steps':>13} "
          f"{'per-game loop s':>16} {'speed-up':>9} {'target s':>9}")  # fmt: skip
    for matches, target in ((100_000, 2), (1_000_000, 15))[: 1 if args.quick else 2]:
        fit_s, int_s, steps, loop_s = timed_fit(matches)
        print(
            f"{matches:>10,} {fit_s:>7.2f} {int_s:>12.2f} {steps:>13} {loop_s:>16.0f} "
            f"{loop_s / (fit_s + int_s):>8.0f}x {target:>9}"
        )
    if not args.quick:
        planted = simulate(200, 25_000, seats=4, shared_luck=0.5, seed=2)
        result = fit(planted.packed)
        start = time.process_time()
        bootstrap(planted.packed, result, resamples=200, seed=3)
        print(f"bootstrap: 200 resamples of 100,000 matches in {time.process_time() - start:.1f} "
              "CPU s (target 180)")  # fmt: skip
    print("coverage of nominal 95% intervals (8 bots, 60 blocks of 4 rotations, 200 datasets)")
    for luck in (0.0, 0.5, 1.0):
        robust, naive = coverage(luck, 200)
        print(
            f"  shared seat luck {luck:.1f}: sandwich {robust:.3f}, independent-games {naive:.3f}"
        )
    print(f"(ratings on the Elo scale: 1 natural unit = {ELO:.1f} Elo; random anchored at "
          f"{ANCHOR_RATING:.0f})")  # fmt: skip


if __name__ == "__main__":
    main()
