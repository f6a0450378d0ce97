"""Server settings: built once from the environment into a frozen, validated dataclass.

Nothing reads the environment at import time; call :meth:`Settings.from_env`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from server.auth.ratelimit import RateLimits, parse_limit
from server.remote_hosts import VARIABLE, AllowList, EndpointError
from server.services import timecontrol
from server.services.quotas import QuotaLimits
from server.services.timecontrol import RatedTimeControls, TimeControlError

#: The Celery task and queue the server enqueues matches on (the contract with workers).
PLAY_MATCH_TASK = "hamlet.play_match"
#: The task the server sends: one duplicate block (a list of match ids).
PLAY_BLOCK_TASK = "hamlet.play_block"
MATCH_QUEUE = "matches"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_FORMATS = ("text", "json")


class ConfigError(ValueError):
    """An environment variable has a value the server cannot use."""


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    """A yes/no variable (1/0, true/false, yes/no, on/off); unset or empty is ``default``."""
    raw = env.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ConfigError(f"{name} must be one of {'/'.join(_TRUE + _FALSE)}, not {raw!r}")


def secret(env: Mapping[str, str], name: str) -> str:
    """``name``'s value, or the contents of the file ``<name>_FILE`` names (a mounted secret:
    Docker and Kubernetes secrets are files); setting both is refused as ambiguous."""
    value, file = env.get(name, ""), env.get(f"{name}_FILE", "")
    if value and file:
        raise ConfigError(f"set {name} or {name}_FILE, not both")
    if not file:
        return value
    try:
        return Path(file).read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ConfigError(f"{name}_FILE: cannot read {file}: {exc.strerror or exc}") from None


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the server needs to run."""

    data_dir: Path = Path(".hamlet")
    database_url: str = ""  # empty: SQLite file in data_dir
    redis_url: str = "redis://127.0.0.1:6379/0"
    grpc_host: str = "127.0.0.1"
    grpc_port: int = 50051
    metrics_port: int = 9464  # 0 picks a free port; -1 disables the endpoint
    #: Serve the public port from a front process of its own (HAMLET_FRONT: yes/no; unset or
    #: "auto": when the machine has more than one core), so that no flood of calls can take
    #: the interpreter workers' claims and reports need (server.front). Built in a program
    #: with Settings(), the server has no front unless asked.
    front: bool | None = False
    #: A port of the server's own for workers (HAMLET_WORKER_GRPC_PORT, on HAMLET_GRPC_HOST;
    #: -1: none). With a front, workers that connect here bypass it; keep the port to the
    #: workers' network. Local workers of ``hamlet up`` use the server's private socket.
    worker_grpc_port: int = -1
    #: Where the metrics endpoint listens (HAMLET_METRICS_HOST): loopback unless a
    #: deployment says otherwise (compose and Kubernetes set 0.0.0.0 for their scraper).
    metrics_host: str = "127.0.0.1"
    #: A claimed match not reported within this many seconds is re-queued (worker died).
    match_lease_seconds: float = 900.0
    #: A queued match not claimed within this many seconds is sent again, without counting
    #: an attempt (its message may be lost); see server.services.recovery for the bound.
    queue_timeout_seconds: float = 300.0
    reaper_interval_seconds: float = 10.0
    max_match_attempts: int = 5
    #: Infrastructure voids (a worker's fault) a match may have before it is FAILED; they are
    #: not attempts (attempts count what a bot could have lost).
    max_infra_retries: int = 10
    default_decision_time_ms: int = 1000
    #: The longest a legal match may take; a time control needing more is refused at creation.
    max_match_seconds: float = 0.0
    #: Duplicate blocks in flight (queued or running) per worker queue; 0 sizes the window
    #: from the workers seen (one place per worker process, plus one).
    dispatch_window: int = 0
    #: What every rated match of each game is played at (HAMLET_RATED_TIME_CONTROL).
    rated_time_control: RatedTimeControls = field(default_factory=RatedTimeControls)
    #: Days a challenge waits for its bot's owner before it lapses.
    invitation_pending_days: int = 7
    #: Days an accepted invitation lets the challenger enter the bot.
    invitation_grant_days: int = 30
    max_workers: int = 32  # gRPC server threads (each WatchTournament stream holds one)
    #: Open WatchTournament/WatchSprt streams at once; below max_workers, so unary calls
    #: always find a thread. One more is refused with RESOURCE_EXHAUSTED.
    max_streams: int = 16
    #: Of those, what anonymous callers may hold together; -1: half of max_streams (users
    #: always find the rest free of anonymous streams).
    max_anonymous_streams: int = -1
    #: Streams one user (or one address, for anonymous callers) may hold at once.
    max_streams_per_client: int = 4
    #: A stream that sent nothing new for this many seconds is ended (UNAVAILABLE).
    stream_idle_seconds: float = 900.0
    #: Threads of workers' MatchHost calls (their own pool: clients cannot starve them).
    worker_threads: int = 16
    #: Reads (games, bots, tournaments, matches, replays, leaderboards) without a token.
    public_reads: bool = True
    #: TLS for the gRPC port: both paths (PEM) or neither.
    tls_cert: Path | None = None
    tls_key: Path | None = None
    log_level: str = "INFO"  # DEBUG, INFO, WARNING, ERROR or CRITICAL
    log_format: str = "text"  # text, or json: one JSON object per line
    #: Where remote bots may run (HAMLET_REMOTE_BOT_HOSTS); empty: remote bots are refused.
    remote_bot_hosts: AllowList = field(default_factory=AllowList)
    #: Registrations checking their endpoints at once (one more: RESOURCE_EXHAUSTED).
    remote_handshakes: int = 4
    #: Time limits of a remote bot's host name lookup and of its registration handshake.
    remote_lookup_seconds: float = 2.0
    remote_handshake_seconds: float = 2.0
    #: Quotas per user (HAMLET_QUOTA_*; see server.services.quotas and docs/running.md).
    quotas: QuotaLimits = field(default_factory=QuotaLimits)
    #: Rate limits at the boundary (HAMLET_RATE_*; see server.auth.ratelimit).
    rate: RateLimits = field(default_factory=RateLimits)
    #: Refused calls logged per client address (HAMLET_LOG_REFUSALS); the rest are counted
    #: and the count is logged with the client's next logged refusal.
    log_refusals: str = "20/minute"
    #: Bytes of finished matches' replays kept in memory (LRU; 0 keeps none): GetReplay
    #: pages are cut from them instead of replaying the match again.
    replay_cache_bytes: int = 64 * 2**20
    #: Leaderboards are refitted in the background at most this often (HAMLET_REFIT_SECONDS);
    #: a new rated result shows on its leaderboard within about this long.
    refit_seconds: float = 3.0
    #: Fit in a process of its own (HAMLET_REFIT_PROCESS: yes/no; unset or "auto": when the
    #: machine has more than one core), so fits never hold the server's GIL.
    refit_process: bool | None = None
    #: Worker tokens a deployment provisions (HAMLET_WORKER_TOKEN_FILE, one per line; the
    #: secret the workers mount too): enrolled at start and whenever the file changes
    #: (server.provisioned). None: only the data directory's worker.token.
    worker_token_file: Path | None = None

    @property
    def effective_database_url(self) -> str:
        """The database URL, defaulting to ``sqlite:///<data_dir>/hamlet.db``."""
        return self.database_url or f"sqlite:///{(self.data_dir / 'hamlet.db').resolve()}"

    @property
    def effective_refit_process(self) -> bool:
        """Whether large fits run in a process of their own."""
        if self.refit_process is None:
            return (os.cpu_count() or 1) > 1
        return self.refit_process

    @property
    def effective_front(self) -> bool:
        """Whether the public port is served by a front process."""
        if self.front is None:
            return (os.cpu_count() or 1) > 1
        return self.front

    @property
    def effective_anonymous_streams(self) -> int:
        """The anonymous share of the stream cap (half of it unless set)."""
        if self.max_anonymous_streams < 0:
            return self.max_streams // 2
        return self.max_anonymous_streams

    def with_(self, **changes: object) -> Settings:
        """A copy with some fields changed (validated again)."""
        out = replace(self, **changes)  # type: ignore[arg-type]
        out.validate()
        return out

    def validate(self) -> None:
        """Raise :class:`ConfigError` naming the first bad value."""
        if not 0 <= self.grpc_port <= 65535:
            raise ConfigError(f"HAMLET_GRPC_PORT must be 0..65535, not {self.grpc_port}")
        if not -1 <= self.worker_grpc_port <= 65535:
            raise ConfigError(
                f"HAMLET_WORKER_GRPC_PORT must be -1..65535, not {self.worker_grpc_port}"
            )
        if not -1 <= self.metrics_port <= 65535:
            raise ConfigError(f"HAMLET_METRICS_PORT must be -1..65535, not {self.metrics_port}")
        if not self.metrics_host.strip():
            raise ConfigError("HAMLET_METRICS_HOST must be a host name or address")
        try:
            self.rate.validate()
            parse_limit("HAMLET_LOG_REFUSALS", self.log_refusals)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        if not self.redis_url.startswith(("redis://", "rediss://", "unix://")):
            raise ConfigError(f"HAMLET_REDIS_URL must be a redis:// URL, not {self.redis_url!r}")
        for name in ("match_lease_seconds", "queue_timeout_seconds", "reaper_interval_seconds"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"{name} must be positive")
        if not 1 <= self.max_streams < self.max_workers:
            raise ConfigError(
                f"HAMLET_MAX_STREAMS must be 1..{self.max_workers - 1} (below the server's "
                f"{self.max_workers} threads), not {self.max_streams}"
            )
        if not -1 <= self.max_anonymous_streams <= self.max_streams // 2:
            raise ConfigError(
                f"HAMLET_MAX_ANONYMOUS_STREAMS must be 0..{self.max_streams // 2} (half of "
                f"HAMLET_MAX_STREAMS at most), or -1 for half; not {self.max_anonymous_streams}"
            )
        if self.max_streams_per_client < 1:
            raise ConfigError(
                f"HAMLET_MAX_STREAMS_PER_CLIENT must be at least 1, not "
                f"{self.max_streams_per_client}"
            )
        if not self.stream_idle_seconds > 0:
            raise ConfigError("HAMLET_STREAM_IDLE_SECONDS must be positive")
        if not 1 <= self.remote_handshakes < self.max_workers:
            raise ConfigError(
                f"HAMLET_REMOTE_HANDSHAKES must be 1..{self.max_workers - 1} (below the "
                f"server's {self.max_workers} threads), not {self.remote_handshakes}"
            )
        for name, seconds in (
            ("HAMLET_REMOTE_LOOKUP_SECONDS", self.remote_lookup_seconds),
            ("HAMLET_REMOTE_HANDSHAKE_SECONDS", self.remote_handshake_seconds),
        ):
            if not 0 < seconds <= 120:
                raise ConfigError(f"{name} must be more than 0 and at most 120, not {seconds}")
        if not 0.05 <= self.refit_seconds <= 3600:
            raise ConfigError(
                f"HAMLET_REFIT_SECONDS must be 0.05..3600 seconds, not {self.refit_seconds}"
            )
        if self.worker_threads < 1:
            raise ConfigError("HAMLET_WORKER_THREADS must be at least 1")
        if self.max_match_attempts < 1:
            raise ConfigError("HAMLET_MAX_MATCH_ATTEMPTS must be at least 1")
        if not 0 <= self.replay_cache_bytes <= 2**40:
            raise ConfigError(
                "HAMLET_REPLAY_CACHE_BYTES must be 0 (no cache) to 1099511627776, "
                f"not {self.replay_cache_bytes}"
            )
        if self.max_infra_retries < 1:
            raise ConfigError("HAMLET_MAX_INFRA_RETRIES must be at least 1")
        if not 0 <= self.dispatch_window <= 100_000:
            raise ConfigError(
                f"HAMLET_DISPATCH_WINDOW must be 0 (sized from the workers) to 100000, "
                f"not {self.dispatch_window}"
            )
        if not 1 <= self.default_decision_time_ms <= 600_000:
            raise ConfigError("HAMLET_DECISION_TIME_MS must be 1..600000")
        if self.max_match_seconds and not 60 <= self.max_match_seconds <= 30 * 86_400:
            raise ConfigError("HAMLET_MAX_MATCH_SECONDS must be 0 (no bound) or 60..2592000")
        import games

        try:
            self.rated_time_control.check_games(games.names())
        except TimeControlError as exc:
            raise ConfigError(f"{timecontrol.VARIABLE}: {exc}") from None
        for name, days in (
            ("HAMLET_INVITATION_PENDING_DAYS", self.invitation_pending_days),
            ("HAMLET_INVITATION_GRANT_DAYS", self.invitation_grant_days),
        ):
            if not 1 <= days <= 3650:
                raise ConfigError(f"{name} must be 1..3650 days, not {days}")
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ConfigError("set both HAMLET_TLS_CERT and HAMLET_TLS_KEY, or neither")
        for name, path in (("HAMLET_TLS_CERT", self.tls_cert), ("HAMLET_TLS_KEY", self.tls_key)):
            if path is not None and not path.is_file():
                raise ConfigError(f"{name}: no such file {path}")
        try:
            self.quotas.validate()
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        if self.log_level not in LOG_LEVELS:
            raise ConfigError(
                f"HAMLET_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {self.log_level!r}"
            )
        if self.worker_token_file is not None and not self.worker_token_file.is_file():
            raise ConfigError(f"HAMLET_WORKER_TOKEN_FILE: no such file {self.worker_token_file}")
        if self.log_format not in LOG_FORMATS:
            raise ConfigError(
                f"HAMLET_LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}, "
                f"not {self.log_format!r}"
            )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``HAMLET_*`` variables (``os.environ`` by default)."""
        env = os.environ if env is None else env
        d = cls()

        def num(name: str, default: float, kind: type[int] | type[float] = int) -> float:
            raw = env.get(name)
            if raw is None or raw == "":
                return default
            try:
                return kind(raw)
            except ValueError:
                raise ConfigError(f"{name} must be a number, not {raw!r}") from None

        def path(name: str) -> Path | None:
            raw = env.get(name, "")
            return Path(raw) if raw else None

        try:
            remote_bot_hosts = AllowList.parse(env.get(VARIABLE, ""))
        except EndpointError as exc:
            raise ConfigError(f"{VARIABLE}: {exc}") from None
        try:
            rated = RatedTimeControls.parse(env.get(timecontrol.VARIABLE, ""))
        except TimeControlError as exc:
            raise ConfigError(f"{timecontrol.VARIABLE}: {exc}") from None
        try:
            quotas = QuotaLimits.from_env(env)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        try:
            rate = RateLimits.from_env(env)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        process = env.get("HAMLET_REFIT_PROCESS", "").strip().lower()
        front = env.get("HAMLET_FRONT", "").strip().lower()
        settings = cls(
            front=None if front in ("", "auto") else flag(env, "HAMLET_FRONT", False),
            worker_grpc_port=int(num("HAMLET_WORKER_GRPC_PORT", d.worker_grpc_port)),
            refit_seconds=num("HAMLET_REFIT_SECONDS", d.refit_seconds, float),
            refit_process=None
            if process in ("", "auto")
            else flag(env, "HAMLET_REFIT_PROCESS", False),
            rate=rate,
            log_refusals=env.get("HAMLET_LOG_REFUSALS") or d.log_refusals,
            metrics_host=env.get("HAMLET_METRICS_HOST") or d.metrics_host,
            quotas=quotas,
            rated_time_control=rated,
            invitation_pending_days=int(
                num("HAMLET_INVITATION_PENDING_DAYS", d.invitation_pending_days)
            ),
            invitation_grant_days=int(num("HAMLET_INVITATION_GRANT_DAYS", d.invitation_grant_days)),
            remote_bot_hosts=remote_bot_hosts,
            remote_handshakes=int(num("HAMLET_REMOTE_HANDSHAKES", d.remote_handshakes)),
            remote_lookup_seconds=num(
                "HAMLET_REMOTE_LOOKUP_SECONDS", d.remote_lookup_seconds, float
            ),
            remote_handshake_seconds=num(
                "HAMLET_REMOTE_HANDSHAKE_SECONDS", d.remote_handshake_seconds, float
            ),
            public_reads=flag(env, "HAMLET_PUBLIC_READS", d.public_reads),
            tls_cert=path("HAMLET_TLS_CERT"),
            tls_key=path("HAMLET_TLS_KEY"),
            data_dir=Path(env.get("HAMLET_DATA_DIR") or d.data_dir),
            database_url=secret(env, "HAMLET_DATABASE_URL"),
            worker_token_file=path("HAMLET_WORKER_TOKEN_FILE"),
            redis_url=env.get("HAMLET_REDIS_URL") or d.redis_url,
            grpc_host=env.get("HAMLET_GRPC_HOST") or d.grpc_host,
            grpc_port=int(num("HAMLET_GRPC_PORT", d.grpc_port)),
            metrics_port=int(num("HAMLET_METRICS_PORT", d.metrics_port)),
            match_lease_seconds=num("HAMLET_MATCH_LEASE_SECONDS", d.match_lease_seconds, float),
            queue_timeout_seconds=num(
                "HAMLET_QUEUE_TIMEOUT_SECONDS", d.queue_timeout_seconds, float
            ),
            reaper_interval_seconds=num(
                "HAMLET_REAPER_INTERVAL_SECONDS", d.reaper_interval_seconds, float
            ),
            max_match_attempts=int(num("HAMLET_MAX_MATCH_ATTEMPTS", d.max_match_attempts)),
            max_infra_retries=int(num("HAMLET_MAX_INFRA_RETRIES", d.max_infra_retries)),
            max_streams=int(num("HAMLET_MAX_STREAMS", d.max_streams)),
            max_anonymous_streams=int(num("HAMLET_MAX_ANONYMOUS_STREAMS", d.max_anonymous_streams)),
            max_streams_per_client=int(
                num("HAMLET_MAX_STREAMS_PER_CLIENT", d.max_streams_per_client)
            ),
            stream_idle_seconds=num("HAMLET_STREAM_IDLE_SECONDS", d.stream_idle_seconds, float),
            worker_threads=int(num("HAMLET_WORKER_THREADS", d.worker_threads)),
            default_decision_time_ms=int(
                num("HAMLET_DECISION_TIME_MS", d.default_decision_time_ms)
            ),
            dispatch_window=int(num("HAMLET_DISPATCH_WINDOW", d.dispatch_window)),
            replay_cache_bytes=int(num("HAMLET_REPLAY_CACHE_BYTES", d.replay_cache_bytes)),
            max_match_seconds=num("HAMLET_MAX_MATCH_SECONDS", d.max_match_seconds, float),
            log_level=(env.get("HAMLET_LOG_LEVEL") or d.log_level).upper(),
            log_format=(env.get("HAMLET_LOG_FORMAT") or d.log_format).lower(),
        )
        settings.validate()
        return settings
