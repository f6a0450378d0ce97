"""Remote bots through the whole pipeline: a server allow-listing 127.0.0.1 explicitly, redis,
a real Celery worker. A Node remote bot written from the .proto files (bots/examples/
node_remote) and a Python one (a gRPC server in this process) register, pass the handshake and
play tournaments with no forfeits; a remote bot whose endpoint stops forfeits ``unreachable``.

The Node test needs ``node`` and ``npm`` and installs the example's npm packages into a cache
directory (``HAMLET_TEST_CACHE``, default ``~/.cache/hamlet-tests``) at test time; it is
skipped, saying why, where either is missing or the install fails (no network)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from hamlet.v1 import arena_pb2
from server.app import build_server
from server.config import Settings
from server.remote_hosts import AllowList
from tests.integration.stack import Worker, arena, bots_announced, redis_server, scaled, wait_until
from tests.integration.test_pipeline import Stack, check_stored_once, run_tournament, settled
from tests.remotebot import serve_bot

# The guard against a hang, scaled as every wait is (stack.slowness).
pytestmark = [pytest.mark.integration, pytest.mark.timeout(scaled(300))]

ROOT = Path(__file__).parents[2]
NODE_BOT = ROOT / "bots" / "examples" / "node_remote"


@pytest.fixture(scope="module")
def remote_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, Worker]]:
    tmp = tmp_path_factory.mktemp("remote")
    with redis_server(tmp) as redis_url:
        settings = Settings(
            data_dir=tmp / "data",
            redis_url=redis_url,
            grpc_host="127.0.0.1",
            grpc_port=0,
            metrics_port=-1,
            match_lease_seconds=20.0,
            queue_timeout_seconds=30.0,
            reaper_interval_seconds=0.5,
            max_match_attempts=10,
            remote_bot_hosts=AllowList.parse("127.0.0.1"),
        )
        server, port = build_server(settings)
        channel, stub = arena(port, (settings.data_dir / "admin.token").read_text().strip())
        stack = Stack(tmp, redis_url, port, stub, tmp / "data" / "hamlet.db")
        worker = stack.worker("w-remote")
        try:
            wait_until(lambda: bots_announced(stub, {"random"}), 60, "the worker's bots")
            yield stack, worker
        finally:
            worker.stop()
            channel.close()
            server.stop(1)


def register(stack: Stack, name: str, endpoint: str) -> arena_pb2.RegisterRemoteBotResponse:
    request = arena_pb2.RegisterRemoteBotRequest(name=name, game="village", endpoint=endpoint)
    return stack.stub.RegisterRemoteBot(request, timeout=10)


def play(stack: Stack, worker: Worker, name: str) -> list[list[str]]:
    """The forfeit reasons of ``name``'s seats, per match of a two-round tournament."""
    try:
        tid = run_tournament(stack, "village", [name, "random"], rounds=2)
        wait_until(lambda: settled(stack, tid), 180, f"the tournament with {name}")
        matches = check_stored_once(stack, tid)
    except BaseException:
        print(worker.output()[-5000:])
        raise
    return [[s.forfeit_reason for s in m.seats if s.bot_name == name] for m in matches]


def test_a_python_remote_bot_plays_a_tournament(remote_stack: tuple[Stack, Worker]) -> None:
    stack, worker = remote_stack
    with serve_bot() as bot:
        done = register(stack, "py-remote", bot.endpoint)
        assert done.created and done.checked_address == f"127.0.0.1:{bot.port}"
        seats = play(stack, worker, "py-remote")
    assert seats and all(reasons == [""] for reasons in seats), seats
    assert len(bot.bot.requests) > 1 + len(seats)  # the handshake, then real decisions


def test_an_unreachable_remote_bot_forfeits(remote_stack: tuple[Stack, Worker]) -> None:
    stack, worker = remote_stack
    with serve_bot() as bot:
        register(stack, "gone-remote", bot.endpoint)
    seats = play(stack, worker, "gone-remote")  # the endpoint stopped after registering
    assert seats and all(reasons == ["unreachable"] for reasons in seats), seats
    ref = arena_pb2.TournamentRef(tournament_id=_last_tournament(stack))
    for match in stack.stub.ListMatches(ref, timeout=10).matches:
        (seat,) = [s for s in match.seats if s.bot_name == "gone-remote"]
        assert "UNAVAILABLE" in seat.forfeit_detail
        assert not [s for s in match.seats if s.bot_name == "random" and s.forfeit_reason]


def _last_tournament(stack: Stack) -> str:
    listed = stack.stub.ListTournaments(arena_pb2.ListTournamentsRequest(limit=1), timeout=10)
    return str(listed.tournaments[0].tournament_id)


def _node_modules() -> Path:
    """The example's npm packages, installed once per package.json into the test cache."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("needs node and npm on PATH for the Node remote bot example")
    manifest = (NODE_BOT / "package.json").read_bytes()
    default = Path.home() / ".cache" / "hamlet-tests"
    cache = Path(os.environ.get("HAMLET_TEST_CACHE") or default)
    target = cache / f"node_remote-{hashlib.sha256(manifest).hexdigest()[:16]}"
    modules = target / "node_modules"
    if (modules / "@grpc" / "grpc-js").is_dir() and (modules / "@grpc" / "proto-loader").is_dir():
        return modules
    target.mkdir(parents=True, exist_ok=True)
    (target / "package.json").write_bytes(manifest)
    try:
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--omit=dev"],
            cwd=target,
            check=True,
            capture_output=True,
            timeout=240,
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        out = getattr(exc, "stderr", b"") or b""
        pytest.skip(f"npm install of the Node remote bot's packages failed: {out[-300:]!r}")
    return modules


def test_a_node_remote_bot_plays_a_tournament(remote_stack: tuple[Stack, Worker]) -> None:
    stack, worker = remote_stack
    modules = _node_modules()
    log = stack.tmp / "node-remote.log"
    proc = subprocess.Popen(
        ["node", str(NODE_BOT / "server.js"), "--host", "127.0.0.1", "--port", "0"],
        env={**os.environ, "NODE_PATH": str(modules)},
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    try:
        wait_until(lambda: "listening on" in log.read_text(), 30, "the Node bot to listen")
        found = re.search(r"listening on 127\.0\.0\.1:(\d+)", log.read_text())
        assert found, log.read_text()
        done = register(stack, "node-remote", f"grpc://127.0.0.1:{found.group(1)}")
        assert done.created and done.bot.origin == arena_pb2.BOT_ORIGIN_REMOTE
        seats = play(stack, worker, "node-remote")
        assert seats and all(reasons == [""] for reasons in seats), seats
    except BaseException:
        print(log.read_text()[-3000:])
        raise
    finally:
        proc.terminate()
        proc.wait(10)
