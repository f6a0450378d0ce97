"""Background refits of the published leaderboards, off every reader's path.

One refit thread serves every leaderboard, one (game, rules version) at a time, so there is
never more than one fit of a leaderboard in flight (single flight). For each leaderboard it
keeps an appendable design (:mod:`server.ratings.design`) and the result log's sequence
number it has read up to. A leaderboard is polled (its new rated results read and appended)
when the recorder says a result arrived (:meth:`RefitService.touch`) and at least every
``debounce`` seconds otherwise (results recorded by another process); it is refitted when it
holds results its last fit had not, but not sooner than ``debounce`` seconds after its last
fit, nor sooner than :data:`FIT_GAP` times that fit's CPU time.

Most refits are fast updates (:mod:`server.ratings.update`): the point estimates move with
the results added since the last full fit, at a cost that grows with those results, not
with the log. A full fit (every result, new intervals) runs at the first fit, when the new
results need one (a new bot, a result between groups), and otherwise as soon as
:data:`FULL_GAP` times the last full fit's CPU time has passed (and ``full_seconds``, 0 by
default): a small leaderboard, whose full fit takes milliseconds, is fully refitted every
time; a million results get a full fit every minute or so and fast updates in between. Fast
updates and full fits each stay under 1 / (1 + gap) of a core, together under a tenth,
however large the design grows.

Large fits run in a process of their own (``processes``): the design's new batches cross to
it as integer arrays, and the fit never holds the server's GIL. Small ones run on the refit
thread, where a fit takes milliseconds and a process hop would cost more.

Readers take the last published :class:`Snapshot`; only a leaderboard's first read waits
(boundedly) for its first fit.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from datetime import UTC, datetime

from server.ratings.data import Result
from server.ratings.design import Batch, Design
from server.ratings.fitter import Fitted, Fitter, Key, refit_in_process
from server.services.errors import UnavailableError
from server.storage import RatedResult, Store

log = logging.getLogger(__name__)

#: The pause after a fast update is at least this many times its CPU time, and the pause
#: between full fits at least :data:`FULL_GAP` times the last one's: each kind then takes at
#: most 1 / (1 + gap) of a core, both together at most a tenth.
FIT_GAP = 19.0
FULL_GAP = 19.0
#: Designs with fewer results fit on the refit thread even when processes are on.
PROCESS_THRESHOLD = 2_000


@dataclass(frozen=True)
class Snapshot:
    """A published fit and when it was made."""

    fitted: Fitted
    fitted_at: datetime  # UTC, naive (like the store's times)


@dataclass
class _Board:
    """One leaderboard's refit state (changed by the refit thread only, read under the
    service's lock)."""

    design: Design = field(default_factory=Design)
    seq: int = 0  # the result log read up to here
    fitted: int = -1  # results in the published fit; -1: refit whatever the design holds
    snapshot: Snapshot | None = None
    dirty: bool = True
    next_poll: float = 0.0
    next_fit: float = 0.0
    next_full: float = 0.0  # no full fit before this (fast updates meanwhile)
    unsent: list[Batch] = field(default_factory=list)  # batches the fitting process lacks
    shipped: bool = False  # the fitting process holds this design (up to ``unsent``)
    error: bool = False
    rebuild: bool = False  # read the log from its start at the next poll


def as_result(r: RatedResult) -> Result:
    """A stored result as the fit reads it: one line per bot version (``name@3``)."""
    return Result(
        tuple(f"{name}@{version}" for name, version, _ in r.seats),
        tuple(rank for _, _, rank in r.seats),
        r.block,
    )


