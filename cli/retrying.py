"""Creating calls that are safe to retry: a fresh client request id per command, the same
one on each of its retries, so a retry after a lost answer or a refused start returns the
event the first attempt made instead of a second one (``server/services/request_ids.py``)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

import grpc

R = TypeVar("R")

#: Answers worth another attempt with the same request id: the server, its store or its
#: broker may be back a moment later, and the id makes the retry return what exists.
RETRY_CODES = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})


def new_request_id() -> str:
    """A fresh client request id (one per command invocation)."""
    return str(uuid.uuid4())


def call_with_retries(
    method: Callable[..., R],
    request: Any,
    timeout: float,
    attempts: int = 3,
    wait_s: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
) -> R:
    """``method(request)``, tried up to ``attempts`` times (waiting ``wait_s``, doubling)
    while it answers UNAVAILABLE or DEADLINE_EXCEEDED; ``request`` carries its client request
    id, unchanged across the attempts. The last error is raised as it is."""
    for attempt in range(attempts):
        try:
            return method(request, timeout=timeout)
        except grpc.RpcError as exc:
            code = exc.code() if isinstance(exc, grpc.Call) else None
            if code not in RETRY_CODES or attempt == attempts - 1:
                raise
            sleep(wait_s * 2**attempt)
    raise AssertionError("unreachable")  # pragma: no cover
