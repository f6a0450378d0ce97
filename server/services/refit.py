"""Background refits of the published leaderboards, off every reader's path.

One refit thread serves every leaderboard, one (game, rules version) at a time, so there is
never more than one fit of a leaderboard in flight (single flight). For each leaderboard it
keeps an appendable design (:mod:`server.ratings.design`) and the result log's sequence
number it has read up to. A leaderboard is polled (its new rated results read and appended)
when the recorder says a result arrived (:meth:`RefitService.touch`) and at least every
``debounce`` seconds otherwise (results recorded by another process); it is refitted when it
holds results its last fit had not, but not sooner than ``debounce`` seconds after its last
fit, nor sooner than :data:`FIT_GAP` times that fit's CPU time (fits stay under a tenth of a
core however large the design grows).

Large fits run in a process of their own (``processes``): the design's new batches cross to
it as integer arrays, and the fit never holds the server's GIL. Small ones run on the refit
thread, where a fit takes milliseconds and a process hop would cost more.

Readers take the last published :class:`Snapshot`; only a leaderboard's first read waits
(boundedly) for its first fit.
"""

from __future__ import annotations

import logging
import multiprocessing
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

#: The pause after a fit is at least this many times the fit's CPU time: fits then take at
#: most 1 / (1 + FIT_GAP) of a core.
FIT_GAP = 9.0
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
        processes: bool = False,
        process_threshold: int = PROCESS_THRESHOLD,
        first_wait: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        on_fit: Callable[[str, float, int], None] | None = None,
        on_progress: Callable[[str, int, float], None] | None = None,
    ) -> None:
        self.store = store
        self.debounce = debounce
        self.processes = processes
        self.process_threshold = process_threshold
        self.first_wait = first_wait
        self.clock = clock
        #: Told ``(game, seconds, matches)`` after every fit.
        self.on_fit = on_fit
        #: Told ``(game, results not yet in the published fit, CPU seconds of the last fit)``
        #: after every poll and fit.
        self.on_progress = on_progress
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
        tail = self.store.rated_results_after(key[0], key[1], board.seq)
        if tail.results:
            batch = board.design.append(as_result(r) for r in tail.results)
            if board.shipped:
                board.unsent.append(batch)
        board.seq = tail.last_seq
        self._progress(key, board, 0.0)

    def _refit(self, key: Key, board: _Board) -> None:
        started = time.perf_counter()
        if self.processes and board.design.results >= self.process_threshold:
            fitted = self._in_process(key, board)
        else:
            fitted = self._fitter.fit(key, board.design)
            board.unsent, board.shipped = [], False
        seconds = time.perf_counter() - started
        # The pause follows the fit's CPU time (a process's start-up or a busy machine's
        # waits are not the fit's cost).
        board.next_fit = self.clock() + max(self.debounce, FIT_GAP * fitted.cpu_seconds)
        snapshot = Snapshot(fitted, datetime.now(UTC).replace(tzinfo=None))
        with self._cond:
            board.snapshot, board.fitted, board.error = snapshot, fitted.matches, False
            self._cond.notify_all()
        if self.on_fit is not None:
            self.on_fit(key[0], seconds, fitted.matches)
        self._progress(key, board, fitted.cpu_seconds)

    def _in_process(self, key: Key, board: _Board) -> Fitted:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        try:
            batches = board.unsent if board.shipped else [board.design.everything()]
            fitted = self._pool.submit(refit_in_process, key, batches).result()
            if fitted is None:  # the process lost its copy: send the whole design once
                batches = [board.design.everything()]
                fitted = self._pool.submit(refit_in_process, key, batches).result()
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
