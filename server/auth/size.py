"""Request size before authentication.

gRPC's ``grpc.max_receive_message_length`` is one number for the whole server, and it must
allow the 16 MiB of a bot archive or a worker's report. So the server-wide limit stays large
and every method handler's request deserializer is wrapped (``limited``): it sees the raw
bytes before any parsing and

* parses a request of at most :data:`SMALL_BYTES` as usual;
* answers :class:`TooLarge` (refused RESOURCE_EXHAUSTED, never parsed) for a bigger request
  to a method outside :data:`LARGE_METHODS`, or one that carries no ``authorization``
  metadata;
* answers :class:`Deferred` for a bigger request to a large method with a token: the
  interceptor authenticates the caller first and parses the bytes only then.

The deserializer runs on the call's thread-pool thread, before the behaviour (grpc's
``_server`` calls it in the pool); returning a marker instead of raising keeps the refusal a
clear status code rather than gRPC's "Exception deserializing request!".

Two earlier gates (in :class:`~server.auth.interceptor.AuthInterceptor`) keep most large
requests from being received at all: a call without a token to a method that needs one gets
a request-streaming handler that refuses it without reading; a call with a token to one of
:data:`LARGE_METHODS` gets a request-streaming handler that authenticates first and reads
the request only then. What is left for this check is a large request to a method open to
anonymous callers (public reads), or to a small method with a token.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from server.auth.policy import ARENA, MATCH_HOST

#: The most any call may send before its caller is authenticated.
SMALL_BYTES = 64 * 1024
#: Methods whose authenticated callers may send up to the server-wide limit (16 MiB).
LARGE_METHODS = frozenset(
    {
        f"/{ARENA}/SubmitBot",
        f"/{MATCH_HOST}/ReportMatch",
        f"/{MATCH_HOST}/ReportBlock",
    }
)

Parse = Callable[[bytes], Any]


@dataclass(frozen=True, slots=True)
class TooLarge:
    """Stands in for a request refused for its size (its bytes were never parsed)."""

    size: int
    method: str

    def message(self) -> str:
        """The refusal: what the limit is and what would be allowed."""
        return (
            f"request of {self.size} bytes is over the {SMALL_BYTES // 1024} KiB limit for "
            f"{self.method.rsplit('/', 1)[-1]}; only authenticated SubmitBot calls and worker "
            "reports may be larger"
        )


@dataclass(frozen=True, slots=True)
class Deferred:
    """A large request held as bytes until its caller is authenticated."""

    data: bytes
    parse: Parse


class RequestTooLargeError(ValueError):
    """Raised by the deserializers of services the interceptor does not govern."""


def has_authorization(metadata: Sequence[tuple[str, Any]] | None) -> bool:
    """Whether the call carries ``authorization`` metadata (checked, later, by the
    interceptor: here only its presence decides between refusing and deferring)."""
    return any(key.lower() == "authorization" for key, _ in metadata or ())


def limited(method: str, parse: Parse | None, authorized: bool) -> Parse | None:
    """``parse`` guarded by the size rule of the module doc."""
    if parse is None:
        return None
    large_ok = authorized and method in LARGE_METHODS

    def guarded(data: bytes) -> Any:
        if len(data) <= SMALL_BYTES:
            return parse(data)
        if large_ok:
            return Deferred(data, parse)
        return TooLarge(len(data), method)

    return guarded


def strict(parse: Parse | None) -> Parse | None:
    """``parse`` that raises :class:`RequestTooLargeError` above :data:`SMALL_BYTES` (health,
    reflection: nobody needs to send them more)."""
    if parse is None:
        return None

    def guarded(data: bytes) -> Any:
        if len(data) > SMALL_BYTES:
            raise RequestTooLargeError(f"request of {len(data)} bytes is over {SMALL_BYTES} bytes")
        return parse(data)

    return guarded
