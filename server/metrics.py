"""The server's Prometheus metrics, defined once, on an injectable registry.

Base units, ``_total`` counters, bounded labels only (gRPC method names, status codes, game
names, outcomes; never match or bot ids). Tests pass a fresh ``CollectorRegistry``.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from wsgiref.simple_server import WSGIServer

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    start_http_server,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

log = logging.getLogger(__name__)

#: Why the front process refused a call itself (server.front.REASONS).
FRONT_REASONS = ("auth", "token", "size")

#: Outcomes of a recorded match.
OUTCOMES = ("completed", "forfeit", "failed")
#: Why a match went back to the queue.
REQUEUE_REASONS = ("void", "lease", "timeout", "broker")
#: A worker counts as seen for this long after its last announcement or claim.
WORKER_SEEN_WINDOW_SECONDS = 300.0
#: At most this many worker ids are remembered (worker ids come from the network).
MAX_REMEMBERED_WORKERS = 10_000


class _FrontRefusals(Collector):
    """``hamlet_front_refused_total{reason}``: the front process's own refusals (server.front),
    read from the file it writes at every scrape."""

    NAME = "hamlet_front_refused"
    HELP = (
        "Calls the front process refused itself, by reason (auth: an authentication "
        "cool-down; token: no token where one is needed; size: over 64 KiB before "
        "authentication)."
    )

    def __init__(self) -> None:
        self.counts: Callable[[], Mapping[str, int]] | None = None

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = CounterMetricFamily(self.NAME, self.HELP, labels=["reason"])
        counts = self.counts() if self.counts is not None else {}
        for reason in FRONT_REASONS:  # from 0, with or without a front (a rate needs a start)
            family.add_metric([reason], float(counts.get(reason, 0)))
        yield family

    def describe(self) -> Iterator[CounterMetricFamily]:
        yield CounterMetricFamily(self.NAME, self.HELP, labels=["reason"])


class _TournamentStates(Collector):
    """``hamlet_server_tournaments{state}``: read from the store at every scrape."""

    NAME = "hamlet_server_tournaments"
    HELP = "Tournaments by state (created, running, finished, cancelled)."

    def __init__(self) -> None:
        self.counts: Callable[[], Mapping[str, int]] | None = None

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(self.NAME, self.HELP, labels=["state"])
        if self.counts is not None:
            try:
                counts = self.counts()
            except Exception:  # a scrape must not fail with the database
                log.exception("could not count tournaments for the metrics")
                counts = {}
            for state, n in sorted(counts.items()):
                family.add_metric([state], float(n))
        yield family

    def describe(self) -> Iterator[GaugeMetricFamily]:
        yield GaugeMetricFamily(self.NAME, self.HELP, labels=["state"])


class WorkerSightings:
    """When each worker last announced itself or claimed a match (in memory, this process).

    Only the count of recently seen workers is exported: worker ids never become labels."""

    def __init__(
        self,
        window_seconds: float = WORKER_SEEN_WINDOW_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.window = window_seconds
        self.clock = clock
        self._lock = threading.Lock()
        self._last: dict[str, float] = {}

    def seen(self, worker_id: str) -> None:
        now = self.clock()
        with self._lock:
            self._last.pop(worker_id, None)  # re-inserted last: the dict stays oldest first
            self._last[worker_id] = now
            while len(self._last) > MAX_REMEMBERED_WORKERS:
                del self._last[next(iter(self._last))]

    def recent(self) -> int:
        """Workers seen within the window (older entries are forgotten)."""
        cutoff = self.clock() - self.window
        with self._lock:
            for worker_id in [w for w, t in self._last.items() if t < cutoff]:
                del self._last[worker_id]
            return len(self._last)


class ServerMetrics:
    """Every metric the server exports."""

    def __init__(
        self, registry: CollectorRegistry | None = None, sightings: WorkerSightings | None = None
    ) -> None:
        self.registry = REGISTRY if registry is None else registry
        r = self.registry
        self.sightings = WorkerSightings() if sightings is None else sightings
        self.grpc_calls = Counter(
            "hamlet_grpc_server_handled_total",
            "gRPC calls handled, by method and status code.",
            ["method", "code"],
            registry=r,
        )
        self.grpc_latency = Histogram(
            "hamlet_grpc_server_handling_seconds",
            "Time to handle a gRPC call (whole stream for streaming calls).",
            ["method"],
            buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60, 300),
            registry=r,
        )
        self.rate_limited = Counter(
            "hamlet_rate_limited_total",
            "Calls refused by a rate limit, by kind (auth: a failed-authentication cool-down, "
            "write, read: an expensive read).",
            ["kind"],
            registry=r,
        )
        self.refusals_unlogged = Counter(
            "hamlet_refusal_log_suppressed_total",
            "Refused calls not logged because their client was over the refusal-log rate.",
            registry=r,
        )
        self.matches_recorded = Counter(
            "hamlet_server_matches_finished_total",
            "Matches that became final, by game and outcome (completed, forfeit, failed).",
            ["game", "outcome"],
            registry=r,
        )
        self.duplicate_reports = Counter(
            "hamlet_server_duplicate_reports_total",
            "Reports for matches that were already final (redelivered or duplicate tasks).",
            registry=r,
        )
        self.matches_requeued = Counter(
            "hamlet_server_matches_requeued_total",
            "Matches sent to the queue again, by reason (void, lease, timeout, broker).",
            ["reason"],
            registry=r,
        )
        self.matches_enqueued = Counter(
            "hamlet_server_matches_enqueued_total",
            "Match tasks sent to the queue.",
            registry=r,
        )
        self.ladder_blocks = Counter(
            "hamlet_server_ladder_blocks_total",
            "Blocks the continuous ladder scheduled, by game.",
            ["game"],
            registry=r,
        )
        self.blocks_dispatched = Counter(
            "hamlet_server_blocks_dispatched_total",
            "Duplicate blocks the fair-share dispatcher sent to the queue, by kind of flow "
            "(user, ladder, system).",
            ["flow"],
            registry=r,
        )
        self.queue_depth = Gauge(
            "hamlet_match_queue_depth",
            "Match tasks waiting in the Redis queue (NaN when Redis does not answer).",
            registry=r,
        )

        self.tournaments = _TournamentStates()
        r.register(self.tournaments)
        self.front = _FrontRefusals()
        r.register(self.front)
        self.rating_fit_seconds = Histogram(
            "hamlet_server_rating_fit_seconds",
            "Time to fit a game's leaderboard (the rating fit and its intervals), by game.",
            ["game"],
            buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
            registry=r,
        )
        self.rating_fit_matches = Gauge(
            "hamlet_server_rating_fit_matches",
            "Rated matches in the last leaderboard fit, by game.",
            ["game"],
            registry=r,
        )
        self.rating_fit_pending = Gauge(
            "hamlet_server_rating_fit_pending_results",
            "Rated results recorded but not yet in the published leaderboard fit, by game.",
            ["game"],
            registry=r,
        )
        self.rating_fit_cpu = Counter(
            "hamlet_server_rating_fit_cpu_seconds_total",
            "CPU seconds spent in leaderboard fits (in the fitting process when there is one), "
            "by game.",
            ["game"],
            registry=r,
        )
        self.queue_latency = Histogram(
            "hamlet_server_queue_seconds",
            "Queue latency by stage: dispatch (sent to the queue -> claimed) and report "
            "(a worker's report received -> its matches final).",
            ["stage"],
            buckets=(0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 120, 600),
            registry=r,
        )
        self.store_latency = Histogram(
            "hamlet_server_store_seconds",
            "Time of one SQL statement of the store, by kind (select, insert, update, delete).",
            ["operation"],
            buckets=(0.0001, 0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5),
            registry=r,
        )
        self.workers_seen = Gauge(
            "hamlet_server_workers_seen",
            f"Workers that announced themselves or claimed a match in the last "
            f"{self.sightings.window:g} seconds.",
            registry=r,
        )
        self.workers_seen.set_function(lambda: float(self.sightings.recent()))
        for reason in REQUEUE_REASONS:
            self.matches_requeued.labels(reason)

    def start_at_zero(self, games: Iterable[str]) -> None:
        """Export every game's finished-match counters from 0, so that a rate (the alerts')
        counts the first matches too (a series that appears at 1 loses its first increase)."""
        for game in games:
            for outcome in OUTCOMES:
                self.matches_recorded.labels(game, outcome)

    def watch_queue(self, depth: Callable[[], int | None]) -> None:
        """Read the queue depth from ``depth`` at every scrape."""
        self.queue_depth.set_function(lambda: _nan_if_none(depth()))

    def watch_front(self, counts: Callable[[], Mapping[str, int]]) -> None:
        """Read the front process's refusals from ``counts`` at every scrape."""
        self.front.counts = counts

    def watch_tournaments(self, counts: Callable[[], Mapping[str, int]]) -> None:
        """Read the tournaments per state from ``counts`` at every scrape."""
        self.tournaments.counts = counts

    def fitted(self, game: str, seconds: float, matches: int) -> None:
        """Record one leaderboard fit."""
        self.rating_fit_seconds.labels(game=game).observe(seconds)
        self.rating_fit_matches.labels(game=game).set(matches)

    def fit_progress(self, game: str, pending: int, cpu_seconds: float) -> None:
        """Record a leaderboard's results awaiting a fit, and a fit's CPU time."""
        self.rating_fit_pending.labels(game=game).set(pending)
        self.rating_fit_cpu.labels(game=game).inc(cpu_seconds)

    def statement(self, operation: str, seconds: float) -> None:
        """Record one store statement."""
        self.store_latency.labels(operation=operation).observe(seconds)


def _nan_if_none(value: int | None) -> float:
    return math.nan if value is None else float(value)


def serve_metrics(port: int, host: str, registry: CollectorRegistry) -> tuple[WSGIServer, int]:
    """Start the ``/metrics`` HTTP endpoint; returns the server and the port it listens on."""
    server, _thread = start_http_server(port, addr=host, registry=registry)
    return server, int(server.server_port)
