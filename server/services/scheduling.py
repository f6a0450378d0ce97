"""Sending matches to the worker queue, by Celery task name (never by importing workers).

Sending is at least once: a match is QUEUED in the database before its message is sent, and
the server sends it again, without counting an attempt, whenever its message may be lost
(see :mod:`server.services.recovery`). A send the broker refuses raises
:class:`~server.services.errors.UnavailableError`; callers that cannot answer a user with it
use :func:`send_quietly` and leave the match to be re-sent.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from server.config import MATCH_QUEUE, PLAY_MATCH_TASK
from server.services.errors import UnavailableError

log = logging.getLogger(__name__)

#: The queue of each match id (``Store.match_queues``): which workers can run it.
QueueLookup = Callable[[Sequence[str]], Mapping[str, str]]


class Enqueuer(Protocol):
    """Puts match ids on the match queue."""

    def enqueue(self, match_ids: Sequence[str]) -> None:
        """Send one ``hamlet.play_match`` task per id."""
        ...

    def queue_depth(self) -> int | None:
        """Messages waiting on the queue, ``None`` if unknown."""
        ...

    def broker_epoch(self) -> str | None:
        """Changes whenever the broker may have lost messages (it restarted, or a send
        failed since the last call); ``None`` while it does not answer."""
        ...


def send_quietly(enqueuer: Enqueuer, match_ids: Sequence[str]) -> bool:
    """Send, or log why not: the matches stay QUEUED and are re-sent when the broker is
    back (for callers with no user to tell, such as a worker's report)."""
    try:
        enqueuer.enqueue(match_ids)
    except UnavailableError as exc:
        log.warning("%s; they will be sent again when the broker answers", exc)
        return False
    return True


class CeleryEnqueuer:
    """``send_task("hamlet.play_match", [match_id], queue=...)`` on a Redis broker, on the
    queue of the runtimes the match needs (``hamlet.queues``; ``matches`` for Python only)."""

    def __init__(self, redis_url: str, queue_of: QueueLookup | None = None) -> None:
        import redis
        from celery import Celery

        self._redis = redis.Redis.from_url(redis_url, socket_timeout=1, socket_connect_timeout=1)
        self._app = Celery("hamlet-server", broker=redis_url)
        self._app.conf.broker_connection_retry_on_startup = True
        self._app.conf.broker_connection_timeout = 2
        self._lock = threading.Lock()
        self._queue_of = queue_of
        self._queues = {MATCH_QUEUE}

    def enqueue(self, match_ids: Sequence[str]) -> None:
        queues = self._queue_of(match_ids) if self._queue_of is not None else {}
        with self._lock, self._app.producer_or_acquire() as producer:
            for match_id in match_ids:
                queue = queues.get(match_id, MATCH_QUEUE)
                self._queues.add(queue)
                self._app.send_task(
                    PLAY_MATCH_TASK,
                    args=[match_id],
                    queue=queue,
                    task_id=f"{match_id}.{_attempt_suffix()}",
                    producer=producer,
                    # Fail fast: the caller is told, and the reaper sends again later.
                    retry=True,
                    retry_policy=_RETRY,
                )

    def queue_depth(self) -> int | None:
        import redis

        try:
            # Celery's Redis transport keeps a queue as a list named after it.
            return sum(int(self._redis.llen(q)) for q in sorted(self._queues))  # type: ignore[arg-type]
        except redis.RedisError:
            return None

    def broker_epoch(self) -> str | None:
        import redis

        try:
            info = self._redis.info("server")
        except redis.RedisError:
            return None
        return str(info.get("run_id", "")) if isinstance(info, dict) else None


_RETRY = {"max_retries": 2, "interval_start": 0.1, "interval_step": 0.2, "interval_max": 0.5}


def _attempt_suffix() -> str:
    import uuid

    return uuid.uuid4().hex[:8]


class MemoryEnqueuer:
    """Records what would be sent (tests, and servers run without a broker)."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self._lock = threading.Lock()

    def enqueue(self, match_ids: Sequence[str]) -> None:
        with self._lock:
            self.sent.extend(match_ids)

    def queue_depth(self) -> int | None:
        return len(self.sent)

    def broker_epoch(self) -> str | None:
        return "memory"
