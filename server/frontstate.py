"""What the front remembers of the server's answers: tokens it accepted, and the
authentication cool-downs it announced (see :mod:`server.front`).

The server refuses a client address that failed to authenticate too often, and a token id
that did, for as long as its moving window stays full; a token it verified before is never
refused that way. The front learns both from the server's answers and applies them itself,
so a flood of attempts during a cool-down is answered here and never reaches the server.
"""

from __future__ import annotations

import enum
import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from server.peers import COOLDOWN_KEY

#: Tokens remembered as accepted, and cool-downs remembered; the oldest go first.
MAX_TOKENS = 10_000
MAX_COOLDOWNS = 50_000

#: Answers that come only after the caller was authenticated.
_AFTER_AUTHENTICATION = frozenset(
    {
        grpc.StatusCode.OK,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.FAILED_PRECONDITION,
    }
)


class Verdict(enum.Enum):
    """What one answer of the server says about the caller's token."""

    ACCEPTED = "accepted"  # authenticated: no cool-down applies to this token
    REJECTED = "rejected"  # UNAUTHENTICATED: no longer known as accepted
    COOLDOWN_ADDRESS = "address"  # every token not accepted before, from this address
    COOLDOWN_TOKEN = "token"  # this token id, from this address
    UNKNOWN = "unknown"  # says nothing about the token (outage, deadline, size...)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A verdict, with how long a cool-down lasts."""

    verdict: Verdict
    seconds: float = 0.0

    @classmethod
    def of(cls, code: grpc.StatusCode, trailing: Sequence[tuple[str, Any]]) -> Outcome:
        """The outcome of a refusal with ``code`` and trailing metadata ``trailing``."""
        if code is grpc.StatusCode.UNAUTHENTICATED:
            return cls(Verdict.REJECTED)
        if code in _AFTER_AUTHENTICATION:
            return cls(Verdict.ACCEPTED)
        for key, value in trailing:
            if key == COOLDOWN_KEY:
                text = value.decode() if isinstance(value, bytes) else str(value)
                scope, _, seconds = text.partition(" ")
                try:
                    return cls(Verdict(scope), max(1.0, float(seconds)))
                except ValueError:
                    break
        return cls(Verdict.UNKNOWN)


#: The outcome of an answer that came after authentication.
ACCEPTED = Outcome(Verdict.ACCEPTED)


def token_of(metadata: Sequence[tuple[str, Any]]) -> str | None:
    """The bearer token of ``metadata`` (None when there is none or it is malformed: the
    server answers those)."""
    for key, value in metadata:
        if key.lower() == "authorization":
            text = value.decode() if isinstance(value, bytes) else str(value)
            scheme, _, token = text.strip().partition(" ")
            return (token.strip() or None) if scheme.lower() == "bearer" else None
    return None


def _token_id(token: str) -> str:
    parts = token.split("_", 2)
    return parts[1] if len(parts) == 3 else ""


class CoolDowns:
    """Accepted tokens and announced cool-downs, bounded; thread-safe."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._accepted: OrderedDict[str, None] = OrderedDict()
        self._until: OrderedDict[tuple[str, str], float] = OrderedDict()

    def learn(self, host: str, token: str | None, outcome: Outcome) -> None:
        """Remember what the server's answer to a call from ``host`` with ``token`` says."""
        if token is None:
            return
        digest = hashlib.sha256(token.encode()).hexdigest()
        with self._lock:
            if outcome.verdict is Verdict.ACCEPTED:
                self._accepted[digest] = None
                self._accepted.move_to_end(digest)
                while len(self._accepted) > MAX_TOKENS:
                    self._accepted.popitem(last=False)
            elif outcome.verdict is Verdict.REJECTED:
                self._accepted.pop(digest, None)
            elif outcome.verdict in (Verdict.COOLDOWN_ADDRESS, Verdict.COOLDOWN_TOKEN):
                self._accepted.pop(digest, None)
                scope = "" if outcome.verdict is Verdict.COOLDOWN_ADDRESS else _token_id(token)
                key = (host, scope)
                self._until[key] = self.clock() + outcome.seconds
                self._until.move_to_end(key)
                while len(self._until) > MAX_COOLDOWNS:
                    self._until.popitem(last=False)

    def refusal(self, host: str, token: str) -> tuple[str, str] | None:
        """``(message, seconds)`` when the server would refuse ``token`` from ``host`` for
        a cool-down now; None when the call should go on to the server."""
        digest = hashlib.sha256(token.encode()).hexdigest()
        now = self.clock()
        token_id = _token_id(token)
        with self._lock:
            if digest in self._accepted:
                return None
            for key, what in (
                ((host, ""), "from this address"),
                ((host, token_id), f"for token {token_id} from this address"),
            ):
                until = self._until.get(key)
                if until is None:
                    continue
                if until <= now:
                    del self._until[key]
                    continue
                left = max(1, round(until - now))
                return (
                    f"too many failed authentications {what}; wait {left} s, then try "
                    "again with a valid token",
                    f"{(key[1] and 'token') or 'address'} {left}",
                )
        return None
