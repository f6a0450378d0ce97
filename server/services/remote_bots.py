"""Remote bots: registration (allow-list, handshake, a new version) and, at each claim, the
address a worker may dial.

The endpoint is checked against ``HAMLET_REMOTE_BOT_HOSTS`` (:mod:`server.remote_hosts`)
twice: when the bot is registered, and again each time a match with it is claimed. The claim
resolves the name afresh, checks every address, and hands the worker the first approved IP
(``SeatSpec.endpoint``): the worker dials that IP and never resolves the name, so a DNS answer
changed between the check and the connection (rebinding) cannot reach a private host, and an
operator who narrows the list stops matches with endpoints no longer allowed.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import grpc

import games
from hamlet import codec
from hamlet.channels import open_bot_channel
from hamlet.v1 import bot_pb2_grpc, common_pb2
from server.remote_hosts import (
    AllowList,
    Endpoint,
    EndpointError,
    Resolver,
    TimedResolver,
    hostport,
    parse_endpoint,
    system_resolver,
)
from server.services import validation as v
from server.services.caller import SYSTEM, Caller
from server.services.errors import (
    AlreadyExistsError,
    FailedPreconditionError,
    InvalidArgumentError,
    ResourceExhaustedError,
)
from server.services.hygiene import strip_nul
from server.services.quotas import Quota, QuotaService
from server.storage import BotRecord, Store, StoreConflictError

#: Deadline of the registration handshake (a Decide on the game's first decision).
HANDSHAKE_SECONDS = 2.0
#: Time limit of a host name lookup (registration and claims).
LOOKUP_SECONDS = 2.0
#: Registrations checking their endpoints (lookup and handshake) at once.
HANDSHAKES = 4
#: The match id a handshake request carries (no match has it: ids are hex).
HANDSHAKE_MATCH_ID = "handshake"
MAX_CA_PEM_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class Registered:
    """The outcome of a registration."""

    bot: BotRecord
    created: bool
    checked_address: str


@dataclass(frozen=True, slots=True)
class Pin:
    """Where a worker may dial a remote seat: ``address`` (``ip:port``), or why not."""

    address: str = ""
    tls: bool = False
    server_name: str = ""
    unreachable: str = ""


class RemoteBotService:
    """Registering remote bots and pinning their addresses for matches."""

    def __init__(
        self,
        store: Store,
        allow: AllowList,
        resolve: Resolver = system_resolver,
        handshake_seconds: float = HANDSHAKE_SECONDS,
        quotas: QuotaService | None = None,
        lookup_seconds: float = LOOKUP_SECONDS,
        handshakes: int = HANDSHAKES,
    ) -> None:
        self.store = store
        self.allow = allow
        self.resolve = TimedResolver(resolve, lookup_seconds)
        self.handshake_seconds = handshake_seconds
        self.quotas = quotas or QuotaService(store)
        self.handshakes = handshakes
        self._handshaking = threading.BoundedSemaphore(handshakes)

    def register(
        self,
        name: str,
        game: str,
        endpoint: str,
        description: str,
        ca_pem: str,
        owner_id: int,
        caller: Caller = SYSTEM,
    ) -> Registered:
        """A new version of a remote bot after its endpoint passed the allow-list and the
        handshake. (Whether the caller may add a version is the policy's question.) The
        caller's quotas are checked before the handshake, and again with the write."""
        v.bot_name(name)
        v.game_spec(game)
        if len(description) > v.MAX_DESCRIPTION:
            raise InvalidArgumentError(f"description is longer than {v.MAX_DESCRIPTION} characters")
        try:
            parsed = parse_endpoint(endpoint)
        except EndpointError as exc:
            raise InvalidArgumentError(str(exc)) from None
        _check_ca(parsed, ca_pem)
        existing = self.store.get_bot(name)
        if existing is not None and existing.retired:
            raise FailedPreconditionError(
                f"bot {name!r} is retired; its owner can restore it (`hamlet bot restore {name}`)"
            )
        if existing is not None and existing.origin != "remote":
            raise AlreadyExistsError(f"bot name {name!r} belongs to an {existing.origin} bot")
        # The same endpoint and CA as the latest version make no new version: nothing counted.
        same = existing is not None and (existing.endpoint, existing.ca_pem) == (parsed.url, ca_pem)
        needs = {Quota.BOTS: int(existing is None), Quota.VERSIONS_PER_DAY: int(not same)}
        self.quotas.check_all(caller, needs)  # before any connection is made
        with self._handshake_place():
            pin = self.pin(parsed.url)
            if pin.unreachable:
                raise FailedPreconditionError(f"endpoint {parsed.url} refused: {pin.unreachable}")
            self._handshake(parsed, game, pin, ca_pem)
        try:
            with self.quotas.guard(caller, needs):
                bot, created = self.store.add_remote_version(
                    name, game, parsed.url, ca_pem, strip_nul(description), owner_id
                )
        except StoreConflictError as exc:
            raise AlreadyExistsError(str(exc)) from None
        return Registered(bot, created, pin.address)

    @contextlib.contextmanager
    def _handshake_place(self) -> Iterator[None]:
        """One of the few places for a registration's lookup and handshake (each bounded in
        time), or RESOURCE_EXHAUSTED at once: registrations never hold more than
        ``handshakes`` server threads, however many arrive or however slow their endpoints."""
        if not self._handshaking.acquire(blocking=False):
            raise ResourceExhaustedError(
                f"{self.handshakes} remote bot registrations are already checking their "
                "endpoints (HAMLET_REMOTE_HANDSHAKES); retry in a few seconds"
            )
        try:
            yield
        finally:
            self._handshaking.release()

    def pin(self, endpoint: str) -> Pin:
        """The address to dial for ``endpoint`` now (resolved and checked afresh)."""
        try:
            parsed = parse_endpoint(endpoint)
            addresses = self.allow.check(parsed, self.resolve)
        except EndpointError as exc:
            return Pin(unreachable=str(exc))
        return Pin(
            address=hostport(str(addresses[0]), parsed.port),
            tls=parsed.tls,
            server_name=parsed.host if parsed.literal is None else "",
        )

    def _handshake(self, endpoint: Endpoint, game: str, pin: Pin, ca_pem: str) -> None:
        """A Decide on the game's first decision must answer a legal index in time."""
        request = handshake_request(game)
        tried = f"Decide (the first decision of {game}) on {endpoint.url} at {pin.address}"
        channel = open_bot_channel(
            pin.address, tls=pin.tls, ca_pem=ca_pem, server_name=pin.server_name
        )
        try:
            stub = bot_pb2_grpc.BotStub(channel)  # type: ignore[no-untyped-call]
            answer: common_pb2.DecisionResponse = stub.Decide(
                request, timeout=self.handshake_seconds
            )
        except grpc.RpcError as exc:
            code = exc.code().name if isinstance(exc, grpc.Call) else "UNKNOWN"
            detail = (exc.details() if isinstance(exc, grpc.Call) else str(exc)) or ""
            raise FailedPreconditionError(
                f"handshake failed: {tried} with a {self.handshake_seconds:g}s deadline: "
                f"{code}: {detail[:300]}"
            ) from None
        finally:
            channel.close()
        legal = len(request.legal_actions)
        if not 0 <= answer.action_index < legal:
            raise FailedPreconditionError(
                f"handshake failed: {tried} answered index {answer.action_index}; legal "
                f"indices are 0..{legal - 1}"
            )


def handshake_request(game: str) -> common_pb2.DecisionRequest:
    """The first decision of a fresh ``game`` table of its fewest players (seed 0)."""
    spec = games.get(game)
    state = spec.new_game(num_players=spec.min_players, seed=0)
    seat = state.to_move()
    assert seat is not None  # a new game has a player to move
    try:
        return codec.decision_request(
            game,
            HANDSHAKE_MATCH_ID,
            seat,
            0,
            state.observation(seat),
            list(state.legal_actions()),
            int(HANDSHAKE_SECONDS * 1000),
        )
    except codec.CodecError as exc:
        raise FailedPreconditionError(
            f"{game} has no wire form, so remote bots cannot play it: {exc}"
        ) from None


def _check_ca(endpoint: Endpoint, ca_pem: str) -> None:
    if not ca_pem:
        return
    if not endpoint.tls:
        raise InvalidArgumentError("a CA certificate is only for grpcs:// endpoints")
    if len(ca_pem.encode()) > MAX_CA_PEM_BYTES:
        raise InvalidArgumentError(f"the CA certificate is larger than {MAX_CA_PEM_BYTES} bytes")
    if "-----BEGIN CERTIFICATE-----" not in ca_pem:
        raise InvalidArgumentError("the CA certificate is not PEM (-----BEGIN CERTIFICATE-----)")
