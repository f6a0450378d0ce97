"""Rate limits at the gRPC boundary, on the ``limits`` library.

Three kinds of limit, each counted per client address *and* per token id (a caller is
refused when either key is over):

* ``auth`` — failed authentications. Once a client address has failed
  ``HAMLET_RATE_AUTH_FAILURES`` times within the window, its further attempts are answered
  RESOURCE_EXHAUSTED *before* any key derivation until the window has room again (the
  cool-down). Once a token id has failed as often (from any addresses), attempts on it are
  refused the same way from every address with a failure of its own in the window; an
  address with a clean record may still try (one key derivation, and then it is not clean),
  so a distributed flood is throttled to one try per address and window while the token's
  real holder, elsewhere, is not locked out. A token already verified (remembered by a fast
  digest of the whole token) never reaches these checks, so a flood of wrong secrets aimed at
  a worker's token id, even from the worker's own address, does not stop the real worker.
* ``write`` — calls that change state (``HAMLET_RATE_WRITES``).
* ``read`` — expensive reads: listings, replays, leaderboards, histories
  (``HAMLET_RATE_READS``).

Worker calls (``MatchHost``) are exempt from the write and read limits (they are few per
match and run on their own pool), and so are admin tokens (as from quotas).

Storage: memory (one server: the embedded mode, or any single server) by default; with
``HAMLET_RATE_STORAGE=redis`` the counters live in ``HAMLET_REDIS_URL`` and every server of a
distributed deployment shares them. If that Redis cannot be reached the limiter falls back to
memory for the call (and logs it), so a Redis outage neither opens the gate nor locks
everyone out.
"""

from __future__ import annotations

import enum
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from limits import RateLimitItem, parse
from limits.storage import MemoryStorage, Storage, storage_from_string
from limits.strategies import MovingWindowRateLimiter

from server.auth.policy import ARENA, METHODS, Access

log = logging.getLogger(__name__)

STORAGES = ("memory", "redis")
#: After the shared storage fails, count in memory this long before trying it again.
RETRY_SECONDS = 30.0


class RateKind(enum.Enum):
    """What a refusal was for (the ``kind`` label of the refusals counter)."""

    AUTH = "auth"
    WRITE = "write"
    READ = "read"


#: Reads that cost the server real work (many rows, a replay, a rating fit).
EXPENSIVE_READS = frozenset(
    f"{ARENA}/{m}"
    for m in (
        "ListBots",
        "ListBotVersions",
        "ListTournaments",
        "ListMatches",
        "GetReplay",
        "GetLeaderboard",
        "GetBotHistory",
        "GetLadder",
        "GetSprt",
        "ListTokens",
        "ListInvitations",
    )
)


#: Calls that change state (the worker's reports are not counted: see the module doc).
WRITES = frozenset(
    method
    for method, access in METHODS.items()
    if access in (Access.SUBMIT, Access.ADMIN)
    or method in (f"{ARENA}/CreateToken", f"{ARENA}/RevokeToken")
)


def parse_limit(name: str, text: str) -> RateLimitItem:
    """``"10/minute"``, ``"100 per 10 seconds"``...; ValueError naming ``name`` otherwise."""
    try:
        item = parse(text)
    except ValueError:
        raise ValueError(
            f"{name} must be a rate like '10/minute' or '100 per 10 seconds', not {text!r}"
        ) from None
    if item.amount < 1:
        raise ValueError(f"{name} must allow at least one call per window, not {text!r}")
    return item


@dataclass(frozen=True, slots=True)
class RateLimits:
    """The limits (``HAMLET_RATE_*``); see the module doc and docs/running.md."""

    auth_failures: str = "10/minute"
    writes: str = "120/minute"
    reads: str = "600/minute"
    storage: str = "memory"

    def validate(self) -> None:
        """Raise ValueError naming the first bad setting."""
        parse_limit("HAMLET_RATE_AUTH_FAILURES", self.auth_failures)
        parse_limit("HAMLET_RATE_WRITES", self.writes)
        parse_limit("HAMLET_RATE_READS", self.reads)
        if self.storage not in STORAGES:
            raise ValueError(
                f"HAMLET_RATE_STORAGE must be one of {', '.join(STORAGES)}, not {self.storage!r}"
            )

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> RateLimits:
        """From ``HAMLET_RATE_*`` variables (validated)."""
        get = env.get
        d = cls()
        out = cls(
            auth_failures=get("HAMLET_RATE_AUTH_FAILURES") or d.auth_failures,
            writes=get("HAMLET_RATE_WRITES") or d.writes,
            reads=get("HAMLET_RATE_READS") or d.reads,
            storage=(get("HAMLET_RATE_STORAGE") or d.storage).strip().lower(),
        )
        out.validate()
        return out


def redis_storage_url(redis_url: str) -> str:
    """The ``limits`` storage URL of a Hamlet Redis URL (``unix://`` becomes
    ``redis+unix://``)."""
    if redis_url.startswith("unix://"):
        return "redis+unix://" + redis_url[len("unix://") :]
    return redis_url


