"""Remote bots through a real server: registration (owner rules, versions, the handshake),
refusals that write nothing, and claims that pin a checked address (DNS rebinding).

The remote bots are real gRPC ``hamlet.v1.Bot`` servers in this process (tests/remotebot.py);
host names resolve through a table the test controls, as an attacker's DNS would answer."""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import grpc
import pytest
from prometheus_client import CollectorRegistry
from sqlalchemy import text

from hamlet.v1 import arena_pb2, worker_pb2
from server.app import build_server
from server.config import Settings
from server.remote_hosts import AllowList
from server.services.scheduling import MemoryEnqueuer
from tests.remotebot import serve_bot
from tests.server import fakeworker
from tests.server.conftest import Running, snapshot
from tests.server.fakeworker import FAKE_WORKER_WINDOW

GAME = "village"
FAILED = grpc.StatusCode.FAILED_PRECONDITION
INVALID = grpc.StatusCode.INVALID_ARGUMENT


class Dns:
    """Host name -> addresses; tests change answers between registration and play."""

    def __init__(self) -> None:
        self.table: dict[str, Sequence[str]] = {}

    def __call__(self, host: str, port: int) -> Sequence[str]:
        if host not in self.table:
            raise OSError(f"Name or service not known: {host}")
        return self.table[host]


def _serve(tmp: Path, hosts: str, dns: Dns) -> Running:
    settings = Settings(
        dispatch_window=FAKE_WORKER_WINDOW,
        data_dir=tmp / "data",
        grpc_port=0,
        metrics_port=-1,
        reaper_interval_seconds=3600,
        remote_bot_hosts=AllowList.parse(hosts),
    )
    queue = MemoryEnqueuer()
    registry = CollectorRegistry()
    server, port = build_server(settings, enqueuer=queue, registry=registry, resolver=dns)
    return Running(server, port, queue, registry)


@pytest.fixture
def dns() -> Dns:
    return Dns()


@pytest.fixture
def remote(tmp_path: Path, dns: Dns) -> Iterator[Running]:
    """A server that lets remote bots run on 127.0.0.1 (and on the name bot.example.org)."""
    run = _serve(tmp_path, "127.0.0.1,bot.example.org", dns)
    try:
        yield run
    finally:
        run.close()
        run.server.stop(grace=1)


def register(
    stub: object, name: str, endpoint: str, **kw: str
) -> arena_pb2.RegisterRemoteBotResponse:
    request = arena_pb2.RegisterRemoteBotRequest(name=name, game=GAME, endpoint=endpoint, **kw)
    return stub.RegisterRemoteBot(request, timeout=10)  # type: ignore[attr-defined, no-any-return]


def refused(run: Running, stub: object, name: str, endpoint: str, **kw: str) -> grpc.RpcError:
    before = snapshot(run.store)
    with pytest.raises(grpc.RpcError) as err:
        register(stub, name, endpoint, **kw)
    assert snapshot(run.store) == before, "a refused registration wrote something"
    return err.value


def test_a_python_remote_bot_registers_after_a_legal_handshake(remote: Running) -> None:
    _, alice = remote.user("alice")
    with serve_bot() as bot:
        done = register(alice, "pybot", bot.endpoint, description="mine")
        assert done.created and done.version == 1
        assert done.checked_address == f"127.0.0.1:{bot.port}"
        assert done.bot.origin == arena_pb2.BOT_ORIGIN_REMOTE
        assert done.bot.endpoint == bot.endpoint and done.bot.owner == "alice"
        # the handshake was one real Decide on the game's first decision
        (hello,) = bot.bot.requests
        assert hello.match_id == "handshake" and hello.game == GAME and hello.legal_actions
        again = register(alice, "pybot", bot.endpoint)
        assert not again.created and again.version == 1
        listed = remote.arena.ListBots(arena_pb2.ListBotsRequest(game=GAME)).bots
        assert [b.endpoint for b in listed if b.name == "pybot"] == [bot.endpoint]
    with serve_bot() as moved:
        assert register(alice, "pybot", moved.endpoint).version == 2


def test_only_the_owner_or_an_admin_adds_versions(remote: Running) -> None:
    _, alice = remote.user("alice")
    _, bob = remote.user("bob")
    with serve_bot() as bot:
        register(alice, "alices", bot.endpoint)
        err = refused(remote, bob, "alices", bot.endpoint)
        assert err.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "belongs to alice" in (err.details() or "")
        assert register(remote.arena, "alices", bot.endpoint).bot.owner == "alice"


