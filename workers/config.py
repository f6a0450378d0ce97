"""Worker settings: built once from the environment into a frozen, validated dataclass.

Nothing reads the environment at import time; call :meth:`WorkerConfig.from_env`.
"""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from hamlet.channels import read_token_file
from workers.tokenfile import first_token

if TYPE_CHECKING:
    from workers.reporting import MatchHostClient

from workers.sandbox import SandboxLimits, SandboxMode

#: The Celery task and queue (the contract with the server, which enqueues by name).
PLAY_MATCH_TASK = "hamlet.play_match"
#: What the server sends: one duplicate block (its match ids), the unit of work.
PLAY_BLOCK_TASK = "hamlet.play_block"
#: Matches in the largest duplicate block (a 4-seat table's rotations): a block task's hard
#: time limit is this many times one match's.
BLOCK_MATCHES = 4
MATCH_QUEUE = "matches"


class ConfigError(ValueError):
    """An environment variable has a value the worker cannot use."""


@dataclass(frozen=True, slots=True)
class WorkerConfig:
    """Everything a worker needs. Times in seconds."""

    redis_url: str = "redis://127.0.0.1:6379/0"
    server_addr: str = "127.0.0.1:50051"
    metrics_port: int = 9465  # 0 picks a free port; -1 disables the endpoint
    concurrency: int = 2
    #: Hard limit of one task (one match); the child is killed past it.
    match_time_limit: float = 600.0
    #: Soft limit: the match is voided (infrastructure) and re-queued by the server.
    match_soft_time_limit: float = 540.0
    #: Redis re-delivers an unacked task after this long: must be well above the hard limit.
    visibility_timeout: float = 5400.0
    #: Deadline of each call to the server.
    rpc_timeout: float = 10.0
    #: Attempts of one call to the server before the task itself retries.
    rpc_attempts: int = 3
    #: Task retries (with exponential backoff and jitter) while the server is unreachable.
    max_task_retries: int = 8
    retry_backoff_base: float = 2.0
    retry_backoff_max: float = 120.0
    #: Uploaded bots' code, cached by SHA-256.
    code_cache_dir: Path = Path(tempfile.gettempdir()) / "hamlet-bot-code"
    sandbox_memory_bytes: int = 1 << 30
    sandbox_cpu_seconds: int = 600
    #: strict (every guarantee or no uploaded bots) or insecure (local development, unrated).
    sandbox_mode: SandboxMode = SandboxMode.STRICT
    #: A cgroup directory delegated to the worker's uid ("" = below its own cgroup).
    sandbox_cgroup: str = ""
    worker_name: str = ""
    #: The worker credential (a token with the ``worker`` scope) for ``MatchHost``.
    worker_token: str = field(default="", repr=False)
    #: Where the token came from (HAMLET_WORKER_TOKEN_FILE): re-read when it changes, so a
    #: rotated token is used without a restart (workers.tokenfile).
    worker_token_file: Path | None = None
    #: CA certificate (PEM) to verify the server's TLS certificate; None: plaintext.
    tls_ca: Path | None = None

    @property
    def block_time_limit(self) -> float:
        """The hard time limit of a block task: one match's, for every match of the largest
        block (each match still gets its own soft limit)."""
        return self.match_time_limit * BLOCK_MATCHES

    def validate(self) -> None:
        """Raise :class:`ConfigError` naming the first bad value."""
        if not self.redis_url.startswith(("redis://", "rediss://", "unix://")):
            raise ConfigError(f"HAMLET_REDIS_URL must be a redis:// URL, not {self.redis_url!r}")
        host, _, port = self.server_addr.rpartition(":")
        local = self.server_addr.startswith("unix:/")  # the server's private socket
        if not local and (not host or not port.isdigit()):
            raise ConfigError(
                f"HAMLET_SERVER_ADDR must be host:port (or unix:/path), not {self.server_addr!r}"
            )
        if not -1 <= self.metrics_port <= 65535:
            raise ConfigError(
                f"HAMLET_WORKER_METRICS_PORT must be -1..65535, not {self.metrics_port}"
            )
        if self.concurrency < 1:
            raise ConfigError("HAMLET_WORKER_CONCURRENCY must be at least 1")
        if not 0 < self.match_soft_time_limit < self.match_time_limit:
            raise ConfigError(
                "need 0 < HAMLET_MATCH_SOFT_TIME_LIMIT < HAMLET_MATCH_TIME_LIMIT, got "
                f"{self.match_soft_time_limit} and {self.match_time_limit}"
            )
        check_visibility_timeout(self.visibility_timeout, self.block_time_limit)
        if self.rpc_timeout <= 0 or self.rpc_attempts < 1 or self.max_task_retries < 0:
            raise ConfigError("RPC timeout, attempts and task retries must be positive")
        if self.sandbox_memory_bytes < 64 << 20 or self.sandbox_cpu_seconds < 1:
            raise ConfigError("sandbox limits too small (memory >= 64 MiB, CPU >= 1 s)")
        if self.tls_ca is not None and not self.tls_ca.is_file():
            raise ConfigError(f"HAMLET_TLS_CA: no such file {self.tls_ca}")

    def require_token(self) -> None:
        """Refuse to run without a worker credential: the server would refuse every call."""
        if not self.worker_token:
            raise ConfigError(
                "no worker token: set HAMLET_WORKER_TOKEN or HAMLET_WORKER_TOKEN_FILE to a token "
                "with the worker scope (`hamlet token create --scope worker`; `hamlet up` and "
                "`hamlet server` keep one in <data dir>/worker.token)"
            )

    def host_client(self, attempts: int | None = None) -> MatchHostClient:
        """A ``MatchHost`` client with this worker's address, credential and deadlines."""
        from workers.reporting import MatchHostClient
        from workers.tokenfile import TokenFile

        token = self.worker_token
        return MatchHostClient(
            self.server_addr,
            token=TokenFile(self.worker_token_file, token).current
            if self.worker_token_file is not None
            else token,
            ca_file=self.tls_ca,
            timeout_s=self.rpc_timeout,
            attempts=self.rpc_attempts if attempts is None else attempts,
        )

    def sandbox_limits(self) -> SandboxLimits:
        """The limits and mode of the sandbox for uploaded bots."""
        return SandboxLimits(
            memory_bytes=self.sandbox_memory_bytes,
            cpu_seconds=self.sandbox_cpu_seconds,
            mode=self.sandbox_mode,
            cgroup_parent=self.sandbox_cgroup,
        )

    @property
    def name(self) -> str:
        """This worker's name (host and pid unless set)."""
        return self.worker_name or f"{socket.gethostname()}:{os.getpid()}"

    def with_(self, **changes: object) -> WorkerConfig:
        """A copy with some fields changed (validated again)."""
        out = replace(self, **changes)  # type: ignore[arg-type]
        out.validate()
        return out

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> WorkerConfig:
        """Config from ``HAMLET_*`` variables (``os.environ`` by default)."""
        env = os.environ if env is None else env
        d = cls()

        def num(name: str, default: float, kind: type[int] | type[float] = float) -> float:
            raw = env.get(name, "")
            if raw == "":
                return default
            try:
                return kind(raw)
            except ValueError:
                raise ConfigError(f"{name} must be a number, not {raw!r}") from None

        out = cls(
            redis_url=env.get("HAMLET_REDIS_URL") or d.redis_url,
            server_addr=env.get("HAMLET_SERVER_ADDR") or d.server_addr,
            metrics_port=int(num("HAMLET_WORKER_METRICS_PORT", d.metrics_port, int)),
            concurrency=int(num("HAMLET_WORKER_CONCURRENCY", d.concurrency, int)),
            match_time_limit=num("HAMLET_MATCH_TIME_LIMIT", d.match_time_limit),
            match_soft_time_limit=num("HAMLET_MATCH_SOFT_TIME_LIMIT", d.match_soft_time_limit),
            visibility_timeout=num("HAMLET_VISIBILITY_TIMEOUT", d.visibility_timeout),
            rpc_timeout=num("HAMLET_RPC_TIMEOUT", d.rpc_timeout),
            rpc_attempts=int(num("HAMLET_RPC_ATTEMPTS", d.rpc_attempts, int)),
            max_task_retries=int(num("HAMLET_TASK_RETRIES", d.max_task_retries, int)),
            retry_backoff_base=num("HAMLET_RETRY_BACKOFF", d.retry_backoff_base),
            retry_backoff_max=num("HAMLET_RETRY_BACKOFF_MAX", d.retry_backoff_max),
            code_cache_dir=Path(env.get("HAMLET_CODE_CACHE_DIR") or d.code_cache_dir),
            sandbox_memory_bytes=int(
                num("HAMLET_SANDBOX_MEMORY_BYTES", d.sandbox_memory_bytes, int)
            ),
            sandbox_cpu_seconds=int(num("HAMLET_SANDBOX_CPU_SECONDS", d.sandbox_cpu_seconds, int)),
            sandbox_mode=_sandbox_mode(env.get("HAMLET_SANDBOX", "")),
            sandbox_cgroup=env.get("HAMLET_SANDBOX_CGROUP", ""),
            worker_name=env.get("HAMLET_WORKER_NAME", ""),
            worker_token=_token(env),
            worker_token_file=(
                Path(env["HAMLET_WORKER_TOKEN_FILE"])
                if env.get("HAMLET_WORKER_TOKEN_FILE") and not env.get("HAMLET_WORKER_TOKEN")
                else None
            ),
            tls_ca=Path(env["HAMLET_TLS_CA"]) if env.get("HAMLET_TLS_CA") else None,
        )
        out.validate()
        return out


