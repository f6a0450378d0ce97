"""Seat clients for remote bots: a pinned address dialled as it is (never a name), TLS
checked against the registered host name, and each way a remote seat can fail mapped to its
forfeit (``unreachable`` for an endpoint that is down or was refused at claim time)."""

from __future__ import annotations

import shutil
import subprocess
import threading
from pathlib import Path

import grpc
import pytest

import games
from bots.api import Decision
from hamlet.channels import pinned_target
from hamlet.v1 import worker_pb2
from tests.remotebot import serve_bot
from workers.clients import RemoteClient, SeatClients
from workers.model import (
    BotError,
    BotKind,
    ForfeitReason,
    InfrastructureError,
    MatchPlan,
    SeatPlan,
)
from workers.play import play_plan
from workers.reporting import plan_from_proto


def _ask(client: RemoteClient, timeout_s: float = 5.0) -> int:
    state = games.get("village").new_game(num_players=2, seed=3)
    player = state.to_move()
    assert player is not None
    legal = state.legal_actions()
    return client.decide(state, legal, Decision("village", player, 0, timeout_s), timeout_s)


def test_a_remote_bot_answers_at_its_pinned_address() -> None:
    with serve_bot(answer=lambda r: len(r.legal_actions) - 1) as bot:
        client = RemoteClient("m1", f"127.0.0.1:{bot.port}")
        try:
            assert _ask(client) >= 0
        finally:
            client.close()
        (request,) = bot.bot.requests
        assert request.match_id == "m1" and request.time_left_ms == 5000


def test_a_stopped_endpoint_is_unreachable() -> None:
    with serve_bot() as bot:
        port = bot.port
    client = RemoteClient("m1", f"127.0.0.1:{port}", shown_as=f"grpc://bots.test:{port}")
    with pytest.raises(BotError) as err:
        _ask(client)
    assert err.value.reason is ForfeitReason.UNREACHABLE
    assert f"grpc://bots.test:{port}: UNAVAILABLE" in err.value.detail


def test_a_bot_that_fails_its_call_crashes_and_a_slow_one_times_out() -> None:
    def fail(request: object) -> int:
        raise RuntimeError("boom")

    with serve_bot(answer=fail) as bot:
        client = RemoteClient("m1", f"127.0.0.1:{bot.port}")
        with pytest.raises(BotError) as err:
            _ask(client)
        assert err.value.reason is ForfeitReason.CRASH
    release = threading.Event()
    with serve_bot(answer=lambda r: int(not release.wait(30))) as bot:
        client = RemoteClient("m1", f"127.0.0.1:{bot.port}")
        try:
            with pytest.raises(BotError) as err:
                _ask(client, timeout_s=0.2)
        finally:
            release.set()
        assert err.value.reason is ForfeitReason.TIMEOUT


@pytest.mark.parametrize(
    "address", ["localhost:50051", "bots.example.org:1", "::1:50051", "127.0.0.1", "1.2.3.4:0"]
)
def test_workers_never_dial_a_name_or_a_bad_address(address: str) -> None:
    with pytest.raises(ValueError):
        pinned_target(address)
    with pytest.raises(InfrastructureError):
        RemoteClient("m1", address)


def test_pinned_targets_bypass_the_resolver() -> None:
    assert pinned_target("127.0.0.1:5") == "ipv4:127.0.0.1:5"
    assert pinned_target("[::1]:5") == "ipv6:[::1]:5"


def _plan(seat: SeatPlan) -> MatchPlan:
    return MatchPlan(
        match_id="m9",
        game="village",
        rules_version="",
        seed=5,
        seats=(seat, SeatPlan(1, "random", 1, BotKind.BUILTIN)),
        decision_time_s=1.0,
        time_bank_s=1.0,
    )


