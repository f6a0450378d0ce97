"""Seat clients: how the runner reaches each kind of bot.

- :class:`BuiltinClient`: a :mod:`bots.registry` bot in this process, given the real state;
- :class:`SandboxClient`: an uploaded bot file in a :class:`~workers.sandbox.SandboxedBot`,
  spoken to with framed ``DecisionRequest``/``DecisionResponse`` messages;
- :class:`RemoteClient`: an author's own ``hamlet.v1.Bot`` gRPC service, with a deadline.

:class:`SeatClients` builds the clients of a match from its plan. Faults of a bot are
:class:`~workers.model.BotError`; faults of ours (unknown built-in, sandbox that cannot
start, code that does not match its hash) are :class:`~workers.model.InfrastructureError`.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import random
import re
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import grpc

from bots import registry
from bots.api import Bot, Decision, UnsupportedGameError
from games import Action, State, derive_seed
from hamlet import codec
from hamlet.channels import open_bot_channel
from hamlet.v1 import bot_pb2_grpc, common_pb2
from workers.capacity import current_report
from workers.model import (
    BotError,
    BotKind,
    ForfeitReason,
    InfrastructureError,
    MatchPlan,
    SeatClient,
    SeatPlan,
)
from workers.sandbox import SandboxedBot, SandboxError, SandboxLimits

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
log = logging.getLogger(__name__)


class BuiltinClient:
    """A trusted built-in bot running in the worker process."""

    kind = BotKind.BUILTIN

    def __init__(self, bot: Bot) -> None:
        self._bot = bot

    def decide(
        self, state: State, legal: Sequence[Action], decision: Decision, timeout_s: float
    ) -> int:
        """Ask the bot; the runner charges the time it took (it cannot be pre-empted)."""
        return self._bot.decide(state, legal, decision)

    def close(self) -> None:
        """Nothing to release."""


def _request(
    match_id: str, state: State, legal: Sequence[Action], decision: Decision, timeout_s: float
) -> common_pb2.DecisionRequest:
    try:
        return codec.decision_request(
            decision.game,
            match_id,
            decision.seat,
            decision.seat_decision_index,
            state.observation(decision.seat),
            list(legal),
            int(timeout_s * 1000),
        )
    except codec.CodecError as exc:
        raise InfrastructureError(f"cannot encode the decision request: {exc}") from exc


class SandboxClient:
    """An uploaded bot in its sandboxed process, one process for the whole match."""

    kind = BotKind.UPLOADED

    def __init__(self, match_id: str, bot: SandboxedBot) -> None:
        self._match_id = match_id
        self._bot = bot

    def decide(
        self, state: State, legal: Sequence[Action], decision: Decision, timeout_s: float
    ) -> int:
        """Send the framed request; decode the framed answer (in the manifest's framing)."""
        framing = self._bot.manifest.framing
        request = _request(self._match_id, state, legal, decision, timeout_s)
        raw = self._bot.exchange(codec.encode_message(request, framing), timeout_s)
        try:
            answer = codec.decode_message(raw, common_pb2.DecisionResponse, framing)
        except codec.CodecError as exc:
            raise BotError(
                ForfeitReason.BAD_OUTPUT, f"answer is not a DecisionResponse: {exc}"
            ) from None
        return answer.action_index

    def thaw(self) -> None:
        """Wake the frozen sandbox for its decision (the runner calls it off the bot's clock)."""
        self._bot.thaw()

    def stderr_mark(self) -> int:
        """Bytes of stderr read from the bot so far (for :mod:`workers.trace`)."""
        return self._bot.stderr_mark()

    def stderr_tail(self) -> str:
        """The last of the bot's stderr."""
        return self._bot.stderr_tail()

    def close(self) -> None:
        """Kill the bot's processes."""
        self._bot.close()


class FaultyClient:
    """A bot that cannot even start (a malformed archive, a remote endpoint the server refused
    at claim time): it forfeits at its first decision, so the match goes on for the others."""

    def __init__(self, fault: BotError, kind: BotKind = BotKind.UPLOADED) -> None:
        self._fault = fault
        self.kind = kind

    def decide(
        self, state: State, legal: Sequence[Action], decision: Decision, timeout_s: float
    ) -> int:
        """Raise the fault."""
        raise self._fault

    def close(self) -> None:
        """Nothing to release."""


#: Codes that mean the call never reached a working bot: the endpoint is down, refused the
#: connection or the TLS handshake. Other codes are the bot's own answer (a crash).
_UNREACHABLE = frozenset({grpc.StatusCode.UNAVAILABLE})
_BAD_OUTPUT = frozenset({grpc.StatusCode.RESOURCE_EXHAUSTED})


class RemoteClient:
    """An author's ``hamlet.v1.Bot`` gRPC service at a pinned address (``ip:port``)."""

    kind = BotKind.REMOTE

    def __init__(
        self,
        match_id: str,
        endpoint: str,
        *,
        tls: bool = False,
        ca_pem: str = "",
        server_name: str = "",
        shown_as: str = "",
        channels: RemoteChannels | None = None,
    ) -> None:
        self._match_id = match_id
        self._endpoint = shown_as or endpoint
        #: A pooled channel belongs to the pool (the block), not to this match's client.
        self._owns_channel = channels is None
        try:
            self._channel = (
                open_bot_channel(endpoint, tls=tls, ca_pem=ca_pem, server_name=server_name)
                if channels is None
                else channels.get(endpoint, tls, ca_pem, server_name)
            )
        except ValueError as exc:  # the server pins an IP; anything else is a bug of ours
            raise InfrastructureError(f"remote bot address: {exc}") from exc
        self._stub = bot_pb2_grpc.BotStub(self._channel)  # type: ignore[no-untyped-call]

    def decide(
        self, state: State, legal: Sequence[Action], decision: Decision, timeout_s: float
    ) -> int:
        """One ``Decide`` call with the seat's time left as its deadline."""
        request = _request(self._match_id, state, legal, decision, timeout_s)
        try:
            response: common_pb2.DecisionResponse = self._stub.Decide(
                request, timeout=max(timeout_s, 0.001)
            )
        except grpc.RpcError as exc:
            code = exc.code() if isinstance(exc, grpc.Call) else grpc.StatusCode.UNKNOWN
            detail = exc.details() if isinstance(exc, grpc.Call) else str(exc)
            if code == grpc.StatusCode.DEADLINE_EXCEEDED:
                raise BotError(
                    ForfeitReason.TIMEOUT, f"no answer within {timeout_s:.3f}s"
                ) from None
            if code in _UNREACHABLE:
                raise BotError(
                    ForfeitReason.UNREACHABLE, f"{self._endpoint}: {code.name}: {detail}"
                ) from None
            if code in _BAD_OUTPUT:
                raise BotError(
                    ForfeitReason.BAD_OUTPUT, f"{self._endpoint}: {code.name}: {detail}"
                ) from None
            raise BotError(
                ForfeitReason.CRASH, f"{self._endpoint}: {code.name}: {detail}"
            ) from None
        return response.action_index

    def close(self) -> None:
        """Close the channel (a pooled one stays open for the block's next match)."""
        if self._owns_channel:
            self._channel.close()


class RemoteChannels:
    """Remote bots' channels shared by the matches of one block: the seat rotations of a
    table reach the same pinned addresses, so one connection (and TLS handshake) per bot
    serves them all. Every request names its match, so the bot tells them apart."""

    def __init__(self) -> None:
        self._open: dict[tuple[str, bool, str, str], grpc.Channel] = {}

    def get(self, endpoint: str, tls: bool, ca_pem: str, server_name: str) -> grpc.Channel:
        """The pool's channel to ``endpoint`` (opened on first use)."""
        key = (endpoint, tls, ca_pem, server_name)
        channel = self._open.get(key)
        if channel is None:
            channel = open_bot_channel(endpoint, tls=tls, ca_pem=ca_pem, server_name=server_name)
            self._open[key] = channel
        return channel

    def __len__(self) -> int:
        return len(self._open)

    def close(self) -> None:
        """Close every channel."""
        for channel in self._open.values():
            with contextlib.suppress(Exception):
                channel.close()
        self._open.clear()


class CodeCache:
    """Uploaded bot code on local disk, addressed (and verified) by SHA-256."""

    def __init__(self, directory: Path, fetch: Callable[[str], bytes]) -> None:
        self._dir = directory
        self._fetch = fetch

    def path(self, code_sha256: str) -> Path:
        """A local file holding the code; fetched from the server on first use."""
        if not _SHA256.match(code_sha256):
            raise InfrastructureError(f"not a SHA-256 hex digest: {code_sha256!r}")
        target = self._dir / f"{code_sha256}.py"
        if target.exists() and _sha256(target.read_bytes()) == code_sha256:
            return target
        code = self._fetch(code_sha256)
        if _sha256(code) != code_sha256:
            raise InfrastructureError(f"fetched code does not hash to {code_sha256}")
        self._dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self._dir, suffix=".part")
        with os.fdopen(fd, "wb") as out:
            out.write(code)
        os.replace(tmp, target)  # atomic: concurrent workers never read half a file
        return target


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class SeatClients:
    """Builds the seat clients of a match."""

    def __init__(self, code: CodeCache | None = None, limits: SandboxLimits | None = None) -> None:
        self._code = code
        self._limits = limits or SandboxLimits()
        #: Whether the last :meth:`open` ran an uploaded bot without the full sandbox.
        self.unrated = False
        #: The sandbox tier of the last :meth:`open`'s uploaded bots ("" if none).
        self.sandbox_tier = ""
        self._channels: RemoteChannels | None = None

    def open(self, plan: MatchPlan) -> list[SeatClient]:
        """One client per seat, in seat order; on failure none is left open."""
        self.unrated = False
        self.sandbox_tier = ""
        clients: list[SeatClient] = []
        try:
            for seat in plan.seats:
                clients.append(self._one(plan, seat))
        except BaseException:
            for client in clients:
                with contextlib.suppress(Exception):
                    client.close()
            raise
        return clients

    def _one(self, plan: MatchPlan, seat: SeatPlan) -> SeatClient:
        if seat.kind is BotKind.BUILTIN:
            rng = random.Random(derive_seed(plan.seed, f"bot:{seat.bot_name}", seat.seat))
            try:
                return BuiltinClient(registry.make(seat.bot_name, plan.game, rng))
            except (KeyError, UnsupportedGameError) as exc:
                raise InfrastructureError(f"seat {seat.seat}: {exc}") from exc
        if seat.kind is BotKind.UPLOADED:
            if self._code is None:
                raise InfrastructureError("this worker has no code cache for uploaded bots")
            report = current_report(self._limits)
            if not report.plays_uploaded:
                raise InfrastructureError(
                    f"seat {seat.seat}: this worker refuses uploaded bots, its sandbox is "
                    f"missing guarantees: {report.why_refused()}"
                )
            try:
                bot = SandboxedBot(self._code.path(seat.code_sha256), self._limits)
            except SandboxError as exc:
                raise InfrastructureError(f"seat {seat.seat}: {exc}") from exc
            except BotError as exc:
                return FaultyClient(exc)
            self.unrated = self.unrated or bot.unrated
            self.sandbox_tier = report.tier.value
            return SandboxClient(plan.match_id, bot)
        if seat.unreachable:
            shown = seat.endpoint_url or "the endpoint"
            return FaultyClient(
                BotError(ForfeitReason.UNREACHABLE, f"{shown} not dialled: {seat.unreachable}"),
                BotKind.REMOTE,
            )
        if not seat.endpoint:
            raise InfrastructureError(f"seat {seat.seat}: remote bot without an endpoint")
        return RemoteClient(
            plan.match_id,
            seat.endpoint,
            tls=seat.tls,
            ca_pem=seat.ca_pem,
            server_name=seat.tls_server_name,
            shown_as=seat.endpoint_url,
            channels=self._channels,
        )

    @contextlib.contextmanager
    def block(self) -> Iterator[RemoteChannels]:
        """While inside, remote seats share one channel per address (a block's matches)."""
        channels = RemoteChannels()
        self._channels = channels
        try:
            yield channels
        finally:
            self._channels = None
            channels.close()
