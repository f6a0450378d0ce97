"""The side of a refit that does the arithmetic: designs, warm starts, fit and intervals.

It runs either on the server's refit thread or in a process of its own (a pool of one
worker). In a process it keeps its own copy of each leaderboard's design and receives only
the batches appended since its last fit (:func:`refit_in_process`); when its copy does not
match (a new process, a reset), it says so and is sent the whole design once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from server.ratings import intervals
from server.ratings.design import Batch, Design
from server.ratings.fit import FitResult, fit, warm_start
from server.ratings.intervals import Line, SeatAdvantage

Key = tuple[str, str]  # (game, rules version)
#: Newton's stopping rule for published fits: tighter than the fit's default (one more step
#: at most, Newton converging quadratically), so that a fit warm-started from an earlier
#: solution and one started cold publish the same lines (to a millionth of an Elo point).
TOLERANCE = 1e-13


@dataclass(frozen=True)
class Fitted:
    """One fit's published parts (small and picklable: it crosses back between processes)."""

    lines: tuple[Line, ...]  # best first, one per bot version ("name@3")
    seats: tuple[SeatAdvantage, ...]
    matches: int
    blocks: int
    iterations: int
    #: CPU seconds the fit took on the thread that ran it.
    cpu_seconds: float


class Fitter:
    """Last solutions (and, in a fitting process, designs) per leaderboard."""

    def __init__(self) -> None:
        self._designs: dict[Key, Design] = {}
        self._last: dict[Key, tuple[tuple[str, ...], FitResult]] = {}

    def update(self, key: Key, batches: list[Batch]) -> Fitted | None:
        """Apply ``batches`` to this process's copy of the design and fit; None when the
        copy does not match the first batch (send the whole design instead)."""
        design = self._designs.get(key)
        if batches and batches[0].names_before == batches[0].results_before == 0:
            design = self._designs[key] = Design()
        if design is None:
            return None
        try:
            for batch in batches:
                design.apply(batch)
        except ValueError:
            del self._designs[key]
            return None
        return self.fit(key, design)

    def forget(self, key: Key) -> None:
        """Drop a leaderboard's design and last solution (the next fit starts cold)."""
        self._designs.pop(key, None)
        self._last.pop(key, None)

    def fit(self, key: Key, design: Design) -> Fitted:
        """Fit the design, warm-started from this leaderboard's last solution."""
        started = time.thread_time()
        packed = design.packed()
        if not packed.tables:
            return Fitted((), (), 0, 0, 0, time.thread_time() - started)
        last = self._last.get(key)
        start = None if last is None else warm_start(last[1], last[0], packed)
        result = fit(packed, start=start, tolerance=TOLERANCE)
        cov = intervals.sandwich(packed, result)
        lines = intervals.table(packed, result, cov)
        seats = intervals.seat_advantages(result, cov)
        self._last[key] = (packed.names, result)
        return Fitted(
            tuple(lines),
            tuple(seats),
            design.results,
            packed.blocks,
            result.iterations,
            time.thread_time() - started,
        )


#: The fitting process's own state (one per process; the pool has a single worker).
_IN_PROCESS = Fitter()


def refit_in_process(key: Key, batches: list[Batch]) -> Fitted | None:
    """The pool's task: :meth:`Fitter.update` on this process's fitter."""
    return _IN_PROCESS.update(key, batches)


def forget_in_process(key: Key) -> None:
    """The pool's task: :meth:`Fitter.forget` on this process's fitter."""
    _IN_PROCESS.forget(key)
