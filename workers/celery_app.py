"""The Celery app factory and the worker's start-up checks.

Settings follow the contract with the server (task ``hamlet.play_match``, queue
``matches``, Redis broker from ``HAMLET_REDIS_URL``) and Celery's advice for long tasks:
late acks, prefetch 1, ``task_reject_on_worker_lost`` (a task whose child dies goes
back to the queue), hard and soft time limits, and a Redis visibility timeout well above
the hard limit, read back from the live transport at start-up (Celery silently
re-delivers a task that outlives it, and a misspelt option is silently ignored).

Signals: the main process checks the visibility timeout and the sandbox (logging its tier,
and why uploaded bots are refused if they are), and starts the aggregated
metrics endpoint (``celeryd_after_setup``: logging is up, the pool not yet forked); each
pool child announces the worker's built-in bots to the server (``worker_process_init``, in
a background thread that retries while the server is not up yet, and announces again every
minute: the server's count of workers seen) and is marked dead for
the metrics when it exits (``worker_process_shutdown``). Once the consumer runs
(``worker_ready``), the main process keeps it on the queues this worker can run
(:mod:`workers.capacity`), moving it with Celery's remote control (:class:`CeleryConsumer`).
"""

from __future__ import annotations

import logging
import os
import random
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from celery import Celery, signals

from bots import registry
from workers import shutdown
from workers.capacity import HEALTH, QueueSteward, current_report
from workers.config import (
    BLOCK_MATCHES,
    MATCH_QUEUE,
    PLAY_BLOCK_TASK,
    PLAY_MATCH_TASK,
    WorkerConfig,
    check_visibility_timeout,
)
from workers.reporting import Announced, CredentialRefusedError, HostUnavailableError
from workers.sandbox_check import SandboxReport, available_runtimes

log = logging.getLogger(__name__)


def create_app(config: WorkerConfig) -> Celery:
    """A Celery app for ``config`` with the ``hamlet.play_match`` task registered."""
    app = Celery("hamlet-worker", broker=config.redis_url, set_as_current=True)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        # A block task's limits (hamlet.play_match sets one match's on itself); each match
        # of a block still has its own soft limit (workers.tasks.soft_limit).
        task_time_limit=config.block_time_limit,
        task_soft_time_limit=config.match_soft_time_limit * BLOCK_MATCHES,
        broker_transport_options={"visibility_timeout": config.visibility_timeout},
        broker_connection_retry_on_startup=True,
        # A lost broker connection does not stop a running block: it is played to the end and
        # reported over gRPC (which needs no broker), so its claims never wait out a lease; its
        # message, redelivered or re-sent, then finds the matches final. (Cancelling it would
        # leave every claim of the block to expire.)
        worker_cancel_long_running_tasks_on_connection_loss=False,
        task_default_queue=MATCH_QUEUE,
        task_routes={
            PLAY_MATCH_TASK: {"queue": MATCH_QUEUE},
            PLAY_BLOCK_TASK: {"queue": MATCH_QUEUE},
        },
        task_ignore_result=True,
        task_serializer="json",
        accept_content=["json"],
        worker_concurrency=config.concurrency,
        worker_send_task_events=True,
        task_send_sent_event=True,
        worker_hijack_root_logger=False,
    )
    app.conf.hamlet_worker_config = config
    from workers import tasks  # registers the task on this app

    tasks.register(app)
    return app


def worker_config(app: Celery) -> WorkerConfig:
    """The :class:`WorkerConfig` an app was made with."""
    config = app.conf.get("hamlet_worker_config")
    if not isinstance(config, WorkerConfig):
        raise RuntimeError("this Celery app was not made by workers.celery_app.create_app")
    return config


def effective_visibility_timeout(app: Celery) -> float:
    """The visibility timeout the live Redis transport really uses (connects to Redis)."""
    with app.connection_for_write() as conn:
        return float(getattr(conn.default_channel, "visibility_timeout", 0.0))


def check_startup(app: Celery) -> None:
    """Refuse to start without a worker token, or if the effective visibility timeout is
    below twice the hard limit."""
    config = worker_config(app)
    config.require_token()
    effective = effective_visibility_timeout(app)
    check_visibility_timeout(effective, config.block_time_limit)
    log.info(
        "visibility timeout %.0fs, match hard limit %.0fs, soft %.0fs",
        effective,
        config.match_time_limit,
        config.match_soft_time_limit,
    )


def builtin_bots() -> list[Announced]:
    """The built-in bots this worker can play, with their games."""
    return [
        Announced(name, tuple(registry.games_for(name)), registry.get(name).description)
        for name in registry.names()
        if registry.games_for(name)
    ]


def check_sandbox(config: WorkerConfig) -> SandboxReport:
    """Check the sandbox once; log the tier and, if uploaded bots are refused, why."""
    report = current_report(config.sandbox_limits())
    for line in report.lines():
        log.info("sandbox: %s", line)
    if not report.plays_uploaded:
        log.error("sandbox: uploaded bots are refused: %s", report.why_refused())
    elif report.unrated:
        log.warning("sandbox: HAMLET_SANDBOX=insecure: uploaded bots run unsandboxed, unrated")
    return report


#: A pool child announces itself again this often, so the server counts an idle worker as seen
#: (``hamlet_server_workers_seen``).
ANNOUNCE_INTERVAL_S = 60.0


