"""Keeping a block's claims while it plays: one lease at a time, renewed as the block goes.

The server leases each claim for one lease (``HAMLET_MATCH_LEASE_SECONDS``), not one per
match of the block: a block of six long matches would otherwise hold its matches six leases
after its worker died. So the worker renews the claims of its unreported matches before
each match but the first, and every quarter lease from a background thread while a match
is long (a slow but legal match keeps its claims however long it takes). A renewal the
server refuses means the claim is lost (expired, or another attempt holds the match): that
match is not played, its result would be refused. A renewal that cannot reach the server
changes nothing: the last one still holds for a lease, and a report after it is refused
(the server queues the match again; nothing is lost).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from workers.reporting import HostUnavailableError, MatchGoneError

log = logging.getLogger(__name__)

#: Renewal period when the server did not say how long its lease is (its default is 900 s).
DEFAULT_INTERVAL_S = 60.0
#: Renew this many times per lease (three can be missed before the claim is lost).
PER_LEASE = 4

Renew = Callable[[Sequence[str]], Mapping[str, bool]]


def renew_interval(lease_s: float) -> float:
    """How often to renew claims whose lease is ``lease_s`` seconds (0: unknown)."""
    return lease_s / PER_LEASE if lease_s > 0 else DEFAULT_INTERVAL_S


class ClaimKeeper:
    """Renews the claims of ``match_ids`` until they are reported; knows which were lost."""

    def __init__(
        self,
        renew: Renew,
        match_ids: Sequence[str],
        interval_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._renew = renew
        self._ids = list(match_ids)
        self._interval = interval_s
        self._clock = clock
        self._lock = threading.Lock()
        self._lost: set[str] = set()
        self._last = clock()
        self.renewals = 0

    @property
    def lost(self) -> frozenset[str]:
        """The matches whose claims the server no longer gives this attempt."""
        with self._lock:
            return frozenset(self._lost)

    def forget(self, match_id: str) -> None:
        """Stop renewing ``match_id`` (reported: the claim is over)."""
        with self._lock:
            if match_id in self._ids:
                self._ids.remove(match_id)

    def renew_now(self) -> None:
        """Renew every claim not lost yet (one call)."""
        with self._lock:
            ids = [m for m in self._ids if m not in self._lost]
            if not ids:
                return
            try:
                answers = self._renew(ids)
            except HostUnavailableError as exc:
                log.warning("renewing %d claims failed: %s", len(ids), exc)
                return
            except MatchGoneError as exc:
                log.warning("the block's claims are gone: %s", exc)
                self._lost.update(ids)
                return
            self._last = self._clock()
            self.renewals += 1
            self._lost.update(m for m, ok in answers.items() if not ok)

    @contextmanager
    def running(self) -> Iterator[ClaimKeeper]:
        """Renew every interval in a daemon thread while the block plays."""
        stop = threading.Event()

        def loop() -> None:
            while not stop.wait(self._interval):
                self.renew_now()

        thread = threading.Thread(target=loop, name="claim-keeper", daemon=True)
        thread.start()
        try:
            yield self
        finally:
            stop.set()
            thread.join(timeout=1.0)  # a renewal in flight ends on its own deadline
