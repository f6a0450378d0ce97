"""Why a worker stops, and its exit status: a worker that cannot do its job says so.

A worker that refuses to start (no credential, a bad setting, a visibility timeout too
short) exits with :data:`EXIT_REFUSED_TO_START`; one whose credential the server refuses
(UNAUTHENTICATED or PERMISSION_DENIED on a ``MatchHost`` call: the token was revoked,
expired or lacks the worker scope) stops consuming at once and exits with
:data:`EXIT_CREDENTIAL_REFUSED`, so a supervisor restarts it or an operator looks, instead
of a worker that takes every task and drops it.

The refusal is met in a pool child (the task, or the announcing thread); the child asks the
main process to stop with :data:`STOP_SIGNAL`, whose handler sets Celery's warm-shutdown
flag (``celery.worker.state.should_stop``, what SIGTERM sets): the consumer loop stops
taking messages on its next turn and the worker exits after its running tasks. The task
that met the refusal is rejected with requeue (``celery.exceptions.Reject``), never acked.
"""

from __future__ import annotations

import logging
import os
import signal
from types import FrameType

log = logging.getLogger(__name__)

#: Exit status of a worker that refused to start.
EXIT_REFUSED_TO_START = 2
#: Exit status of a worker whose credential the server refused.
EXIT_CREDENTIAL_REFUSED = 3
#: Sent by a pool child to the main process to stop the worker (SIGUSR1 is Celery's
#: traceback dump; SIGUSR2 is free unless CELERY_RDBSIG is set).
STOP_SIGNAL = signal.SIGUSR2

_exit_status = 0
_main_pid = 0


def exit_status() -> int:
    """The status the worker process should exit with (0 unless it was refused)."""
    return _exit_status


def refused_to_start(reason: str) -> None:
    """Record that the worker refuses to start (the caller then raises SystemExit)."""
    global _exit_status
    log.critical("worker start-up check failed: %s", reason)
    _exit_status = EXIT_REFUSED_TO_START


def install() -> None:
    """In the main process, before the pool forks: handle :data:`STOP_SIGNAL`."""
    global _main_pid
    _main_pid = os.getpid()
    signal.signal(STOP_SIGNAL, _on_stop_signal)


def _on_stop_signal(_signum: int, _frame: FrameType | None) -> None:
    stop(EXIT_CREDENTIAL_REFUSED)


def stop(status: int) -> None:
    """In the main process: stop consuming now (warm shutdown) and exit with ``status``."""
    global _exit_status
    from celery.worker import state

    _exit_status = _exit_status or status
    state.should_stop = status  # type: ignore[assignment]  # typed None in the stubs


def credential_refused(reason: str) -> None:
    """The server refused this worker's credential: count it, say so, stop the worker.

    Called in a pool child (signals the main process) or in the main process itself; a
    no-op beyond the log and the metric outside a worker started by :func:`install`."""
    from workers.metrics import METRICS

    METRICS.credential_refused.inc()
    log.critical(
        "the server refused this worker's credential (%s): stopping; set HAMLET_WORKER_TOKEN "
        "or HAMLET_WORKER_TOKEN_FILE to a valid token with the worker scope",
        reason,
    )
    if not _main_pid:
        return  # not a worker process started by ``python -m workers worker`` (tests)
    if os.getpid() == _main_pid:
        stop(EXIT_CREDENTIAL_REFUSED)
    elif os.getppid() == _main_pid:
        os.kill(_main_pid, STOP_SIGNAL)
