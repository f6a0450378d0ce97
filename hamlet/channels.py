"""Client channels to the Hamlet server: optional TLS and a bearer token on every call.

The CLI and the workers both open their channels here, so the two speak to the server the
same way: ``authorization: Bearer <token>`` metadata, and TLS verified against a CA file when
one is configured (``HAMLET_TLS_CA``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import grpc

if TYPE_CHECKING:
    _UU = grpc.UnaryUnaryClientInterceptor[Any, Any]
    _US = grpc.UnaryStreamClientInterceptor[Any, Any]
else:
    _UU = grpc.UnaryUnaryClientInterceptor
    _US = grpc.UnaryStreamClientInterceptor


class _CallDetails(NamedTuple):
    method: str
    timeout: float | None
    metadata: Sequence[tuple[str, str | bytes]] | None
    credentials: grpc.CallCredentials | None
    wait_for_ready: bool | None
    compression: Any


class _Bearer(_UU, _US):
    """Adds ``authorization: Bearer <token>`` to every call."""

    def __init__(self, token: str) -> None:
        self._header = ("authorization", f"Bearer {token}")

    def _details(self, details: grpc.ClientCallDetails) -> grpc.ClientCallDetails:
        metadata = [*(details.metadata or ()), self._header]
        return _CallDetails(  # type: ignore[return-value]
            details.method,
            details.timeout,
            metadata,
            details.credentials,
            getattr(details, "wait_for_ready", None),
            getattr(details, "compression", None),
        )

    def intercept_unary_unary(
        self, continuation: Callable[..., Any], client_call_details: Any, request: Any
    ) -> Any:
        return continuation(self._details(client_call_details), request)

    def intercept_unary_stream(
        self, continuation: Callable[..., Any], client_call_details: Any, request: Any
    ) -> Any:
        return continuation(self._details(client_call_details), request)


def open_channel(
    target: str,
    *,
    token: str | None = None,
    ca_file: Path | None = None,
    options: Sequence[tuple[str, Any]] = (),
) -> grpc.Channel:
    """A channel to ``target``; TLS when ``ca_file`` is given, with ``token`` on every call."""
    if ca_file is not None:
        credentials = grpc.ssl_channel_credentials(root_certificates=ca_file.read_bytes())
        channel = grpc.secure_channel(target, credentials, options=list(options))
    else:
        channel = grpc.insecure_channel(target, options=list(options))
    if token:
        channel = grpc.intercept_channel(channel, _Bearer(token))
    return channel


def read_token_file(path: Path) -> str:
    """The token kept in ``path`` (surrounding whitespace removed); OSError if unreadable."""
    return path.read_text(encoding="utf-8").strip()
