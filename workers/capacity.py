"""A worker consumes a runtime's queue only while it can run it.

Every queue may carry uploaded bots (``matches`` those in Python, ``matches.node`` those in
Node.js...), so a worker whose sandbox check fails can play none of them safely: it stops
consuming every queue (a worker that took them would void each match in milliseconds), and
one whose runtime disappeared stops consuming that runtime's queues. The main process
checks again with backoff (:data:`FIRST_RETRY_S` doubling to :data:`MAX_RETRY_S`) while
something is refused, every :data:`HEALTHY_RECHECK_S` otherwise, and moves the consumer
with Celery's own remote control (``cancel_consumer`` / ``add_consumer`` addressed to this
worker alone, carried out by its consumer loop). The state is a metric
(``hamlet_worker_sandbox_ok``, ``hamlet_worker_queues_refused``), an alert
(``HamletWorkerSandboxFailing``) and the worker's health (``/healthz`` on its metrics port:
503 with the reason).

A worker whose check fails at start consumes only :func:`parking_queue` (a queue nobody
sends to) until a check passes, so it never takes a task it cannot play. ``HAMLET_BWRAP``
naming a missing binary makes the check fail: how tests (and an operator) see the path.

Pool children keep a passing check for their life and run a refused one again each time
they need it (:func:`current_report`): a child never voids a match on a stale refusal while
its main process, whose check passed again, consumes the queues once more.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from hamlet.queues import queues_served
from workers.sandbox import SandboxLimits
from workers.sandbox_check import SandboxReport, available_runtimes, check

log = logging.getLogger(__name__)

#: First re-check after a refusal; doubles up to :data:`MAX_RETRY_S`.
FIRST_RETRY_S = 5.0
MAX_RETRY_S = 300.0
#: How often a healthy worker checks that its sandbox and runtimes are still there.
HEALTHY_RECHECK_S = 60.0
_lock = threading.Lock()
_reports: dict[SandboxLimits, SandboxReport] = {}


def remember(limits: SandboxLimits, report: SandboxReport) -> None:
    """Keep ``report`` as this process's latest check (children inherit it at fork)."""
    with _lock:
        _reports[limits] = report


def current_report(
    limits: SandboxLimits, run: Callable[[SandboxLimits], SandboxReport] = check
) -> SandboxReport:
    """The sandbox check: a passing one kept for the process's life, a refused one run again
    (the sandbox may be back: a match is voided only on a refusal that still holds)."""
    with _lock:
        cached = _reports.get(limits)
    if cached is not None and cached.plays_uploaded:
        return cached
    report = run(limits)
    remember(limits, report)
    return report


@dataclass(frozen=True, slots=True)
class Capacity:
    """What this worker can play now."""

    tier: str
    #: The queues it can consume now.
    queues: tuple[str, ...]
    #: Why it cannot consume every queue it wants (empty: it can).
    why: str = ""

    @property
    def sandbox_ok(self) -> bool:
        """Whether the sandbox check passed."""
        return self.tier != "refused"


def assess(
    limits: SandboxLimits,
    wanted: Iterable[str],
    run: Callable[[SandboxLimits], SandboxReport] = check,
    runtimes: Callable[[SandboxLimits], list[str]] = available_runtimes,
) -> Capacity:
    """Check the sandbox and runtimes now; the queues of ``wanted`` this worker can run."""
    report = run(limits)
    remember(limits, report)
    wanted = sorted(set(wanted))
    if not report.plays_uploaded:
        why = f"the sandbox check failed: {report.why_refused()}"
        return Capacity(report.tier.value, (), why)
    have = set(queues_served(runtimes(limits)))
    queues = tuple(q for q in wanted if q in have)
    gone = [q for q in wanted if q not in have]
    why = f"runtimes gone, not consuming {', '.join(gone)}" if gone else ""
    return Capacity(report.tier.value, queues, why)


def parking_queue(worker_name: str) -> str:
    """The queue a worker that can play nothing consumes (nobody sends to it): Celery needs
    one, and an empty selection would mean every queue."""
    return f"hamlet.parked.{worker_name}"


class Consumer(Protocol):
    """Moves this worker's consumer (Celery's remote control, addressed to itself)."""

    def add(self, queue: str) -> bool:
        """Start consuming ``queue``; whether the worker confirmed it."""
        ...

    def cancel(self, queue: str) -> bool:
        """Stop consuming ``queue``; whether the worker confirmed it."""
        ...


class CapacityObserver(Protocol):
    """Where the steward's state goes (the worker's metrics)."""

    def capacity(self, sandbox_ok: bool, refused: int, consumed: int) -> None:
        """Export the current state."""
        ...


@dataclass
class Health:
    """The worker's health as ``/healthz`` answers it."""

    ok: bool = True
    detail: str = "starting"


#: This process's health (the main process's steward writes it; /healthz reads it).
HEALTH = Health()


class QueueSteward:
    """Keeps the consumer on exactly the queues this worker can run (one per process)."""

    def __init__(
        self,
        limits: SandboxLimits,
        wanted: Sequence[str],
        consuming: Iterable[str],
        consumer: Consumer,
        observer: CapacityObserver | None = None,
        health: Health = HEALTH,
        assess_now: Callable[[SandboxLimits, Iterable[str]], Capacity] = assess,
    ) -> None:
        self.limits = limits
        self.wanted = list(wanted)
        self.consuming = set(consuming) & set(wanted)
        self.consumer = consumer
        self.observer = observer
        self.health = health
        self._assess = assess_now
        self._retry = FIRST_RETRY_S

    def step(self) -> float:
        """Check once, move the consumer, export the state; seconds until the next check."""
        try:
            capacity = self._assess(self.limits, self.wanted)
        except Exception as exc:  # a check that cannot run is a failed check: fail closed
            capacity = Capacity("refused", (), f"the sandbox check could not run: {exc}")
        can = set(capacity.queues)
        settled = True
        for queue in sorted(self.consuming - can):
            if self.consumer.cancel(queue):
                self.consuming.discard(queue)
                log.error("stopped consuming %s: %s", queue, capacity.why)
            else:
                settled = False
        for queue in sorted(can - self.consuming):
            if self.consumer.add(queue):
                self.consuming.add(queue)
                log.info("consuming %s again: the sandbox check passed", queue)
            else:
                settled = False
        refused = len(set(self.wanted) - self.consuming)
        if self.observer is not None:
            self.observer.capacity(capacity.sandbox_ok, refused, len(self.consuming))
        self.health.ok = not capacity.why and settled
        self.health.detail = capacity.why or (
            "consuming " + ", ".join(sorted(self.consuming))
            if settled
            else "the broker did not confirm a consumer change; retrying"
        )
        if self.health.ok:
            self._retry = FIRST_RETRY_S
            return HEALTHY_RECHECK_S
        delay, self._retry = self._retry, min(MAX_RETRY_S, self._retry * 2)
        log.warning("%s; checking again in %.0fs", self.health.detail, delay)
        return delay

    def run(self, stop: threading.Event) -> None:
        """Step until ``stop`` is set (a daemon thread's loop)."""
        while not stop.is_set():
            stop.wait(self.step())
