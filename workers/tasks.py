"""The ``hamlet.play_block`` task (and the older ``hamlet.play_match``): thin, idempotent,
takes a duplicate block's match ids (or one match id).

It delegates to :func:`workers.blocks.execute_block` (:func:`workers.play.execute`) and only
translates: a server that cannot be
reached means a retry with exponential backoff and jitter (bounded); a match that hits
the soft time limit is reported void (the server re-queues it). Bot faults never reach
here: they are results. Each pool child keeps one channel to the server, made after the
fork (gRPC channels must not cross a fork).
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import random
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from celery import Celery, Task
from celery.exceptions import Reject, SoftTimeLimitExceeded

import games
from hamlet.timelimits import match_limit_s
from workers.blocks import execute_block
from workers.clients import CodeCache, SeatClients
from workers.config import PLAY_BLOCK_TASK, PLAY_MATCH_TASK, WorkerConfig
from workers.metrics import METRICS, MatchOutcome
from workers.model import MatchPlan
from workers.play import execute
from workers.reporting import (
    CredentialRefusedError,
    HostRejectedError,
    HostUnavailableError,
    MatchHostClient,
)
from workers.shutdown import credential_refused

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Context:
    """What one pool child reuses across tasks: a channel and the seat factory (no match state)."""

    pid: int
    worker_id: str
    host: MatchHostClient
    seats: SeatClients


_context: _Context | None = None


def _child_context(config: WorkerConfig) -> _Context:
    global _context
    if _context is None or _context.pid != os.getpid():
        host = config.host_client()
        seats = SeatClients(
            CodeCache(config.code_cache_dir, host.fetch_code), config.sandbox_limits()
        )
        _context = _Context(os.getpid(), config.name, host, seats)
    return _context


def retry_delay(retries: int, base: float, cap: float, rng: random.Random | None = None) -> float:
    """Exponential backoff with full jitter: uniform in [base/2, min(cap, base * 2**retries)]."""
    ceiling = min(cap, base * 2**retries)
    return (rng or random).uniform(min(base / 2, ceiling), ceiling)


def play_match(task: Task[Any, Any], match_id: str) -> str:
    """Body of the task (bound ``task``): claim, play, report; the outcome's value."""
    from workers.celery_app import worker_config

    config = worker_config(task.app)
    ctx = _child_context(config)
    try:
        return execute(
            match_id,
            ctx.host,
            ctx.seats,
            ctx.worker_id,
            METRICS,
            reraise=(SoftTimeLimitExceeded,),
            task_id=str(getattr(task.request, "id", "") or ""),
        ).value
    except SoftTimeLimitExceeded:
        log.warning("match %s hit the soft time limit: voiding it", match_id)
        ctx.host.void(match_id, ctx.worker_id, "the match exceeded the worker's soft time limit")
        METRICS.outcome("", MatchOutcome.VOIDED)
        return MatchOutcome.VOIDED.value
    except HostUnavailableError as exc:
        delay = retry_delay(
            task.request.retries, config.retry_backoff_base, config.retry_backoff_max
        )
        log.warning("match %s: server unreachable (%s); retrying in %.1fs", match_id, exc, delay)
        raise task.retry(exc=exc, countdown=delay, max_retries=config.max_task_retries) from exc
    except CredentialRefusedError as exc:
        raise _requeue(exc) from exc
    except HostRejectedError:
        log.exception("match %s: the server rejected a call; not retrying", match_id)
        return "rejected"


