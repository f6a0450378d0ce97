"""The server's Prometheus metrics, defined once, on an injectable registry.

Base units, ``_total`` counters, bounded labels only (gRPC method names, status codes, game
names, outcomes; never match or bot ids). Tests pass a fresh ``CollectorRegistry``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from wsgiref.simple_server import WSGIServer

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    start_http_server,
)

#: Outcomes of a recorded match.
OUTCOMES = ("completed", "forfeit", "failed")


class ServerMetrics:
    """Every metric the server exports."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = REGISTRY if registry is None else registry
        r = self.registry
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
            "Matches sent to the queue again, by reason (void, lease).",
            ["reason"],
            registry=r,
        )
        self.matches_enqueued = Counter(
            "hamlet_server_matches_enqueued_total",
            "Match tasks sent to the queue.",
            registry=r,
        )
        self.queue_depth = Gauge(
            "hamlet_match_queue_depth",
            "Match tasks waiting in the Redis queue (NaN when Redis does not answer).",
            registry=r,
        )

    def watch_queue(self, depth: Callable[[], int | None]) -> None:
        """Read the queue depth from ``depth`` at every scrape."""
        self.queue_depth.set_function(lambda: _nan_if_none(depth()))


def _nan_if_none(value: int | None) -> float:
    return math.nan if value is None else float(value)


def serve_metrics(port: int, host: str, registry: CollectorRegistry) -> tuple[WSGIServer, int]:
    """Start the ``/metrics`` HTTP endpoint; returns the server and the port it listens on."""
    server, _thread = start_http_server(port, addr=host, registry=registry)
    return server, int(server.server_port)
