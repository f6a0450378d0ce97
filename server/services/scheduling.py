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

from server.config import MATCH_QUEUE, PLAY_BLOCK_TASK
from server.services.errors import UnavailableError

log = logging.getLogger(__name__)

#: The queue (which workers can run it) and the duplicate block of each match id
#: (``Store.match_routes``), in rotation order.
RouteLookup = Callable[[Sequence[str]], Mapping[str, tuple[str, str]]]


class Enqueuer(Protocol):
    """Puts match ids on the match queue."""

    def enqueue(self, match_ids: Sequence[str]) -> None:
        """Send the ids, one ``hamlet.play_block`` task per duplicate block among them."""
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
    """``send_task("hamlet.play_block", [match_ids], queue=...)`` on a Redis broker: one task
    per duplicate block (the unit of work: its rotations share a seed and are played by one
    worker), on the queue of the runtimes the block needs (``hamlet.queues``; ``matches``
    for Python only)."""

    def __init__(self, redis_url: str, route_of: RouteLookup | None = None) -> None:
        import redis
        from celery import Celery

        self._redis = redis.Redis.from_url(redis_url, socket_timeout=1, socket_connect_timeout=1)
        self._app = Celery("hamlet-server", broker=redis_url)
        self._app.conf.broker_connection_retry_on_startup = True
        self._app.conf.broker_connection_timeout = 2
        self._lock = threading.Lock()
        self._route_of = route_of
        self._queues = {MATCH_QUEUE}

    def enqueue(self, match_ids: Sequence[str]) -> None:
        with self._lock, self._app.producer_or_acquire() as producer:
            for (queue, block), ids in blocks_of(match_ids, self._route_of).items():
                self._queues.add(queue)
                self._app.send_task(
                    PLAY_BLOCK_TASK,
                    args=[ids],
                    queue=queue,
                    task_id=f"{block}.{_attempt_suffix()}",
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


def blocks_of(
    match_ids: Sequence[str], route_of: RouteLookup | None
) -> dict[tuple[str, str], list[str]]:
    """The ids grouped by (queue, duplicate block), each group in rotation order; without
    a lookup every match is a block of its own on the default queue."""
    if route_of is None:
        return {(MATCH_QUEUE, mid): [mid] for mid in match_ids}
    routes = route_of(match_ids)
    wanted = set(match_ids)
    out: dict[tuple[str, str], list[str]] = {}
    for mid, route in routes.items():  # the lookup's order: by rotation
        if mid in wanted:
            out.setdefault(route, []).append(mid)
    for mid in match_ids:  # unknown to the lookup: sent alone (the claim will say why)
        if mid not in routes:
            out.setdefault((MATCH_QUEUE, mid), []).append(mid)
    return out


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
