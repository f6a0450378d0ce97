"""Registering remote bots cannot take the server's threads: the allow-list is judged on the
name before any lookup, lookups have a time limit, and only a few registrations check their
endpoints (lookup and handshake) at once; the rest are refused at once. Nothing here is timed:
the slow parts block on events the test releases, and each test waits on conditions."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from concurrent import futures
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest

from hamlet.v1 import arena_pb2, bot_pb2_grpc, common_pb2
from server.remote_hosts import AllowList, EndpointError, TimedResolver
from tests.server.conftest import Running, snapshot
from tests.server.conftest import serving as serve

GAME = "village"
#: A guard against a hang, not a measurement.
GUARD = 60.0
FLOOD = 40


class Gate:
    """Counts callers that arrived and holds them until released."""

    def __init__(self) -> None:
        self.arrived = 0
        self.release = threading.Event()
        self._changed = threading.Condition()

    def enter(self) -> None:
        with self._changed:
            self.arrived += 1
            self._changed.notify_all()
        self.release.wait(GUARD)

    def wait_for(self, count: int) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: self.arrived >= count, GUARD)


class SlowBot(bot_pb2_grpc.BotServicer):
    """A remote bot that answers (index 0) only once released."""

    def __init__(self, gate: Gate) -> None:
        self.gate = gate

    def Decide(
        self, request: common_pb2.DecisionRequest, context: grpc.ServicerContext
    ) -> common_pb2.DecisionResponse:
        self.gate.enter()
        return common_pb2.DecisionResponse(action_index=0)


@contextmanager
def slow_bot(gate: Gate) -> Iterator[int]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=FLOOD + 4))
    bot_pb2_grpc.add_BotServicer_to_server(SlowBot(gate), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield port
    finally:
        gate.release.set()
        server.stop(grace=None).wait()


class Dns:
    """A resolver the test controls: records every lookup; ``slow`` names wait on a gate."""

    def __init__(self, gate: Gate | None = None) -> None:
        self.gate = gate
        self.looked_up: list[str] = []

    def __call__(self, host: str, port: int) -> Sequence[str]:
        self.looked_up.append(host)
        if self.gate is not None:
            self.gate.enter()
        return ["127.0.0.1"]


@contextmanager
def serving(tmp_path: Path, dns: Dns, hosts: str, **changes: object) -> Iterator[Running]:
    """A test server that allows remote bots at ``hosts`` and resolves names with ``dns``."""
    with serve(tmp_path, dns, remote_bot_hosts=AllowList.parse(hosts), **changes) as run:
        yield run


class Flood:
    """``FLOOD`` registrations of ``endpoint`` at once, each on a thread of its own."""

    def __init__(self, run: Running, endpoint: str) -> None:
        self.codes: list[grpc.StatusCode] = []
        self.details: list[str] = []
        self._changed = threading.Condition()
        self.threads = [
            threading.Thread(target=self._one, args=(run, f"flood{i}", endpoint), daemon=True)
            for i in range(FLOOD)
        ]
        for t in self.threads:
            t.start()

    def _one(self, run: Running, name: str, endpoint: str) -> None:
        request = arena_pb2.RegisterRemoteBotRequest(name=name, game=GAME, endpoint=endpoint)
        try:
            run.arena.RegisterRemoteBot(request, timeout=GUARD)
            code, details = grpc.StatusCode.OK, ""
        except grpc.RpcError as exc:
            code, details = exc.code(), exc.details() or ""  # type: ignore[attr-defined]
        with self._changed:
            self.codes.append(code)
            self.details.append(details)
            self._changed.notify_all()

    def wait_for_answers(self, count: int) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: len(self.codes) >= count, GUARD)

    def join(self) -> None:
        for t in self.threads:
            t.join(GUARD)


def _flood_leaves_list_games_answering(run: Running, gate: Gate, endpoint: str) -> None:
    slots = run.server.settings.remote_handshakes
    flood = Flood(run, endpoint)
    gate.wait_for(slots)  # that many are checking their endpoint, and hang there
    flood.wait_for_answers(FLOOD - slots)  # the others were refused at once
    refused = [c for c in flood.codes if c is grpc.StatusCode.RESOURCE_EXHAUSTED]
    assert len(refused) == FLOOD - slots
    assert all("HAMLET_REMOTE_HANDSHAKES" in d for d in flood.details)
    games = run.connect(None).ListGames(arena_pb2.ListGamesRequest(), timeout=GUARD)
    assert games.games  # answered OK while the registrations hang
    assert len(flood.codes) == FLOOD - slots and gate.arrived == slots  # still hanging
    gate.release.set()
    flood.join()
    assert len(flood.codes) == FLOOD


def test_forty_slow_handshakes_leave_list_games_answering(tmp_path: Path) -> None:
    gate = Gate()
    with (
        slow_bot(gate) as port,
        serving(tmp_path, Dns(), "127.0.0.1", remote_handshake_seconds=GUARD) as run,
    ):
        _flood_leaves_list_games_answering(run, gate, f"grpc://127.0.0.1:{port}")


def test_forty_slow_lookups_leave_list_games_answering(tmp_path: Path) -> None:
    gate = Gate()
    dns = Dns(gate)
    hosts = "bot.example.org,127.0.0.1"
    with serving(tmp_path, dns, hosts, remote_lookup_seconds=GUARD) as run:
        try:
            _flood_leaves_list_games_answering(run, gate, "grpc://bot.example.org:1")
        finally:
            gate.release.set()


def test_a_lookup_past_its_time_limit_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    gate = Gate()  # never released before the refusal: the lookup hangs
    with serving(tmp_path, Dns(gate), "bot.example.org", remote_lookup_seconds=0.2) as run:
        before = snapshot(run.store)
        request = arena_pb2.RegisterRemoteBotRequest(
            name="slowdns", game=GAME, endpoint="grpc://bot.example.org:1"
        )
        with pytest.raises(grpc.RpcError) as err:
            run.arena.RegisterRemoteBot(request, timeout=GUARD)
        gate.release.set()
        assert err.value.code() is grpc.StatusCode.FAILED_PRECONDITION  # type: ignore[attr-defined]
        says = err.value.details() or ""  # type: ignore[attr-defined]
        assert "no answer within 0.2 s" in says and "HAMLET_REMOTE_LOOKUP_SECONDS" in says
        assert snapshot(run.store) == before


def test_a_name_not_listed_is_refused_without_a_lookup(tmp_path: Path) -> None:
    dns = Dns()
    with serving(tmp_path, dns, "bot.example.org,127.0.0.0/8") as run:
        for endpoint in ("grpc://other.example.org:1", "grpc://bot.example.org.evil.net:1"):
            request = arena_pb2.RegisterRemoteBotRequest(name="x", game=GAME, endpoint=endpoint)
            with pytest.raises(grpc.RpcError) as err:
                run.arena.RegisterRemoteBot(request, timeout=GUARD)
            assert err.value.code() is grpc.StatusCode.FAILED_PRECONDITION  # type: ignore[attr-defined]
            assert "must be listed by name" in (err.value.details() or "")  # type: ignore[attr-defined]
    assert dns.looked_up == []


def test_lookups_in_flight_are_bounded() -> None:
    gate = Gate()
    timed = TimedResolver(Dns(gate), seconds=0.05, parallel=2)
    for _ in range(2):
        with pytest.raises(EndpointError, match="no answer within"):
            timed("bot.example.org", 1)
    gate.wait_for(2)
    with pytest.raises(EndpointError, match="2 host name lookups are already in flight"):
        timed("bot.example.org", 1)
    gate.release.set()