def _token(env: Mapping[str, str]) -> str:
    """``HAMLET_WORKER_TOKEN``, or the contents of ``HAMLET_WORKER_TOKEN_FILE``."""
    if env.get("HAMLET_WORKER_TOKEN"):
        return env["HAMLET_WORKER_TOKEN"].strip()
    path = env.get("HAMLET_WORKER_TOKEN_FILE", "")
    if not path:
        return ""
    try:
        return first_token(read_token_file(Path(path)))
    except OSError as exc:
        raise ConfigError(f"HAMLET_WORKER_TOKEN_FILE: cannot read {path}: {exc}") from None


def _sandbox_mode(raw: str) -> SandboxMode:
    try:
        return SandboxMode(raw or SandboxMode.STRICT.value)
    except ValueError:
        names = " or ".join(m.value for m in SandboxMode)
        raise ConfigError(f"HAMLET_SANDBOX must be {names}, not {raw!r}") from None


def check_visibility_timeout(visibility_timeout: float, hard_limit: float) -> None:
    """Refuse a Redis visibility timeout that a match could outlive.

    Redis re-delivers a task that is still unacknowledged after the visibility timeout,
    so a match outliving it would be played twice at once; require twice the hard limit.
    """
    if visibility_timeout < 2 * hard_limit:
        raise ConfigError(
            f"the Redis visibility timeout ({visibility_timeout:g}s) must be at least twice "
            f"a block's hard time limit ({hard_limit:g}s, {BLOCK_MATCHES} x the match hard "
            "time limit); set HAMLET_VISIBILITY_TIMEOUT"
        )
