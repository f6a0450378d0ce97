"""The front: a process of its own that takes the public port's calls and forwards them.

A flood of calls costs a Python gRPC server its interpreter lock whatever it answers: a
server refusing wrong tokens before any key derivation still spent most of its time on the
flood, and workers' calls, served by the same process, waited. With the front, the server
(the single writer) listens on a private Unix socket and, for workers, on a port of its
own; the public port is this process's. What a flood costs is spent here, and a worker's
claim or report never waits behind it.

The front forwards every method as raw bytes (no message is parsed here), passes the
caller's metadata on and names the caller in ``x-hamlet-peer`` (:mod:`server.peers`). The
server still authenticates and judges every call; the front only refuses, by itself and
cheaply, what the server would refuse at once:

* a call without a token to a method that needs one (the server's method table);
* a request over 64 KiB that is not an authenticated submission (the size rule of
  :mod:`server.auth.size`); a large submission is forwarded only after its token passed
  (``WhoAmI`` first), so a wrong token never makes the front hold 16 MiB;
* during an authentication cool-down the server announced (``x-hamlet-cooldown``), further
  attempts from that address (or with that token id from that address), unless the token
  is one the server accepted before (:class:`CoolDowns`).

Run by :mod:`server.frontrun` as ``python -m server.front``.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import signal
import threading
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import grpc

from server.auth import policy, size
from server.auth.identity import ANONYMOUS
from server.auth.ratelimit import client_host
from server.frontstate import ACCEPTED, CoolDowns, Outcome, token_of
from server.metrics import FRONT_REASONS
from server.peers import COOLDOWN_KEY, PEER_KEY
from server.services.errors import PermissionDeniedError, UnauthenticatedError

if TYPE_CHECKING:
    _Handler = grpc.RpcMethodHandler[Any, Any]
else:
    _Handler = grpc.RpcMethodHandler

Metadata = tuple[tuple[str, str | bytes], ...]
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
WHOAMI = f"/{policy.ARENA}/WhoAmI"
_PR_SET_PDEATHSIG = 1
#: How much lower the front's CPU priority is than the server's (see main).
NICE = 5
#: Why the front refused a call itself: an authentication cool-down, no token where one is
#: needed, a request too large before authentication.
REASONS = FRONT_REASONS
#: Metadata the front does not pass on: transport headers, and the peer it names itself.
_DROPPED = frozenset({PEER_KEY, "user-agent", "te", "content-type", "grpc-accept-encoding"})


@dataclass(frozen=True, slots=True)
class FrontConfig:
    """Where the front listens and forwards, and the server's rules it applies."""

    listen: str
    backend: str
    public_reads: bool = True
    max_workers: int = 32
    tls_cert: Path | None = None
    tls_key: Path | None = None


class Forwarder(grpc.GenericRpcHandler):  # type: ignore[misc,type-arg]
    """Forwards every call to the server behind the front (see the module doc)."""

    def __init__(self, config: FrontConfig) -> None:
        self.config = config
        options = [
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ]
        self.channel = grpc.insecure_channel(config.backend, options=options)
        self.cooldowns = CoolDowns()
        #: Calls refused here, by reason (see REASONS); read by the server's metrics.
        self.refused = dict.fromkeys(REASONS, 0)
        self._lock = threading.Lock()

    def count(self, reason: str) -> None:
        """Count one call refused here."""
        with self._lock:
            self.refused[reason] += 1

    def write_stats(self, path: Path) -> None:
        """Write the counts to ``path`` (whole or not at all) for the server to read."""
        with self._lock:
            text = json.dumps({"refused": self.refused})
        partial = path.with_suffix(".partial")
        partial.write_text(text)
        partial.rename(path)

    def service(self, details: grpc.HandlerCallDetails) -> _Handler | None:
        method = details.method
        authorized = size.has_authorization(details.invocation_metadata)
        if not authorized:
            refusal = self._anonymous_refusal(method)
            if refusal is not None:
                return refusal
        large_ok = authorized and method in size.LARGE_METHODS

        def guard(data: bytes) -> Any:
            if len(data) > size.SMALL_BYTES and not large_ok:
                return size.TooLarge(len(data), method)
            return data

        def forward(requests: Iterator[Any], context: grpc.ServicerContext) -> Iterator[bytes]:
            return self._forward(method, large_ok, requests, context)

        return grpc.stream_stream_rpc_method_handler(forward, request_deserializer=guard)

    def _anonymous_refusal(self, method: str) -> _Handler | None:
        """A handler refusing, without reading its request, a call the server would refuse
        for having no token."""
        if not method.strip("/").startswith(policy.GOVERNED):
            return None
        try:
            policy.check_method(method, ANONYMOUS, self.config.public_reads)
            return None
        except UnauthenticatedError as exc:
            code, message = grpc.StatusCode.UNAUTHENTICATED, str(exc)
        except PermissionDeniedError as exc:
            code, message = grpc.StatusCode.PERMISSION_DENIED, str(exc)

        def refuse(requests: Any, context: grpc.ServicerContext) -> Iterator[bytes]:
            self.count("token")
            context.abort(code, message)
            yield b""  # pragma: no cover - abort raises

        return grpc.stream_stream_rpc_method_handler(refuse)

    def _forward(
        self,
        method: str,
        large_ok: bool,
        requests: Iterator[Any],
        context: grpc.ServicerContext,
    ) -> Iterator[bytes]:
        peer = context.peer()
        host = client_host(peer)
        metadata: Metadata = (
            *((k, v) for k, v in context.invocation_metadata() if k not in _DROPPED),
            (PEER_KEY, peer),
        )
        token = token_of(metadata)
        if token is not None:
            refused = self.cooldowns.refusal(host, token)
            if refused is not None:
                message, seconds = refused
                self.count("auth")
                context.set_trailing_metadata(((COOLDOWN_KEY, seconds),))
                context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, message)
        if large_ok:
            # Authenticate before the request is read: a wrong token costs no 16 MiB here.
            self._preflight(metadata, host, token, context)
        too_large: list[size.TooLarge] = []

        def guarded() -> Iterator[bytes]:
            for request in requests:
                if isinstance(request, size.TooLarge):
                    too_large.append(request)
                    return
                yield request

        timeout = _timeout(context)
        call = self.channel.stream_stream(method, None, None)(
            guarded(), metadata=metadata, timeout=timeout
        )
        context.add_callback(call.cancel)  # the client went away: so does the forwarded call
        try:
            yield from call
        except grpc.RpcError as exc:
            if too_large:
                self.count("size")
                context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, too_large[0].message())
            self._refused(exc, host, token, context)
        if too_large:
            self.count("size")
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, too_large[0].message())
        self.cooldowns.learn(host, token, ACCEPTED)
        trailing = cast(Metadata, tuple(call.trailing_metadata() or ()))
        if trailing:
            context.set_trailing_metadata(trailing)

    def _preflight(
        self,
        metadata: Metadata,
        host: str,
        token: str | None,
        context: grpc.ServicerContext,
    ) -> None:
        """Ask the server whether the caller's token is good (``WhoAmI``), refusing the
        call as the server refused that one."""
        timeout = _timeout(context)
        try:
            self.channel.unary_unary(WHOAMI, None, None)(b"", metadata=metadata, timeout=timeout)
        except grpc.RpcError as exc:
            self._refused(exc, host, token, context)
        self.cooldowns.learn(host, token, ACCEPTED)

    def _refused(
        self, exc: grpc.RpcError, host: str, token: str | None, context: grpc.ServicerContext
    ) -> None:
        """Pass the server's refusal on as it was (code, message, trailing metadata), and
        learn from it."""
        trailing = cast(Metadata, tuple(exc.trailing_metadata() or ()))
        self.cooldowns.learn(host, token, Outcome.of(exc.code(), trailing))
        if trailing:
            context.set_trailing_metadata(trailing)
        context.abort(exc.code(), exc.details() or "")