def keep_announcing(
    config: WorkerConfig,
    interval_s: float = ANNOUNCE_INTERVAL_S,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Announce, then announce again every ``interval_s`` seconds (a daemon thread's loop)."""
    announce(config)
    while True:
        sleep(interval_s)
        announce(config, attempts=1, again=True)


def process_name() -> str:
    """This pool process, as the server counts processes: ``host:pid``."""
    return f"{socket.gethostname()}:{os.getpid()}"


def announce(
    config: WorkerConfig, attempts: int = 60, wait_s: float = 1.0, again: bool = False
) -> bool:
    """Announce this worker's built-in bots and runtimes, retrying while the server is down."""
    rng = random.Random()
    bots = builtin_bots()
    report = current_report(config.sandbox_limits())
    runtimes = available_runtimes(config.sandbox_limits()) if report.plays_uploaded else []
    for attempt in range(attempts):
        try:
            with config.host_client(attempts=1) as host:
                host.announce(
                    config.name, bots, runtimes, report.tier.value, process=process_name()
                )
            log.log(
                logging.DEBUG if again else logging.INFO,
                "announced built-in bots %s, runtimes %s",
                [b.name for b in bots],
                runtimes,
            )
            return True
        except HostUnavailableError as exc:
            delay = min(30.0, wait_s * 2 ** min(attempt, 5)) * rng.uniform(0.5, 1.5)
            log.info("server not reachable yet (%s); announcing again in %.1fs", exc, delay)
            time.sleep(delay)
        except CredentialRefusedError as exc:
            shutdown.credential_refused(str(exc))
            return False
        except Exception:
            log.exception("announcing the worker failed")
            return False
    return False


@signals.celeryd_after_setup.connect
def _on_worker_setup(instance: Any = None, **_: Any) -> None:
    # After logging is set up and before the pool starts, in the main process.
    app = getattr(instance, "app", None)
    if not isinstance(app, Celery) or app.conf.get("hamlet_worker_config") is None:
        return
    try:
        check_startup(app)
    except Exception as exc:
        shutdown.refused_to_start(str(exc))
        raise SystemExit(f"hamlet worker: {exc}") from exc
    shutdown.install()
    from workers import metrics

    metrics.METRICS.tier(check_sandbox(worker_config(app)).tier.value)
    wanted = worker_config(app).metrics_port
    try:
        port = metrics.serve(wanted, lambda: (HEALTH.ok, HEALTH.detail))
    except OSError as exc:
        # Celery logs and swallows a signal handler's exception: without this the worker
        # would play on with no metrics and a health check that never passes.
        why = (
            f"cannot serve metrics on port {wanted} ({exc.strerror or exc}); free the port "
            "or set HAMLET_WORKER_METRICS_PORT (0 picks a free one, -1 turns the endpoint off)"
        )
        shutdown.refused_to_start(why)
        raise SystemExit(f"hamlet worker: {why}") from exc
    if port >= 0:
        log.info("worker metrics on :%d/metrics", port)


class CeleryConsumer:
    """Moves this worker's own consumer with Celery's remote control (addressed to its
    hostname alone; the consumer loop carries the change out)."""

    def __init__(self, app: Celery, hostname: str) -> None:
        self.app = app
        self.hostname = hostname

    def add(self, queue: str) -> bool:
        """Start consuming ``queue``; whether the worker confirmed it."""
        return self._control("add_consumer", queue)

    def cancel(self, queue: str) -> bool:
        """Stop consuming ``queue``; whether the worker confirmed it."""
        return self._control("cancel_consumer", queue)

    def _control(self, command: str, queue: str) -> bool:
        try:
            replies = getattr(self.app.control, command)(
                queue, destination=[self.hostname], reply=True, timeout=10
            )
        except Exception as exc:  # the broker is away: the steward tries again
            log.warning("%s %s failed: %s", command, queue, exc)
            return False
        return bool(replies)


_steward_stop = threading.Event()


@signals.worker_ready.connect
def _on_worker_ready(sender: Any = None, **_: Any) -> None:
    # In the main process once the consumer runs: keep it on the queues it can play.
    app = getattr(sender, "app", None)
    if not isinstance(app, Celery) or app.conf.get("hamlet_wanted_queues") is None:
        return
    from workers import metrics

    steward = QueueSteward(
        worker_config(app).sandbox_limits(),
        app.conf.hamlet_wanted_queues,
        app.conf.hamlet_consuming,
        CeleryConsumer(app, str(getattr(sender, "hostname", ""))),
        metrics.METRICS,
    )
    threading.Thread(
        target=steward.run, args=(_steward_stop,), name="queue-steward", daemon=True
    ).start()


@signals.worker_shutting_down.connect
def _on_worker_shutting_down(**_: Any) -> None:
    _steward_stop.set()


@signals.worker_process_init.connect
def _on_child_init(**_: Any) -> None:
    from celery import current_app

    from workers.cgroups import sweep_stale
    from workers.sandbox import sweep_stale_dirs

    config = current_app.conf.get("hamlet_worker_config")
    if isinstance(config, WorkerConfig):
        removed = sweep_stale_dirs() + sweep_stale(config.sandbox_cgroup)
        if removed:
            log.info("removed %d sandbox directories and cgroups left by dead workers", removed)
        threading.Thread(
            target=keep_announcing, args=(config,), name="announce", daemon=True
        ).start()


@signals.worker_process_shutdown.connect
def _on_child_shutdown(pid: int | None = None, **_: Any) -> None:
    from workers import metrics

    metrics.mark_process_dead(pid or os.getpid())
