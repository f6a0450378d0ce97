"""A worker whose credential the server refuses: the task goes back to the queue (rejected
with requeue, never acked), the worker is asked to stop, and it exits non-zero; so does a
worker that refuses to start. (The end-to-end case, with a revoked token, Redis and real
worker processes, is ``tests/integration/test_worker_faults.py``.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import grpc
import pytest
from celery.exceptions import Reject
from celery.worker import state

from workers import shutdown, tasks
from workers.clients import SeatClients
from workers.config import WorkerConfig
from workers.reporting import CredentialRefusedError, HostRejectedError, MatchHostClient


class _Refused(grpc.RpcError, grpc.Call):  # type: ignore[misc]
    def __init__(self, code: grpc.StatusCode) -> None:
        self._code = code

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return "the token was revoked"


@pytest.mark.parametrize(
    "code", [grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED]
)
def test_a_refused_credential_is_its_own_error(code: grpc.StatusCode) -> None:
    client = MatchHostClient("127.0.0.1:1", attempts=3)
    calls: list[object] = []

    def refuse(request: object, timeout: float) -> None:
        calls.append(request)
        raise _Refused(code)

    with pytest.raises(CredentialRefusedError, match=code.name):
        client._call(refuse, object())
    assert len(calls) == 1  # not retried
    client.close()


def test_a_block_refused_for_the_credential_is_requeued_and_stops_the_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = WorkerConfig()
    monkeypatch.setattr(
        tasks,
        "_child_context",
        lambda cfg: tasks._Context(0, "w", None, SeatClients()),  # type: ignore[arg-type]
    )
    monkeypatch.setattr("workers.celery_app.worker_config", lambda app: config)

    def refused(*args: Any, **kwargs: Any) -> list[object]:
        raise CredentialRefusedError("UNAUTHENTICATED: the token was revoked")

    monkeypatch.setattr(tasks, "execute_block", refused)
    # This process plays the worker's main process: the refusal stops it at once.
    monkeypatch.setattr(shutdown, "_main_pid", os.getpid())
    monkeypatch.setattr(shutdown, "_exit_status", 0)
    monkeypatch.setattr(state, "should_stop", None)
    task = SimpleNamespace(app=None, request=SimpleNamespace(retries=0, id="t-1"))
    before = shutdown_count()
    with pytest.raises(Reject) as raised:
        tasks.play_block(task, ["m-1", "m-2"])  # type: ignore[arg-type]
    assert raised.value.requeue is True
    assert state.should_stop == shutdown.EXIT_CREDENTIAL_REFUSED
    assert shutdown.exit_status() == shutdown.EXIT_CREDENTIAL_REFUSED
    assert shutdown_count() == before + 1


def test_another_rejection_is_not_a_credential_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    config = WorkerConfig()
    monkeypatch.setattr(
        tasks,
        "_child_context",
        lambda cfg: tasks._Context(0, "w", None, SeatClients()),  # type: ignore[arg-type]
    )
    monkeypatch.setattr("workers.celery_app.worker_config", lambda app: config)

    def rejected(*args: Any, **kwargs: Any) -> list[object]:
        raise HostRejectedError("INVALID_ARGUMENT: bad report")

    monkeypatch.setattr(tasks, "execute_block", rejected)
    monkeypatch.setattr(state, "should_stop", None)
    task = SimpleNamespace(app=None, request=SimpleNamespace(retries=0, id="t-2"))
    assert tasks.play_block(task, ["m-1"]) == ["rejected"]  # type: ignore[arg-type]
    assert state.should_stop is None


def test_a_worker_that_refuses_to_start_exits_non_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    from workers.__main__ import main

    for name in ("HAMLET_WORKER_TOKEN", "HAMLET_WORKER_TOKEN_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HAMLET_VISIBILITY_TIMEOUT", "1")  # far below twice the hard limit
    assert main(["worker"]) == 2


def shutdown_count() -> float:
    from workers.metrics import METRICS

    return float(METRICS.credential_refused._value.get())


def test_a_worker_without_a_token_refuses_to_start_with_status_2(tmp_path: Path) -> None:
    """The refusal in Celery's start-up hook (which Celery's worker_main used to turn into 0)."""
    refused = _refused_start(
        tmp_path,
        HAMLET_WORKER_TOKEN="",
        HAMLET_REDIS_URL="redis://127.0.0.1:1/0",
        HAMLET_WORKER_METRICS_PORT="-1",
    )
    assert "no worker token" in refused


def _refused_start(tmp_path: Path, **env: str) -> str:
    """Start a worker with ``env`` over this one's; it must refuse to start (status 2). Its
    output."""
    whole = {k: v for k, v in os.environ.items() if k != "HAMLET_WORKER_TOKEN_FILE"}
    whole.update(env, PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"))
    done = subprocess.run(
        [sys.executable, "-m", "workers", "worker"],
        env=whole,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == shutdown.EXIT_REFUSED_TO_START, done.stderr[-3000:]
    return done.stdout + done.stderr


def test_a_worker_whose_metrics_port_is_taken_refuses_to_start(tmp_path: Path) -> None:
    """Celery swallows a start-up hook's exception: the worker must not play on without the
    endpoint its health check reads."""
    import socket

    from tests.integration.stack import running_redis

    with running_redis(tmp_path) as redis, socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        refused = _refused_start(
            tmp_path,
            HAMLET_WORKER_TOKEN="hmw_0123456789ab_" + "s" * 43,
            HAMLET_REDIS_URL=f"redis://127.0.0.1:{redis.port}/0",
            HAMLET_WORKER_METRICS_PORT=str(taken.getsockname()[1]),
        )
    assert "cannot serve metrics on port" in refused
