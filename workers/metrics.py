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
import threading
from collections.abc import Callable, Iterable
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    make_wsgi_app,
    multiprocess,
)
from prometheus_client.exposition import ThreadingWSGIServer

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
        self.sandbox_ok = Gauge(
            "hamlet_worker_sandbox_ok",
            "1 while the worker's last sandbox check passed, 0 while it consumes nothing.",
            registry=registry,
            multiprocess_mode="livemax",
        )
        self.queues_refused = Gauge(
            "hamlet_worker_queues_refused",
            "Queues this worker should consume but does not: its sandbox or a runtime failed.",
            registry=registry,
            multiprocess_mode="livemax",
        )
        self.queues_consumed = Gauge(
            "hamlet_worker_queues_consumed",
            "Match queues this worker consumes now.",
            registry=registry,
            multiprocess_mode="livemax",
        )
        self.pauses = Counter(
            "hamlet_worker_pauses_total",
            "Matches voided because the worker itself was paused (stopped, frozen) while a "
            "bot's clock ran: not the bot's time.",
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

    def capacity(self, sandbox_ok: bool, refused: int, consumed: int) -> None:
        """Export what the worker can play now (:mod:`workers.capacity`)."""
        self.sandbox_ok.set(1 if sandbox_ok else 0)
        self.queues_refused.set(refused)
        self.queues_consumed.set(consumed)

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


def serve(port: int, health: Callable[[], tuple[bool, str]] | None = None) -> int:
    """Serve ``/metrics`` (and ``/healthz``: 200, or 503 with the reason when ``health``
    says the worker cannot play what it should) on ``port`` (0: any free port); returns
    the port, -1 if disabled.

    In multiprocess mode the endpoint aggregates every process's samples.
    """
    if port < 0:
        return -1
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry = REGISTRY
    metrics_app = make_wsgi_app(registry)

    def app(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == "/healthz":
            ok, detail = health() if health is not None else (True, "ok")
            status = "200 OK" if ok else "503 Service Unavailable"
            start_response(status, [("Content-Type", "text/plain; charset=utf-8")])
            return [f"{'ok' if ok else 'unhealthy'}: {detail}\n".encode()]
        return metrics_app(environ, start_response)  # type: ignore[no-any-return]

    class _Quiet(WSGIRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = make_server("0.0.0.0", port, app, ThreadingWSGIServer, handler_class=_Quiet)
    threading.Thread(target=httpd.serve_forever, name="metrics", daemon=True).start()
    return int(httpd.server_port)


def mark_process_dead(pid: int) -> None:
    """Forget a dead child's live gauges (multiprocess mode only)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]
