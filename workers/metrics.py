"""The worker's Prometheus metrics, defined once; base units, ``_total`` counters, bounded labels.

Celery's prefork pool runs matches in child processes, so the worker uses
prometheus_client's **multiprocess mode**: ``python -m workers worker`` sets
``PROMETHEUS_MULTIPROC_DIR`` to a fresh, emptied directory before anything imports
prometheus_client; every child writes its samples there; a child that exits is marked
dead (``worker_process_shutdown``); and the main process serves one aggregated
``/metrics`` on ``HAMLET_WORKER_METRICS_PORT`` (default 9465). Labels are the game, the
bot kind, the outcome and the forfeit reason: no match or bot ids.
"""

from __future__ import annotations

import enum
import os

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    multiprocess,
    start_http_server,
)

from workers.model import BotKind, MatchPlan, MatchRecord

_DURATION_BUCKETS = (0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800)
_DECISION_BUCKETS = (0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10)


class MatchOutcome(enum.Enum):
    """What became of one execution of ``play_match`` (a closed set: a metric label)."""

    #: Played and recorded by this execution.
    RECORDED = "recorded"
    #: Played, but the server already had a result (a duplicate execution).
    DUPLICATE = "duplicate"
    #: Already final when claimed: nothing played (a redelivered task).
    ALREADY_FINAL = "already_final"
    #: Unknown or cancelled match: nothing played.
    GONE = "gone"
    #: An infrastructure fault: reported void, the server re-queues it.
    VOIDED = "voided"


class WorkerMetrics:
    """The worker's metric objects, registered in ``registry`` (tests pass a fresh one)."""

    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.matches = Counter(
            "hamlet_worker_matches_total",
            "Executions of play_match by game and outcome.",
            ["game", "outcome"],
            registry=registry,
        )
        self.match_duration = Histogram(
            "hamlet_worker_match_duration_seconds",
            "Wall time of played matches.",
            ["game"],
            buckets=_DURATION_BUCKETS,
            registry=registry,
        )
        self.decision_latency = Histogram(
            "hamlet_worker_decision_seconds",
            "Time a bot took to answer one decision, by bot kind.",
            ["kind"],
            buckets=_DECISION_BUCKETS,
            registry=registry,
        )
        self.forfeits = Counter(
            "hamlet_worker_forfeits_total",
            "Seats that forfeited, by game and reason.",
            ["game", "reason"],
            registry=registry,
        )

        self.sandbox_tier = Gauge(
            "hamlet_worker_sandbox_tier",
            "1 for the sandbox tier this worker runs uploaded bots in (refused: none).",
            ["tier"],
            registry=registry,
            multiprocess_mode="max",
        )
        self.credential_refused = Counter(
            "hamlet_worker_credential_refused_total",
            "Calls the server refused for this worker's credential (the worker then stops).",
            registry=registry,
        )
        self.unrated = Counter(
            "hamlet_worker_unrated_matches_total",
            "Matches reported unrated (an uploaded bot ran without the full sandbox).",
            ["game"],
            registry=registry,
        )

    def tier(self, tier: str) -> None:
        """Export the sandbox tier in use (a closed set of values)."""
        self.sandbox_tier.labels(tier=tier).set(1)

    def outcome(self, game: str, outcome: MatchOutcome) -> None:
        """Count one execution."""
        self.matches.labels(game=game or "unknown", outcome=outcome.value).inc()

    def played(self, plan: MatchPlan, record: MatchRecord) -> None:
        """Record a played match's duration, decision latencies and forfeits."""
        self.match_duration.labels(game=plan.game).observe(record.duration_s)
        kinds = [seat.kind for seat in plan.seats]
        for decision in record.decisions:
            if not decision.by_fallback:
                kind = kinds[decision.player] if decision.player < len(kinds) else BotKind.BUILTIN
                self.decision_latency.labels(kind=kind.value).observe(decision.seconds)
        if record.unrated:
            self.unrated.labels(game=plan.game).inc()
        for forfeit in record.forfeits:
            self.forfeits.labels(game=plan.game, reason=forfeit.reason.value).inc()


#: The worker's metrics in the default registry (per process; aggregated in multiprocess mode).
METRICS = WorkerMetrics()


def serve(port: int) -> int:
    """Serve ``/metrics`` on ``port`` (0: any free port); returns the port, -1 if disabled.

    In multiprocess mode the endpoint aggregates every process's samples.
    """
    if port < 0:
        return -1
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry = REGISTRY
    server, _ = start_http_server(port, registry=registry)
    return int(server.server_port)


def mark_process_dead(pid: int) -> None:
    """Forget a dead child's live gauges (multiprocess mode only)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]