def test_a_seat_the_server_refused_at_claim_forfeits_unreachable() -> None:
    seat = SeatPlan(
        0,
        "rebind",
        1,
        BotKind.REMOTE,
        endpoint_url="grpc://bot.example.org:7",
        unreachable="bot.example.org (10.0.0.7) is a private address",
    )
    record = play_plan(_plan(seat), SeatClients())
    (forfeit,) = record.forfeits
    assert (forfeit.seat, forfeit.reason, forfeit.at_decision) == (
        0,
        ForfeitReason.UNREACHABLE,
        0,
    )
    assert "grpc://bot.example.org:7 not dialled" in forfeit.detail


def test_a_remote_seat_plays_a_whole_match_and_the_spec_carries_its_endpoint() -> None:
    spec = worker_pb2.MatchSpec(
        match_id="m9",
        game="village",
        seed=5,
        decision_time_ms=1000,
        time_bank_ms=1000,
        seats=[
            worker_pb2.SeatSpec(seat=1, bot_name="random", kind=worker_pb2.BOT_KIND_BUILTIN),
            worker_pb2.SeatSpec(
                seat=0,
                bot_name="py",
                kind=worker_pb2.BOT_KIND_REMOTE,
                endpoint_url="grpc://bots.test:1",
            ),
        ],
    )
    with serve_bot() as bot:
        spec.seats[1].endpoint = f"127.0.0.1:{bot.port}"
        plan = plan_from_proto(spec)
        assert plan.seats[0].endpoint_url == "grpc://bots.test:1"
        record = play_plan(plan, SeatClients())
    assert not record.forfeits and len(bot.bot.requests) > 0


def _certificate(directory: Path, name: str) -> tuple[bytes, bytes]:
    cert, key = directory / f"{name}.crt", directory / f"{name}.key"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", f"/CN={name}", "-addext", f"subjectAltName=DNS:{name}",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert.read_bytes(), key.read_bytes()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl binary")
def test_tls_is_verified_against_the_registered_name(tmp_path: Path) -> None:
    cert, key = _certificate(tmp_path, "bots.test")
    other, _ = _certificate(tmp_path, "other.test")
    credentials = grpc.ssl_server_credentials([(key, cert)])
    with serve_bot(credentials=credentials) as bot:
        address = f"127.0.0.1:{bot.port}"
        good = RemoteClient("m1", address, tls=True, ca_pem=cert.decode(), server_name="bots.test")
        assert _ask(good) >= 0
        good.close()
        for ca, name in ((cert, "evil.test"), (other, "bots.test"), (b"", "bots.test")):
            bad = RemoteClient("m1", address, tls=True, ca_pem=ca.decode(), server_name=name)
            with pytest.raises(BotError) as err:
                _ask(bad)
            bad.close()
            assert err.value.reason is ForfeitReason.UNREACHABLE, (name, err.value.detail)


def test_a_blocks_matches_share_one_channel_per_remote_bot_and_it_closes_after() -> None:
    """Issue 12's reuse across a block: the seat rotations reach the same pinned address, so
    one channel serves them; each request still names its match; the pool closes at the end."""
    seats = SeatClients()
    with serve_bot() as bot:
        address = f"127.0.0.1:{bot.port}"
        remote = SeatPlan(0, "py", 1, BotKind.REMOTE, endpoint=address)
        with seats.block() as pool:
            first = play_plan(_plan(remote), seats)
            second = play_plan(
                MatchPlan(
                    match_id="m10",
                    game="village",
                    rules_version="",
                    seed=5,
                    seats=(
                        SeatPlan(0, "random", 1, BotKind.BUILTIN),
                        SeatPlan(1, "py", 1, BotKind.REMOTE, endpoint=address),
                    ),
                    decision_time_s=1.0,
                    time_bank_s=1.0,
                ),
                seats,
            )
            assert len(pool) == 1  # both matches used the one channel
        assert len(pool) == 0
    assert not first.forfeits and not second.forfeits
    assert {r.match_id for r in bot.bot.requests} == {"m9", "m10"}
    # Outside a block, a remote client owns (and closes) its own channel again.
    assert seats._channels is None
