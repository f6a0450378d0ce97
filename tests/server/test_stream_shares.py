"""Shares of the stream cap: anonymous callers together hold at most half of it, one client
(a user, or an address when anonymous) a few places, and a stream with nothing to say ends.
A crowd of anonymous watchers never locks a signed-in user out. Nothing here is timed: each
test waits on a condition, with a guard against a hang."""

from __future__ import annotations

import threading
from pathlib import Path

import grpc
import pytest

from hamlet.v1 import arena_pb2, arena_pb2_grpc
from server.config import ConfigError, Settings
from server.servicers.gate import StreamClient, StreamGate, peer_host
from server.services.errors import ResourceExhaustedError
from tests.server import fakeworker
from tests.server.conftest import Running, serving

#: A guard against a hang, not a measurement.
GUARD = 60.0


def _open_tournament(run: Running) -> str:
    """A started tournament whose matches nobody plays: its streams stay open."""
    fakeworker.announce(run.worker_channel, ["toy"])
    t = run.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=["alpha", "beta"], players_per_table=2, start=True
        )
    )
    return t.tournament_id


class Watch:
    """One stream, opened now: ``opened`` once its first event came, else ``error``."""

    def __init__(self, stub: arena_pb2_grpc.ArenaStub, tid: str) -> None:
        req = arena_pb2.WatchTournamentRequest(tournament_id=tid)
        self.stream = stub.WatchTournament(req, timeout=GUARD)
        self.error: grpc.RpcError | None = None
        self.done = threading.Event()
        threading.Thread(target=self._first, daemon=True).start()
        assert self.done.wait(GUARD)

    def _first(self) -> None:
        try:
            next(self.stream)
        except grpc.RpcError as exc:
            self.error = exc
        self.done.set()

    @property
    def opened(self) -> bool:
        return self.error is None

    def details(self) -> str:
        assert self.error is not None
        assert self.error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED  # type: ignore[attr-defined]
        return self.error.details() or ""  # type: ignore[attr-defined]


def test_sixteen_anonymous_streams_do_not_lock_out_a_user(running: Running) -> None:
    """The attack: 16 anonymous watchers (the whole default cap) from one machine."""
    tid = _open_tournament(running)
    anon = running.connect(None)
    crowd = [Watch(anon, tid) for _ in range(16)]
    served = [w for w in crowd if w.opened]
    assert len(served) == running.server.settings.max_streams_per_client  # one address's share
    for w in crowd:
        if not w.opened:
            assert "this client (address 127.0.0.1) already holds its share" in w.details()
    _, user = running.user("ann")
    assert Watch(user, tid).opened
    for w in crowd:
        w.stream.cancel()


def test_anonymous_callers_together_hold_at_most_half_the_cap(tmp_path: Path, toy: str) -> None:
    """Many addresses (here, one with a large per-client share): anonymous streams stop at
    half the cap, and users keep the other half."""
    with serving(tmp_path, max_streams=16, max_streams_per_client=16) as run:
        tid = _open_tournament(run)
        anon = run.connect(None)
        crowd = [Watch(anon, tid) for _ in range(16)]
        assert sum(w.opened for w in crowd) == 8
        for w in crowd[8:]:
            assert "anonymous callers already hold their share of 8 of the server's 16" in (
                w.details()
            )
        users = [run.user(f"u{i}")[1] for i in range(8)]
        theirs = [Watch(u, tid) for u in users]  # kept: a dropped stream is cancelled
        assert all(w.opened for w in theirs)  # the other half
        late = Watch(run.user("late")[1], tid)  # now the cap itself is full
        assert not late.opened and "cap of 16 open streams" in late.details()


def test_one_user_holds_at_most_a_few_streams(running: Running) -> None:
    tid = _open_tournament(running)
    share = running.server.settings.max_streams_per_client
    _, ann = running.user("ann")
    mine = [Watch(ann, tid) for _ in range(share + 1)]
    assert [w.opened for w in mine] == [True] * share + [False]
    assert "already holds its share of 4 open streams" in mine[-1].details()
    assert "HAMLET_MAX_STREAMS_PER_CLIENT" in mine[-1].details()
    _, bo = running.user("bo")
    assert Watch(bo, tid).opened  # another user's share is their own
    mine[0].stream.cancel()
    for _ in range(int(GUARD * 10)):  # the cancelled stream's place comes back
        again = Watch(ann, tid)
        if again.opened:
            break
        threading.Event().wait(0.1)
    assert again.opened


