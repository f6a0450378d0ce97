"""Places for server streams (``WatchTournament``, ``WatchSprt``): each open stream holds a
server thread, so streams are few, shared out, and end when they have nothing to say.

- **The cap**: at most ``cap`` streams at once (``HAMLET_MAX_STREAMS``), below the server's
  threads, so unary calls always find one.
- **The anonymous share**: anonymous callers together hold at most ``anonymous`` places (half
  the cap by default), so a signed-in user always finds the other half free of them: a crowd
  of anonymous watchers can never lock users out.
- **The per-client share**: one user (whatever their tokens), or one address for anonymous
  callers, holds at most ``per_client`` places.
- **The idle timeout**: a stream that sent nothing for ``idle_seconds`` is ended (its
  ``stop`` is set; the servicer then answers UNAVAILABLE saying why), so an abandoned watcher
  does not keep its place for ever. One sweeper thread runs while any stream is open.

A refused stream gets RESOURCE_EXHAUSTED naming the share that is full.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import grpc

from server.auth import current_principal
from server.peers import call_peer
from server.services.errors import ResourceExhaustedError, UnavailableError


@dataclass(frozen=True, slots=True)
class StreamClient:
    """Who holds a stream: a user (by id) or, for an anonymous caller, an address."""

    key: str
    anonymous: bool

    @classmethod
    def of_call(cls, context: grpc.ServicerContext) -> StreamClient:
        """The caller of the stream being served (its user, or its peer's address)."""
        who = current_principal()
        if who.user_id is not None:
            return cls(f"user {who.user_id}", anonymous=False)
        return cls(f"address {peer_host(call_peer(context))}", anonymous=True)


def peer_host(peer: str) -> str:
    """The host of a gRPC peer string (``ipv4:1.2.3.4:5``, ``ipv6:[::1]:5``), port dropped:
    one machine's connections share one share."""
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "ipv6") and rest:
        host, _, port = rest.rpartition(":")
        return host.strip("[]") if port.isdigit() and host else rest
    return peer


@dataclass(eq=False, slots=True)
class Place:
    """One open stream's place: touch it at each message sent."""

    client: StreamClient
    stop: threading.Event
    clock: Callable[[], float]
    last: float = 0.0
    #: Set by the sweeper when the stream sent nothing for the idle timeout.
    idled: bool = False

    def touch(self) -> None:
        """The stream sent something: its idle time starts again."""
        self.last = self.clock()


class StreamGate:
    """At most ``cap`` streams; shares per client and for anonymous callers; idle streams end."""

    def __init__(
        self,
        cap: int,
        anonymous: int | None = None,
        per_client: int | None = None,
        idle_seconds: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cap = cap
        self.anonymous = cap // 2 if anonymous is None else anonymous
        self.per_client = cap if per_client is None else per_client
        self.idle_seconds = idle_seconds  # 0: streams never idle out
        self._clock = clock
        self._places: set[Place] = set()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._sweeper: threading.Thread | None = None

    @property
    def open(self) -> int:
        """Streams open now."""
        return len(self._places)

    @contextlib.contextmanager
    def hold(self, client: StreamClient, stop: threading.Event) -> Iterator[Place]:
        """Hold a place for the duration of a stream, or raise ResourceExhaustedError naming
        the full share. ``stop`` is set if the stream idles out; the stream's loop then ends
        and leaving the block raises UnavailableError saying so."""
        place = Place(client, stop, self._clock, self._clock())
        with self._lock:
            self._admit(client)
            self._places.add(place)
            if self.idle_seconds > 0 and self._sweeper is None:
                self._sweeper = threading.Thread(
                    target=self._sweep, name="hamlet-stream-idle", daemon=True
                )
                self._sweeper.start()
        try:
            yield place
            if place.idled:
                raise UnavailableError(
                    f"this stream sent nothing new for {self.idle_seconds:g} s and was closed "
                    "to free its place (HAMLET_STREAM_IDLE_SECONDS); watch again to go on"
                )
        finally:
            with self._lock:
                self._places.discard(place)

    def _admit(self, client: StreamClient) -> None:
        """Refuse a new stream of ``client`` if a share is full (the lock is held)."""
        mine = sum(1 for p in self._places if p.client == client)
        if mine >= self.per_client:
            raise ResourceExhaustedError(
                f"this client ({client.key}) already holds its share of {self.per_client} "
                "open streams (HAMLET_MAX_STREAMS_PER_CLIENT); close one or retry later"
            )
        if client.anonymous:
            anonymous = sum(1 for p in self._places if p.client.anonymous)
            if anonymous >= self.anonymous:
                raise ResourceExhaustedError(
                    f"anonymous callers already hold their share of {self.anonymous} of the "
                    f"server's {self.cap} open streams (HAMLET_MAX_ANONYMOUS_STREAMS); watch "
                    "with a token (signed-in users have places of their own) or retry later"
                )
        if len(self._places) >= self.cap:
            raise ResourceExhaustedError(
                f"the server already holds its cap of {self.cap} open streams "
                "(HAMLET_MAX_STREAMS); close one or retry later"
            )

    def _sweep(self) -> None:
        """End streams idle past the timeout; runs while any stream is open."""
        tick = min(1.0, self.idle_seconds / 4)
        with self._lock:
            while self._places:
                now = self._clock()
                for place in self._places:
                    if not place.idled and now - place.last >= self.idle_seconds:
                        place.idled = True
                        place.stop.set()
                self._wake.wait(tick)
            self._sweeper = None