def _timeout(context: grpc.ServicerContext) -> float | None:
    """The caller's time left, for the forwarded call (None: the caller set no deadline,
    which gRPC reports as a time left of centuries, too far for a new deadline)."""
    left = context.time_remaining()
    if left is None or left > 30 * 86400:
        return None
    return max(left, 0.001)


def serve(config: FrontConfig) -> tuple[grpc.Server, int, Forwarder]:
    """Start the front; returns the server, the port it listens on and its forwarder."""
    forwarder = Forwarder(config)
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=config.max_workers, thread_name_prefix="front"),
        handlers=[forwarder],
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.http2.min_recv_ping_interval_without_data_ms", 10_000),
        ],
    )
    if config.tls_cert is not None and config.tls_key is not None:
        credentials = grpc.ssl_server_credentials(
            [(config.tls_key.read_bytes(), config.tls_cert.read_bytes())]
        )
        port = server.add_secure_port(config.listen, credentials)
    else:
        port = server.add_insecure_port(config.listen)
    if port == 0:
        raise OSError(f"the front cannot listen on {config.listen}")
    server.start()
    return server, port, forwarder


def _die_with_parent() -> None:
    """Ask Linux to end this process the moment its parent (the server) dies, so a killed
    server never leaves its public port held (elsewhere the parent check in main does it,
    within a second)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def main(argv: list[str] | None = None) -> int:
    """``python -m server.front``: serve until SIGTERM or until the server that started
    this process is gone."""
    parser = argparse.ArgumentParser(prog="python -m server.front")
    parser.add_argument("--listen", required=True)
    parser.add_argument("--backend", required=True)
    parser.add_argument("--port-file", type=Path, required=True)
    parser.add_argument("--max-workers", type=int, default=32)
    parser.add_argument("--no-public-reads", action="store_true")
    parser.add_argument("--tls-cert", type=Path)
    parser.add_argument("--tls-key", type=Path)
    parser.add_argument("--nice", type=int, default=NICE)
    args = parser.parse_args(argv)
    parent = os.getppid()
    _die_with_parent()
    # Under a flood the cores this process wants go to the server first (the writer:
    # workers' claims and reports, and the calls already admitted).
    os.nice(args.nice)
    config = FrontConfig(
        listen=args.listen,
        backend=args.backend,
        public_reads=not args.no_public_reads,
        max_workers=args.max_workers,
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
    )
    server, port, forwarder = serve(config)
    stats = args.port_file.with_name("front.stats")
    partial = args.port_file.with_suffix(".partial")
    partial.write_text(str(port))
    partial.rename(args.port_file)  # whole or absent: the parent never reads half a number
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    while not stop.wait(1.0):
        if os.getppid() != parent:  # the server died without stopping us
            break
        forwarder.write_stats(stats)
    server.stop(2.0).wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