def test_an_uploaded_bots_name_is_not_taken_over(remote: Running) -> None:
    _, alice = remote.user("alice")
    source = "from bots.sdk import run\nrun(lambda observation, legal: 0)\n"
    alice.SubmitBot(arena_pb2.SubmitBotRequest(name="up", game=GAME, source=source))
    with serve_bot() as bot:
        err = refused(remote, alice, "up", bot.endpoint)
    assert err.code() == grpc.StatusCode.ALREADY_EXISTS and "uploaded" in (err.details() or "")
    with serve_bot() as bot:
        register(alice, "rem", bot.endpoint)
    with pytest.raises(grpc.RpcError) as sub:
        alice.SubmitBot(arena_pb2.SubmitBotRequest(name="rem", game=GAME, source=source))
    assert sub.value.code() == grpc.StatusCode.ALREADY_EXISTS


@pytest.mark.parametrize(
    ("endpoint", "code", "says"),
    [
        ("http://127.0.0.1:{port}", INVALID, "scheme 'http' is not allowed"),
        ("grpc://u@127.0.0.1:{port}", INVALID, "userinfo"),
        ("grpc://127.0.0.1:{port}/x", INVALID, "path"),
        ("grpc://2130706433:{port}", INVALID, "decimal, octal"),
        ("grpc://0177.0.0.1:{port}", INVALID, "decimal, octal"),
        ("grpc://127.1:{port}", INVALID, "decimal, octal"),
        ("grpc://127.0.0.2:{port}", FAILED, "loopback"),
        ("grpc://[::1]:{port}", FAILED, "loopback"),
        ("grpc://[::ffff:127.0.0.2]:{port}", FAILED, "loopback"),
        ("grpc://evil.example.org:{port}", FAILED, "not in HAMLET_REMOTE_BOT_HOSTS"),
        ("grpc://bot.example.org:{port}", FAILED, "bot.example.org (10.0.0.7) is a private"),
        ("grpc://sneaky.example.org:{port}", FAILED, "not in HAMLET_REMOTE_BOT_HOSTS"),
        ("grpc://10.0.0.7:{port}", FAILED, "private"),
        ("grpc://169.254.169.254:{port}", FAILED, "link-local"),
    ],
)
def test_endpoints_outside_the_list_are_refused_and_nothing_is_written(
    remote: Running, dns: Dns, endpoint: str, code: grpc.StatusCode, says: str
) -> None:
    dns.table = {
        "bot.example.org": ["10.0.0.7"],
        "evil.example.org": ["93.184.216.34"],
        "sneaky.example.org": ["127.0.0.2"],
    }
    _, alice = remote.user("alice")
    with serve_bot() as bot:
        err = refused(remote, alice, "x", endpoint.format(port=bot.port))
        assert not bot.bot.requests, "a refused endpoint was dialled"
    assert err.code() == code and says in (err.details() or ""), err.details()


def test_with_an_empty_list_remote_bots_are_off(tmp_path: Path, dns: Dns) -> None:
    run = _serve(tmp_path, "", dns)
    try:
        with serve_bot() as bot:
            err = refused(run, run.arena, "x", bot.endpoint)
        assert err.code() == FAILED
        assert "HAMLET_REMOTE_BOT_HOSTS is empty" in (err.details() or "")
    finally:
        run.close()
        run.server.stop(grace=1)


def test_a_ca_certificate_needs_grpcs_and_pem(remote: Running) -> None:
    with serve_bot() as bot:
        err = refused(remote, remote.arena, "x", bot.endpoint, ca_cert_pem="-----BEGIN CERT")
        assert err.code() == INVALID and "only for grpcs" in (err.details() or "")
        tls = bot.endpoint.replace("grpc://", "grpcs://")
        err = refused(remote, remote.arena, "x", tls, ca_cert_pem="not pem")
        assert err.code() == INVALID and "not PEM" in (err.details() or "")


def test_a_failed_handshake_says_what_was_tried(remote: Running) -> None:
    with serve_bot() as bot:
        down = bot.endpoint
    err = refused(remote, remote.arena, "gone", down)
    assert err.code() == FAILED
    says = err.details() or ""
    assert "handshake failed: Decide (the first decision of village)" in says
    assert down in says and "UNAVAILABLE" in says
    with serve_bot(answer=lambda r: len(r.legal_actions)) as bot:
        err = refused(remote, remote.arena, "bad", bot.endpoint)
    assert err.code() == FAILED and "answered index" in (err.details() or "")
    with serve_bot() as bot:  # a plaintext bot does not speak TLS
        err = refused(remote, remote.arena, "tls", bot.endpoint.replace("grpc:", "grpcs:"))
    assert err.code() == FAILED and "UNAVAILABLE" in (err.details() or "")


def test_a_handshake_that_does_not_answer_in_time_fails(remote: Running) -> None:
    release = threading.Event()
    with serve_bot(answer=lambda r: int(not release.wait(30))) as bot:
        try:
            err = refused(remote, remote.arena, "slow", bot.endpoint)
        finally:
            release.set()
    assert err.code() == FAILED and "DEADLINE_EXCEEDED" in (err.details() or "")