def play_block(task: Task[Any, Any], match_ids: list[str]) -> list[str]:
    """Body of the block task (bound ``task``): claim, play and report one duplicate block;
    each match's outcome value. A retry replays the block (what was recorded stays)."""
    from workers.celery_app import worker_config

    config = worker_config(task.app)
    ctx = _child_context(config)
    task_id = str(getattr(task.request, "id", "") or "")
    try:
        outcomes = execute_block(
            match_ids,
            ctx.host,
            ctx.seats,
            ctx.worker_id,
            METRICS,
            task_id=task_id,
            reraise=(SoftTimeLimitExceeded,),
            per_match=_limits(config),
        )
        return [o.value for o in outcomes]
    except SoftTimeLimitExceeded:
        log.warning("block %s hit the soft time limit: the rest was voided", task_id)
        return [MatchOutcome.VOIDED.value]
    except HostUnavailableError as exc:
        delay = retry_delay(
            task.request.retries, config.retry_backoff_base, config.retry_backoff_max
        )
        if task.request.retries >= config.max_task_retries:
            # Nothing is lost: the server sends the block's matches again once their lease
            # (claimed) or the queue timeout (not claimed) runs out.
            log.error("block %s: server unreachable, retries exhausted: %s", task_id, exc)
            return ["unreachable"]
        log.warning("block %s: server unreachable (%s); retrying in %.1fs", task_id, exc, delay)
        raise task.retry(exc=exc, countdown=delay, max_retries=config.max_task_retries) from exc
    except CredentialRefusedError as exc:
        raise _requeue(exc) from exc
    except HostRejectedError:
        log.exception("block %s: the server rejected a call; not retrying", task_id)
        return ["rejected"]


def _requeue(exc: CredentialRefusedError) -> Reject:
    """The server refused this worker's credential: stop the worker, and give the task back
    to the queue (rejected with requeue, not acked) for a worker the server accepts."""
    credential_refused(str(exc))
    return Reject(str(exc), requeue=True)


def _limits(config: WorkerConfig) -> Callable[[MatchPlan], AbstractContextManager[None]]:
    """Each match's soft limit in one block task: its own (:func:`match_soft_limit`), but
    never past what the block's hard limit leaves (less the configured gap between a
    match's soft and hard limits), so a match too long for the block is voided and
    reported, not killed with its child."""
    started = time.monotonic()
    gap = config.match_time_limit - config.match_soft_time_limit

    def limit(plan: MatchPlan) -> AbstractContextManager[None]:
        left = config.block_time_limit - (time.monotonic() - started) - gap
        return soft_limit(max(1.0, min(match_soft_limit(config, plan), left)))

    return limit


def match_soft_limit(config: WorkerConfig, plan: MatchPlan) -> float:
    """One match's soft limit: what its time control lets a legal match take (every
    decision's time and every bank used, with a margin: :mod:`hamlet.timelimits`), and never
    less than ``HAMLET_MATCH_SOFT_TIME_LIMIT``, so a slow but legal match is not voided."""
    try:
        max_decisions = games.get(plan.game).max_decisions
    except (KeyError, ValueError):  # unknown here: the match will be voided for it anyway
        return config.match_soft_time_limit
    legal = match_limit_s(max_decisions, len(plan.seats), plan.decision_time_s, plan.time_bank_s)
    return max(config.match_soft_time_limit, legal)


@contextlib.contextmanager
def soft_limit(seconds: float) -> Iterator[None]:
    """One match's soft time limit inside a block task: SoftTimeLimitExceeded is raised in
    this (the pool child's main) thread after ``seconds``, as Celery raises it for a task;
    the block task's own hard limit stays Celery's. Outside the main thread: no limit."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expired(_signum: int, _frame: object) -> None:
        raise SoftTimeLimitExceeded(f"a match of the block ran over {seconds:g}s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def register(app: Celery) -> None:
    """Register ``hamlet.play_block`` (and ``hamlet.play_match``, for messages sent by a
    server before blocks) on ``app``."""

    from workers.celery_app import worker_config

    config = worker_config(app)

    @app.task(  # type: ignore[untyped-decorator]
        name=PLAY_BLOCK_TASK,
        bind=True,
        acks_late=True,
        reject_on_worker_lost=True,
        shared=False,
        # The app's limits are a block's; each match has its own soft limit (soft_limit).
    )
    def hamlet_play_block(self: Task[Any, Any], match_ids: list[str]) -> list[str]:
        return play_block(self, list(match_ids))

    @app.task(  # type: ignore[untyped-decorator]
        name=PLAY_MATCH_TASK,
        bind=True,
        acks_late=True,
        reject_on_worker_lost=True,
        shared=False,  # one registration per app (tests make several)
        # one match: one match's limits (the app's are a block's)
        time_limit=math.ceil(config.match_time_limit),
        soft_time_limit=math.ceil(config.match_soft_time_limit),
    )
    def hamlet_play_match(self: Task[Any, Any], match_id: str) -> str:
        return play_match(self, match_id)
