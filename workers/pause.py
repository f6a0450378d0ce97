"""Telling the worker's own pause from a bot's time.

A bot's decision time is measured on the monotonic clock, which keeps running while the
worker itself does not: a worker stopped (SIGSTOP, a frozen container or VM, a host under
swap) for longer than decision time plus bank would make the bot it was waiting for forfeit
on time, though the bot answered in milliseconds. So each worker process keeps its own
progress clock: a daemon thread ticks every :data:`TICK_S` on the monotonic clock, and a gap
between ticks of :data:`PAUSE_S` or more (ten ticks missed at once) is a pause of the whole
process, not anything a bot did. A decision that cost the bot time (beyond its decision
time, or a timeout) while such a gap overlapped its wait is not charged: the runner raises
:class:`WorkerPausedError` and the match is voided as the infrastructure's (it does not
count as an attempt; the server plays it again).

A thread does not tick across ``fork``: :func:`watch` starts one per process, lazily.
"""

from __future__ import annotations

import collections
import os
import threading
import time
from collections.abc import Callable, Mapping

from workers.model import InfrastructureError

#: The progress clock's period.
TICK_S = 0.1
#: A gap between ticks this long is a pause of the worker, not scheduling noise (the
#: default of ``HAMLET_WORKER_PAUSE_SECONDS``).
PAUSE_S = 1.0
PAUSE_VARIABLE = "HAMLET_WORKER_PAUSE_SECONDS"


def pause_seconds(environ: Mapping[str, str] = os.environ) -> float:
    """The pause threshold from the environment (``HAMLET_WORKER_PAUSE_SECONDS``, 0.2 to
    3600 s). A host so loaded that a worker process is not scheduled for this long voids the
    matches it was timing; raise it where that is routine."""
    raw = environ.get(PAUSE_VARIABLE, "").strip()
    if not raw:
        return PAUSE_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0.2 <= value <= 3600:
        raise ValueError(f"{PAUSE_VARIABLE} must be 0.2..3600 seconds, not {raw!r}")
    return value


class WorkerPausedError(InfrastructureError):
    """The worker was paused while a bot's clock ran: the match is void, nobody forfeits."""


class PauseWatch:
    """A process's progress clock: the gaps in its ticks."""

    def __init__(
        self,
        tick_s: float = TICK_S,
        pause_s: float = PAUSE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.tick_s = tick_s
        self.pause_s = pause_s
        self.clock = clock
        self._lock = threading.Lock()
        self._gaps: collections.deque[tuple[float, float]] = collections.deque(maxlen=256)
        self._last = clock()
        self._pid = 0

    def start(self) -> PauseWatch:
        """Start ticking in this process (again after a fork); idempotent."""
        with self._lock:
            if self._pid == os.getpid():
                return self
            self._pid = os.getpid()
            self._last = self.clock()
        threading.Thread(target=self._run, name="pause-watch", daemon=True).start()
        return self

    def tick(self) -> None:
        """One tick: a gap since the last one of :attr:`pause_s` or more is kept."""
        now = self.clock()
        with self._lock:
            if now - self._last >= self.pause_s:
                self._gaps.append((self._last, now))
            self._last = now

    def _run(self) -> None:
        while True:
            self.tick()
            time.sleep(self.tick_s)

    def paused(self, began: float, ended: float) -> float:
        """The longest pause overlapping ``[began, ended]`` (this watch's clock), the one
        still going on included (the ticking thread may not have run since); 0 if none."""
        with self._lock:
            gaps = list(self._gaps)
            if ended - self._last >= self.pause_s:
                gaps.append((self._last, ended))
        overlapping = [min(g1, ended) - max(g0, began) for g0, g1 in gaps]
        return max([g for g in overlapping if g > 0], default=0.0)


_watch = PauseWatch(pause_s=pause_seconds())


def watch() -> PauseWatch:
    """This process's progress clock, ticking."""
    return _watch.start()
