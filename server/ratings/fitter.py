"""The side of a refit that does the arithmetic: designs, warm starts, fit and intervals.

It runs either on the server's refit thread or in a process of its own (a pool of one
worker). In a process it keeps its own copy of each leaderboard's design and receives only
the batches appended since its last fit (:func:`refit_in_process`); when its copy does not
match (a new process, a reset), it says so and is sent the whole design once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from server.ratings import intervals, update
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
    #: A full fit (every result, new intervals), not a fast update (:mod:`server.ratings.update`).
    full: bool = True


class Fitter:
    """Last solutions (and, in a fitting process, designs) per leaderboard."""

    def __init__(self) -> None:
        self._designs: dict[Key, Design] = {}
        self._last: dict[Key, tuple[tuple[str, ...], FitResult]] = {}
        self._bases: dict[Key, update.Base] = {}

    def update(self, key: Key, batches: list[Batch], full: bool = True) -> Fitted | None:
        """Apply ``batches`` to this process's copy of the design and fit (:meth:`fit`);
        None when the copy does not match the first batch (send the whole design instead)."""
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
        return self.fit(key, design, full)

    def forget(self, key: Key) -> None:
        """Drop a leaderboard's design and last solution (the next fit starts cold)."""
        self._designs.pop(key, None)
        self._last.pop(key, None)
        self._bases.pop(key, None)

    def fit(self, key: Key, design: Design, full: bool = True) -> Fitted:
        """Fit the design, warm-started from this leaderboard's last solution: a fast update
        from the last full fit when ``full`` is false and the new results allow one
        (:func:`server.ratings.update.tail`), else a full fit."""
        started = time.thread_time()
        packed = design.packed()
        if not packed.tables:
            return Fitted((), (), 0, 0, 0, time.thread_time() - started)
        base = None if full else self._bases.get(key)
        new = None if base is None else update.tail(base, packed)
        if base is not None and new is not None:
            # from the base's solution (full fits, too, start from the last full fit: a
            # start changes a solution within Newton's tolerance, and full fits stay equal)
            result = update.solve(base, new)
            lines = intervals.render(update.moved(base, result, packed))
            seats = intervals.seat_advantages(result, base.cov)
            return Fitted(
                tuple(lines),
                tuple(seats),
                design.results,
                packed.blocks,
                result.iterations,
                time.thread_time() - started,
                full=False,
            )
        last = self._last.get(key)
        start = None if last is None else warm_start(last[1], last[0], packed)
        result = fit(packed, start=start, tolerance=TOLERANCE)
        cov = intervals.sandwich(packed, result)
        frame = intervals.frame(packed, result, cov)
        lines = intervals.render(frame)
        seats = intervals.seat_advantages(result, cov)
        self._last[key] = (packed.names, result)
        self._bases[key] = update.base_of(packed, result, cov, frame)
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


def refit_in_process(key: Key, batches: list[Batch], full: bool = True) -> Fitted | None:
    """The pool's task: :meth:`Fitter.update` on this process's fitter."""
    return _IN_PROCESS.update(key, batches, full)


def forget_in_process(key: Key) -> None:
    """The pool's task: :meth:`Fitter.forget` on this process's fitter."""
    _IN_PROCESS.forget(key)