def client_host(peer: str) -> str:
    """The address part of a gRPC peer string, without the port (one key per client host):
    ``ipv4:127.0.0.1:5000`` -> ``127.0.0.1``, ``ipv6:[::1]:5000`` -> ``::1``."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv6" and rest.startswith("["):
        return rest[1:].split("]", 1)[0]
    if kind == "ipv4":
        return rest.rsplit(":", 1)[0]
    return peer or "unknown"


class RateLimiter:
    """Counts and judges calls; ``on_refusal(kind)`` is called for every refusal."""

    def __init__(
        self,
        limits: RateLimits,
        redis_url: str = "",
        on_refusal: Callable[[RateKind], None] | None = None,
    ) -> None:
        self.settings = limits
        self.items = {
            RateKind.AUTH: parse_limit("HAMLET_RATE_AUTH_FAILURES", limits.auth_failures),
            RateKind.WRITE: parse_limit("HAMLET_RATE_WRITES", limits.writes),
            RateKind.READ: parse_limit("HAMLET_RATE_READS", limits.reads),
        }
        self.on_refusal = on_refusal
        self._memory = MovingWindowRateLimiter(MemoryStorage())
        self._shared: MovingWindowRateLimiter | None = None
        if limits.storage == "redis":
            # Short timeouts: a slow Redis must not hold a sign-in for long.
            storage = storage_from_string(
                redis_storage_url(redis_url), socket_timeout=0.5, socket_connect_timeout=0.5
            )
            assert isinstance(storage, Storage)  # a sync URL gives a sync storage
            self._shared = MovingWindowRateLimiter(storage)
        self._lock = threading.Lock()
        self._warned = False
        self._down_until = 0.0  # after a failure, memory only for RETRY_SECONDS

    def window_seconds(self, kind: RateKind) -> int:
        """The length of ``kind``'s window (the longest a cool-down lasts)."""
        return int(self.items[kind].get_expiry())

    def _run(self, op: Callable[[MovingWindowRateLimiter], bool]) -> bool:
        if self._shared is not None and time.monotonic() >= self._down_until:
            try:
                return op(self._shared)
            except Exception as exc:  # a Redis outage: count in memory meanwhile
                with self._lock:
                    self._down_until = time.monotonic() + RETRY_SECONDS
                    if not self._warned:
                        log.warning("rate-limit storage unreachable (%s); using memory", exc)
                        self._warned = True
        return op(self._memory)

    def under(self, kind: RateKind, key: str) -> bool:
        """Whether ``key`` is under ``kind``'s limit (counts nothing, reports nothing)."""
        return not key or self._run(_Test(self.items[kind], kind.value, key))

    def clean(self, kind: RateKind, key: str) -> bool:
        """Whether ``key`` has no ``kind`` event in the current window."""
        item = self.items[kind]
        return not key or self._run(_Clean(item, kind.value, key))

    def reset_in(self, kind: RateKind, key: str) -> float:
        """Seconds until ``key``'s window for ``kind`` has room again (0 when it has now)."""
        if not key:
            return 0.0
        item = self.items[kind]
        reset = [0.0]

        def stats(limiter: MovingWindowRateLimiter) -> bool:
            window = limiter.get_window_stats(item, kind.value, key)
            reset[0] = 0.0 if window.remaining > 0 else window.reset_time - time.time()
            return True

        self._run(stats)
        return max(0.0, reset[0])

    def refused(self, kind: RateKind) -> None:
        """Report one refusal of ``kind`` (for the metrics)."""
        if self.on_refusal is not None:
            self.on_refusal(kind)

    def hit(self, kind: RateKind, *keys: str) -> bool:
        """Count one call for every key; False (a refusal) when any key was over."""
        item = self.items[kind]
        ok = True
        for key in keys:
            if key and not self._run(_Hit(item, kind.value, key)):
                ok = False
        if not ok and self.on_refusal is not None:
            self.on_refusal(kind)
        return ok

    def failed(self, *keys: str) -> None:
        """Count one failed authentication for every key."""
        item = self.items[RateKind.AUTH]
        for key in keys:
            if key:
                self._run(_Hit(item, RateKind.AUTH.value, key))


@dataclass(frozen=True, slots=True)
class _Test:
    item: RateLimitItem
    kind: str
    key: str

    def __call__(self, limiter: MovingWindowRateLimiter) -> bool:
        return limiter.test(self.item, self.kind, self.key)


@dataclass(frozen=True, slots=True)
class _Clean:
    item: RateLimitItem
    kind: str
    key: str

    def __call__(self, limiter: MovingWindowRateLimiter) -> bool:
        stats = limiter.get_window_stats(self.item, self.kind, self.key)
        return stats.remaining >= self.item.amount


@dataclass(frozen=True, slots=True)
class _Hit:
    item: RateLimitItem
    kind: str
    key: str

    def __call__(self, limiter: MovingWindowRateLimiter) -> bool:
        return limiter.hit(self.item, self.kind, self.key)