def _claim_remote_seat(run: Running, name: str) -> worker_pb2.SeatSpec:
    fakeworker.announce(run.worker_channel, [GAME], bots=("random",))
    made = run.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(game=GAME, bots=[name, "random"], start=True)
    )
    assert made.tournament_id
    match_id = run.queue.sent[-1]
    claim = run.host.ClaimMatch(worker_pb2.ClaimMatchRequest(match_id=match_id, worker_id="w"))
    (seat,) = [s for s in claim.match.seats if s.bot_name == name]
    assert seat.kind == worker_pb2.BOT_KIND_REMOTE
    return seat


def test_a_claim_pins_the_checked_address_and_remote_bots_need_no_runtime(
    remote: Running, dns: Dns
) -> None:
    dns.table = {"bot.example.org": ["127.0.0.1"]}
    with serve_bot() as bot:
        register(remote.arena, "named", f"grpc://bot.example.org:{bot.port}")
        dns.table = {"bot.example.org": ["127.0.0.1"]}
        seat = _claim_remote_seat(remote, "named")
    assert seat.endpoint == f"127.0.0.1:{bot.port}" and not seat.unreachable
    assert seat.endpoint_url == f"grpc://bot.example.org:{bot.port}" and not seat.tls
    with remote.store.engine.connect() as conn:
        queues = {q for (q,) in conn.execute(text("select distinct queue from matches"))}
    assert queues == {"matches"}


def test_dns_rebinding_after_registration_reaches_no_private_host(
    remote: Running, dns: Dns
) -> None:
    """The name pointed at an allowed address when registered, then at a private one: the
    claim re-checks it and sends no address at all, so the seat forfeits unreachable."""
    dns.table = {"bot.example.org": ["127.0.0.1"]}
    with serve_bot() as bot:
        register(remote.arena, "rebind", f"grpc://bot.example.org:{bot.port}")
        dns.table = {"bot.example.org": ["10.0.0.7"]}
        seat = _claim_remote_seat(remote, "rebind")
    assert seat.endpoint == ""
    assert "bot.example.org (10.0.0.7) is a private address" in seat.unreachable


def test_the_cli_registers_a_remote_bot(
    remote: Running, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from cli.main import main

    monkeypatch.setenv("HAMLET_TOKEN", remote.admin_token)
    srv = ("--server", remote.addr)
    with serve_bot() as bot:
        code = main(["bot", "register", "clibot", "--game", GAME, "--endpoint", bot.endpoint, *srv])
        out = capsys.readouterr().out
        assert code == 0 and "clibot v1 (new version)" in out
        assert f"answered the handshake at 127.0.0.1:{bot.port}" in out
        code = main(["bot", "register", "clibot", "--game", GAME, "--endpoint", bot.endpoint, *srv])
        assert code == 0 and "unchanged (same endpoint)" in capsys.readouterr().out
    code = main(["bot", "register", "x", "--game", GAME, "--endpoint", "http://a:1", *srv])
    err = capsys.readouterr().err
    assert code != 0 and "scheme 'http' is not allowed" in err
    missing = remote.server.settings.data_dir / "nope.pem"
    code = main(
        ["bot", "register", "x", "--game", GAME, "--endpoint", "grpcs://a:1", "--ca", str(missing)]
    )
    assert code == 2 and "cannot read" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl binary")
def test_grpcs_is_verified_against_the_given_ca_and_the_registered_name(
    remote: Running, dns: Dns, tmp_path: Path
) -> None:
    cert, key = tmp_path / "bot.crt", tmp_path / "bot.key"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", "/CN=bot.example.org", "-addext", "subjectAltName=DNS:bot.example.org",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    dns.table = {"bot.example.org": ["127.0.0.1"]}
    pem = cert.read_text()
    credentials = grpc.ssl_server_credentials([(key.read_bytes(), cert.read_bytes())])
    with serve_bot(credentials=credentials) as bot:
        named = f"grpcs://bot.example.org:{bot.port}"
        done = register(remote.arena, "tlsbot", named, ca_cert_pem=pem)
        assert done.created and done.checked_address == f"127.0.0.1:{bot.port}"
        seat = _claim_remote_seat(remote, "tlsbot")
        assert seat.tls and seat.ca_cert_pem == pem and seat.tls_server_name == "bot.example.org"
        # the same server under its IP: the certificate does not name it
        err = refused(
            remote, remote.arena, "ipbot", f"grpcs://127.0.0.1:{bot.port}", ca_cert_pem=pem
        )
        assert err.code() == FAILED and "handshake failed" in (err.details() or "")
        # without the CA the system roots do not trust it
        err = refused(remote, remote.arena, "noca", named)
        assert err.code() == FAILED and "UNAVAILABLE" in (err.details() or "")