def test_a_stream_with_nothing_new_ends_and_says_why(tmp_path: Path, toy: str) -> None:
    with serving(tmp_path, stream_idle_seconds=0.3, max_streams_per_client=1) as run:
        tid = _open_tournament(run)
        _, ann = run.user("ann")
        stream = ann.WatchTournament(
            arena_pb2.WatchTournamentRequest(tournament_id=tid), timeout=GUARD
        )
        next(stream)  # the tournament now; then nothing happens
        with pytest.raises(grpc.RpcError) as ended:
            next(stream)
        assert ended.value.code() is grpc.StatusCode.UNAVAILABLE  # type: ignore[attr-defined]
        assert "sent nothing new for 0.3 s" in (ended.value.details() or "")  # type: ignore[attr-defined]
        assert "HAMLET_STREAM_IDLE_SECONDS" in (ended.value.details() or "")  # type: ignore[attr-defined]
        assert Watch(ann, tid).opened  # its place (the user's only one) is free again


def test_sprt_streams_share_the_same_places(tmp_path: Path, toy: str) -> None:
    with serving(tmp_path, max_streams_per_client=1) as run:
        fakeworker.announce(run.worker_channel, ["toy"], bots=("alpha", "beta", "gamma"))
        started = run.arena.StartSprt(
            arena_pb2.StartSprtRequest(
                game="toy", bot_a="alpha", bot_b="beta", opponents=["gamma"], elo1=200
            )
        )
        _, ann = run.user("ann")
        first = ann.WatchSprt(arena_pb2.SprtRef(test_id=started.test_id), timeout=GUARD)
        next(first)
        second = ann.WatchSprt(arena_pb2.SprtRef(test_id=started.test_id), timeout=GUARD)
        with pytest.raises(grpc.RpcError) as refused:
            next(second)
        assert refused.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED  # type: ignore[attr-defined]
        first.cancel()


def test_the_gate_admits_by_share_then_cap() -> None:
    gate = StreamGate(4, anonymous=2, per_client=2)
    u = StreamClient("user 1", False)

    def refused(client: StreamClient, match: str) -> None:
        with (
            pytest.raises(ResourceExhaustedError, match=match),
            gate.hold(client, threading.Event()),
        ):
            pass

    with (
        gate.hold(StreamClient("address 1", True), threading.Event()),
        gate.hold(StreamClient("address 2", True), threading.Event()),
    ):
        refused(StreamClient("address 3", True), "anonymous callers")
        with gate.hold(u, threading.Event()), gate.hold(u, threading.Event()):
            refused(u, "user 1")
            refused(StreamClient("user 2", False), "cap of 4")
    assert gate.open == 0


@pytest.mark.parametrize(
    ("peer", "host"),
    [
        ("ipv4:127.0.0.1:5000", "127.0.0.1"),
        ("ipv6:[::1]:5000", "::1"),
        ("unix:/tmp/s", "unix:/tmp/s"),
    ],
)
def test_a_peer_s_port_is_not_part_of_its_share(peer: str, host: str) -> None:
    assert peer_host(peer) == host


def test_the_shares_are_configured_and_checked() -> None:
    env = {
        "HAMLET_MAX_STREAMS": "10",
        "HAMLET_MAX_ANONYMOUS_STREAMS": "3",
        "HAMLET_MAX_STREAMS_PER_CLIENT": "2",
        "HAMLET_STREAM_IDLE_SECONDS": "60",
    }
    s = Settings.from_env(env)
    assert (s.effective_anonymous_streams, s.max_streams_per_client) == (3, 2)
    assert s.stream_idle_seconds == 60.0
    assert Settings.from_env({"HAMLET_MAX_STREAMS": "10"}).effective_anonymous_streams == 5
    for bad in (
        {"HAMLET_MAX_ANONYMOUS_STREAMS": "9"},  # more than half of 16
        {"HAMLET_MAX_STREAMS_PER_CLIENT": "0"},
        {"HAMLET_STREAM_IDLE_SECONDS": "0"},
    ):
        with pytest.raises(ConfigError):
            Settings.from_env(bad)