class RefitService:
    """Keeps every leaderboard that was read fitted in the background."""

    def __init__(
        self,
        store: Store,
        *,
        debounce: float = 3.0,
        full_seconds: float = 0.0,
        processes: bool = False,
        process_threshold: int = PROCESS_THRESHOLD,
        first_wait: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        on_fit: Callable[[str, float, int], None] | None = None,
        on_progress: Callable[[str, int, float], None] | None = None,
    ) -> None:
        self.store = store
        self.debounce = debounce
        self.full_seconds = full_seconds
        self.processes = processes
        self.process_threshold = process_threshold
        self.first_wait = first_wait
        self.clock = clock
        #: Told ``(game, seconds, matches)`` after every fit.
        self.on_fit = on_fit
        #: Told ``(game, results not yet in the published fit, CPU seconds of the last fit)``
        #: after every poll and fit.
        self.on_progress = on_progress
        #: Told ``(key, snapshot)`` on the refit thread before a new fit is published: what
        #: readers make of a fit (the published table's default view) is made here, once,
        #: not by the first reader after each fit.
        self.on_publish: list[Callable[[Key, Snapshot], object]] = []
        self._fitter = Fitter()
        self._pool: ProcessPoolExecutor | None = None
        self._boards: dict[Key, _Board] = {}
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopped = False

    def start(self) -> None:
        """Start the refit thread (without it, :meth:`tick` must be called by hand)."""
        self._thread = threading.Thread(target=self._run, name="hamlet-refit", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop the refit thread and the fitting process."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join()
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)

    def touch(self) -> None:
        """A rated result may have been recorded: poll every leaderboard's log soon."""
        with self._cond:
            for board in self._boards.values():
                board.dirty = True
            self._cond.notify_all()

    def reset(self, game: str) -> None:
        """Rebuild a game's designs from the result log at the next poll (the published fits
        are served until their replacements are ready)."""
        with self._cond:
            for (g, _), board in self._boards.items():
                if g == game:
                    board.rebuild = board.dirty = True
            self._cond.notify_all()

    def follow(self, key: Key) -> None:
        """Keep a leaderboard fitted from now on (its first read does this)."""
        with self._cond:
            self._follow(key)

    def forget(self, key: Key) -> None:
        """Stop keeping a leaderboard (its next read is a first read again)."""
        with self._cond:
            self._boards.pop(key, None)

    def _follow(self, key: Key) -> _Board:
        board = self._boards.get(key)
        if board is None:
            board = self._boards[key] = _Board()
            self._cond.notify_all()
        return board

    def snapshot(self, key: Key) -> Snapshot:
        """The last published fit of a leaderboard. Its first read starts its refits and
        waits up to ``first_wait`` seconds for the first fit (UNAVAILABLE after that)."""
        with self._cond:
            board = self._follow(key)
            if board.snapshot is not None:
                return board.snapshot
            deadline = time.monotonic() + self.first_wait
            while board.snapshot is None and not board.error:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            if board.snapshot is not None:
                return board.snapshot
        game, rules = key
        raise UnavailableError(
            f"the {game} leaderboard (rules {rules}) is being computed for the first time; "
            "try again in a few seconds"
        )

    def latest(self, key: Key) -> Snapshot | None:
        """The last published fit of a leaderboard, or None; never waits (and starts its
        refits, as a read does)."""
        with self._cond:
            return self._follow(key).snapshot

    def recorded(self, key: Key) -> int:
        """Rated results of a leaderboard read from the log so far (its fit may lag)."""
        with self._cond:
            board = self._boards.get(key)
            return 0 if board is None else board.design.results

    def tick(self) -> float:
        """One pass over the leaderboards: poll those due, refit those due. Returns the
        seconds until the next one is due."""
        now = self.clock()
        with self._cond:
            boards = list(self._boards.items())
        delay = self.debounce
        for key, board in boards:
            if board.dirty or now >= board.next_poll:
                with self._cond:
                    board.dirty = False
                board.next_poll = now + self.debounce
                self._guarded(key, board, self._poll)
            if board.design.results != board.fitted:
                if now >= board.next_fit:
                    self._guarded(key, board, self._refit)
                else:
                    delay = min(delay, board.next_fit - now)
            delay = min(delay, board.next_poll - now)
        return max(delay, 0.0)

    def _run(self) -> None:
        delay = 0.0
        while True:
            with self._cond:
                if not self._stopped and not any(b.dirty for b in self._boards.values()):
                    self._cond.wait(delay)
                if self._stopped:
                    return
            delay = self.tick()

    def _guarded(self, key: Key, board: _Board, step: Callable[[Key, _Board], None]) -> None:
        try:
            step(key, board)
        except Exception:  # the store or the fit failed: keep serving the last fit, retry
            log.exception("refitting the %s leaderboard (rules %s) failed", *key)
            board.next_fit = self.clock() + self.debounce
            with self._cond:
                board.error = board.snapshot is None
                self._cond.notify_all()

    def _poll(self, key: Key, board: _Board) -> None:
        if board.rebuild:  # on this thread: a poll under way never appends to a new design
            board.design, board.seq, board.fitted = Design(), 0, -1
            board.unsent, board.shipped, board.rebuild = [], False, False
            board.next_full = 0.0
        tail = self.store.rated_results_after(key[0], key[1], board.seq)
        if tail.results:
            batch = board.design.append(as_result(r) for r in tail.results)
            if board.shipped:
                board.unsent.append(batch)
        board.seq = tail.last_seq
        self._progress(key, board, 0.0)

    def _refit(self, key: Key, board: _Board) -> None:
        started = time.perf_counter()
        full = self.clock() >= board.next_full
        if self.processes and board.design.results >= self.process_threshold:
            fitted = self._in_process(key, board, full)
        else:
            fitted = self._fitter.fit(key, board.design, full)
            board.unsent, board.shipped = [], False
        seconds = time.perf_counter() - started
        # The pauses follow the fit's CPU time (a process's start-up or a busy machine's
        # waits are not the fit's cost).
        now = self.clock()
        if fitted.full:
            board.next_full = now + max(self.full_seconds, FULL_GAP * fitted.cpu_seconds)
            # the fast updates that follow are cheap: only a full fit that was asked for (its
            # time had come) lets them start at once; one forced by the results (a new bot)
            # pauses as a fast update would, so that such results cannot make every fit full
            pause = self.debounce if full else max(self.debounce, FIT_GAP * fitted.cpu_seconds)
        else:
            pause = max(self.debounce, FIT_GAP * fitted.cpu_seconds)
        board.next_fit = now + pause
        snapshot = Snapshot(fitted, datetime.now(UTC).replace(tzinfo=None))
        for prepare in self.on_publish:
            prepare(key, snapshot)
        with self._cond:
            board.snapshot, board.fitted, board.error = snapshot, fitted.matches, False
            self._cond.notify_all()
        if self.on_fit is not None:
            self.on_fit(key[0], seconds, fitted.matches)
        self._progress(key, board, fitted.cpu_seconds)

    def _in_process(self, key: Key, board: _Board, full: bool) -> Fitted:
        if self._pool is None:
            self._pool = _fitting_pool()
        try:
            batches = board.unsent if board.shipped else [board.design.everything()]
            fitted = self._pool.submit(refit_in_process, key, batches, full).result()
            if fitted is None:  # the process lost its copy: send the whole design once
                batches = [board.design.everything()]
                fitted = self._pool.submit(refit_in_process, key, batches, full).result()
        except BrokenProcessPool:
            self._pool = None
            for other in self._boards.values():
                other.shipped, other.unsent = False, []
            raise
        if fitted is None:
            raise RuntimeError("the fitting process refused a whole design")
        board.unsent, board.shipped = [], True
        return fitted

    def _progress(self, key: Key, board: _Board, cpu_seconds: float) -> None:
        if self.on_progress is not None:
            pending = board.design.results - max(board.fitted, 0)
            self.on_progress(key[0], pending, cpu_seconds)


#: The fitting process's BLAS runs on one thread: the process is meant to take one core at
#: most, and on a busy host OpenBLAS's spinning helper threads made a 200-parameter solve
#: cost 170 ms instead of 1 ms, on the cores the server's readers need.
_ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _fitting_pool() -> ProcessPoolExecutor:
    """A pool of one spawned process with single-threaded BLAS (an operator's own setting
    is kept). The variables are set only while the process starts, so nothing else this
    server starts inherits them."""
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    saved = {name: os.environ.get(name) for name in _ONE_THREAD}
    try:
        for name in _ONE_THREAD:
            os.environ.setdefault(name, "1")
        pool.submit(int).result()  # the process starts now, with this environment
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
    return pool
