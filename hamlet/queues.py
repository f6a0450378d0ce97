"""Which Celery queue a match goes on: the contract between the server and its workers.

A match whose uploaded bots need only Python (or no uploaded bot at all) goes on ``matches``;
one that needs other runtimes goes on ``matches.<runtime>+<runtime>`` (sorted). A worker
consumes the queue of every set of runtimes it has, so it only ever receives matches it can
run; a match needing a runtime no worker has waits (and the server's log says so).
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

MATCH_QUEUE = "matches"
#: Every worker can run these: the worker's own interpreter, and remote bots (a gRPC client,
#: no runtime on the worker at all).
BASE_RUNTIMES = frozenset({"python3", "builtin", "remote"})


def queue_for(runtimes: Iterable[str]) -> str:
    """The queue of a match whose seats need ``runtimes``."""
    extra = sorted(set(runtimes) - BASE_RUNTIMES)
    return MATCH_QUEUE if not extra else f"{MATCH_QUEUE}.{'+'.join(extra)}"


def queues_served(runtimes: Iterable[str]) -> list[str]:
    """The queues a worker with ``runtimes`` consumes: one per set of its extra runtimes."""
    extra = sorted(set(runtimes) - BASE_RUNTIMES)
    return [queue_for(c) for n in range(len(extra) + 1) for c in combinations(extra, n)]
