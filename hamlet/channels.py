"""Client channels: to the Hamlet server, and to remote bots.

The CLI and the workers both open their channels to the server here, so the two speak to it
the same way: ``authorization: Bearer <token>`` metadata, and TLS verified against a CA file
when one is configured (``HAMLET_TLS_CA``).

Channels to remote bots (:func:`open_bot_channel`) dial a pinned IP address, never a name. The
server checks a remote bot's endpoint against its allow-list and resolves it; the address it
approved is what the server's handshake and the workers' matches dial. A target of the form
``ipv4:a.b.c.d:port`` / ``ipv6:[addr]:port`` bypasses gRPC's resolver, so a DNS answer that
changed after the check (rebinding) cannot redirect the connection. With TLS the certificate
is still verified against the registered host name. Proxies from the environment
(``http_proxy``, ``grpc_proxy``) are ignored: a proxy would make the connection for us, to
wherever.
"""

from __future__ import annotations

import ipaddress
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

    def __init__(self, token: str | Callable[[], str]) -> None:
        # A callable is asked on every call: a worker's token file may be rotated under it.
        self._token = token

    def _details(self, details: grpc.ClientCallDetails) -> grpc.ClientCallDetails:
        token = self._token() if callable(self._token) else self._token
        metadata = [*(details.metadata or ()), ("authorization", f"Bearer {token}")]
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
    token: str | Callable[[], str] | None = None,
    ca_file: Path | None = None,
    options: Sequence[tuple[str, Any]] = (),
) -> grpc.Channel:
    """A channel to ``target``; TLS when ``ca_file`` is given, with ``token`` on every call
    (a callable: asked for the token at each call)."""
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


#: A bot's answer is a few bytes; anything this large is not a DecisionResponse.
MAX_ANSWER_BYTES = 64 * 1024


def pinned_target(address: str) -> str:
    """The gRPC target of ``ip:port`` or ``[ipv6]:port``; ValueError for anything else
    (a host name in particular: it would be resolved again)."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"{address!r} is not ip:port")
    bracketed = host.startswith("[") and host.endswith("]")
    ip = ipaddress.ip_address(host[1:-1] if bracketed else host)
    if ip.version == 6 and not bracketed:
        raise ValueError(f"{address!r}: an IPv6 address needs brackets")
    return f"ipv{ip.version}:{address}"


def open_bot_channel(
    address: str, *, tls: bool = False, ca_pem: str = "", server_name: str = ""
) -> grpc.Channel:
    """A channel to a remote bot at the pinned ``address`` (see :func:`pinned_target`).

    ``tls``: verify the bot's certificate against ``ca_pem`` (empty: the system roots) for
    ``server_name`` (the registered host name)."""
    target = pinned_target(address)
    options: list[tuple[str, Any]] = [
        ("grpc.enable_http_proxy", 0),
        ("grpc.enable_retries", 0),
        ("grpc.max_receive_message_length", MAX_ANSWER_BYTES),
    ]
    if not tls:
        return grpc.insecure_channel(target, options=options)
    if server_name:
        options += [
            ("grpc.ssl_target_name_override", server_name),
            ("grpc.default_authority", server_name),
        ]
    credentials = grpc.ssl_channel_credentials(root_certificates=ca_pem.encode() or None)
    return grpc.secure_channel(target, credentials, options=options)
