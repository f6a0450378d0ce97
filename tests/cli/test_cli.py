"""The `hamlet` CLI against a real server (port 0), and `hamlet server` as a command."""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from cli import main as cli
from cli.main import main
from tests.server import fakeworker
from tests.server.conftest import Running


@pytest.fixture(autouse=True)
def _admin_token(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """CLI calls in these tests act as the test server's admin."""
    if "running" in request.fixturenames:
        monkeypatch.setenv("HAMLET_TOKEN", request.getfixturevalue("running").admin_token)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_over_a_real_server(
    running: Running, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    srv = ("--server", running.addr)
    fakeworker.announce(running.worker_channel, ["toy"])
    code, out, _ = run(capsys, "games", "--json", *srv)
    assert code == 0 and "toy" in [g["name"] for g in json.loads(out)]
    code, out, _ = run(capsys, "bots", "--game", "toy", *srv)
    assert code == 0 and "alpha" in out and "builtin" in out

    code, out, _ = run(
        capsys, "tournament", "create", "toy", "alpha", "beta", "--rounds", "2", "--json", *srv
    )
    assert code == 0
    tid = json.loads(out)["tournament_id"]
    code, out, _ = run(capsys, "tournament", "start", tid, *srv)
    assert code == 0 and tid in out
    for match_id in running.queue.sent:
        fakeworker.play(running.worker_channel, match_id)
    code, out, _ = run(capsys, "tournament", "watch", tid, "--json", *srv)
    events = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and sum(1 for e in events if e.get("match", {}).get("match_id")) == 4
    code, out, _ = run(capsys, "tournament", "watch", tid, *srv)
    assert code == 0 and "finished" in out and "Standings" in out
    code, out, _ = run(capsys, "tournament", "show", tid, "--matches", *srv)
    assert code == 0 and "Standings" in out and running.queue.sent[0] in out
    code, out, _ = run(capsys, "match", "show", running.queue.sent[0], "--log", *srv)
    assert code == 0 and "play" in out
    code, out, _ = run(capsys, "match", "replay", running.queue.sent[0], *srv)
    assert code == 0 and "reproduces" in out
    code, out, _ = run(capsys, "leaderboard", "toy", "--json", *srv)
    assert code == 0 and sum(e["games"] for e in json.loads(out)["entries"]) == 8
    code, out, _ = run(capsys, "tournament", "list", *srv)
    assert code == 0 and tid in out

    source = tmp_path / "bot.py"
    source.write_text("from bots.sdk import run\nrun(lambda observation, legal: 0)\n")
    code, out, _ = run(capsys, "bot", "submit", "mine", "toy", str(source), *srv)
    assert code == 0 and "mine v1" in out
    code, out, _ = run(capsys, "bot", "retire", "mine", *srv)
    assert code == 0 and "retired" in out


def test_exit_codes(running: Running, capsys: pytest.CaptureFixture[str]) -> None:
    srv = ("--server", running.addr)
    fakeworker.announce(running.worker_channel, ["toy"])
    code, _, err = run(capsys, "leaderboard", "chess", *srv)
    assert code == 3 and "NOT_FOUND" in err and "unknown game" in err
    code, _, err = run(
        capsys, "tournament", "create", "toy", "alpha", "beta", "--players", "9", *srv
    )
    assert code == 2 and "INVALID_ARGUMENT" in err
    code, _, err = run(
        capsys, "tournament", "create", "toy", "alpha", "beta", "--rounds", "-1", *srv
    )
    assert code == 2
    code, out, _ = run(capsys, "tournament", "create", "toy", "alpha", "beta", "--json", *srv)
    tid = json.loads(out)["tournament_id"]
    assert run(capsys, "tournament", "cancel", tid, *srv)[0] == 0
    code, _, err = run(capsys, "tournament", "start", tid, *srv)
    assert code == 1 and "FAILED_PRECONDITION" in err
    code, _, _ = run(capsys, "tournament", "watch", tid, *srv)
    assert code == 1  # cancelled
    with pytest.raises(SystemExit) as usage:
        main(["tournament", "create"])
    assert usage.value.code == 2


def test_unreachable_server(capsys: pytest.CaptureFixture[str]) -> None:
    from cli.processes import free_port

    code, _, err = run(capsys, "games", "--server", f"127.0.0.1:{free_port()}", "--timeout", "1")
    assert code == 4 and "cannot reach the server" in err


def test_hamlet_server_command_serves_and_stops(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "HAMLET_DATA_DIR": str(tmp_path),
        "HAMLET_GRPC_PORT": "0",
        "HAMLET_METRICS_PORT": "0",
        "HAMLET_REDIS_URL": "redis://:secret@127.0.0.1:1/0",
        "HAMLET_LOG_FORMAT": "json",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli", "server"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(
            r"gRPC on 127\.0\.0\.1:(\d+), metrics http://127\.0\.0\.1:(\d+)/metrics", line
        )
        assert found, line
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        with grpc.insecure_channel(f"127.0.0.1:{found.group(1)}") as channel:
            status = (
                health_pb2_grpc.HealthStub(channel)
                .Check(health_pb2.HealthCheckRequest(), timeout=10)
                .status
            )
        assert status == health_pb2.HealthCheckResponse.SERVING
        assert (tmp_path / "hamlet.db").exists()
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0
    lines = [json.loads(line) for line in err.splitlines()]
    started = next(line for line in lines if line["message"].startswith("hamlet server started"))
    assert started["level"] == "INFO"
    assert f"grpc=127.0.0.1:{found.group(1)} " in started["message"]
    assert "queue=redis://:***@127.0.0.1:1/0" in started["message"]
    assert "secret" not in err
    assert lines[-1]["message"] == "hamlet server stopping"


def test_hamlet_server_reports_a_bad_setting(tmp_path: Path) -> None:
    env = {**os.environ, "HAMLET_DATA_DIR": str(tmp_path), "HAMLET_GRPC_PORT": "many"}
    proc = subprocess.run(
        [sys.executable, "-m", "cli", "server"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 2 and "HAMLET_GRPC_PORT must be a number" in proc.stderr


def test_rebuild_ratings_command(
    running: Running, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fakeworker.announce(running.worker_channel, ["toy"])
    code, _, _ = run(
        capsys,
        "tournament",
        "create",
        "toy",
        "alpha",
        "beta",
        "--start",
        "--json",
        "--server",
        running.addr,
    )
    for match_id in running.queue.sent:
        fakeworker.play(running.worker_channel, match_id)
    code, before, _ = run(capsys, "leaderboard", "toy", "--json", "--server", running.addr)
    monkeypatch.setenv("HAMLET_DATA_DIR", str(running.server.settings.data_dir))
    code, after, _ = run(capsys, "rebuild-ratings", "toy", "--json")
    assert code == 0
    assert json.loads(after)["entries"] == json.loads(before)["entries"]


def test_every_help_page_prints(capsys: pytest.CaptureFixture[str]) -> None:
    # A help text with a bare "%" ("95% intervals") once made `hamlet --help` crash.
    parser = cli._parser()
    pages: list[list[str]] = [[]]
    stack: list[tuple[list[str], argparse.ArgumentParser]] = [([], parser)]
    while stack:
        prefix, p = stack.pop()
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    pages.append([*prefix, name])
                    stack.append(([*prefix, name], child))
    assert len(pages) > 30
    for page in pages:
        with pytest.raises(SystemExit) as done:
            cli._parser().parse_args([*page, "--help"])
        assert done.value.code == 0, page
    assert "95% intervals" in capsys.readouterr().out


def _text(table: object) -> str:
    from rich.console import Console

    console = Console(width=200, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
    console.print(table)
    return console.export_text()


def test_seats_and_places_are_1_based_as_people_read_them() -> None:
    from cli import console
    from hamlet.v1 import common_pb2

    m = common_pb2.Match(
        match_id="t1.r0.t0.s0", status=common_pb2.MATCH_STATUS_FINISHED, game="toy",
        seats=[
            common_pb2.Seat(seat=0, bot_name="alpha", bot_version=1, score=3, rank=1),
            common_pb2.Seat(seat=1, bot_name="beta", bot_version=2, score=7, rank=0),
        ],
    )  # fmt: skip
    listed = _text(console.matches_table([m]))  # `tournament show --matches`
    assert "score/place" in listed and "alpha@1 3/2, beta@2 7/1" in listed
    shown = _text(console.match_table(m))  # `match show`
    rows = [
        [cell.strip() for cell in line.split("│")[1:-1]]
        for line in shown.splitlines()
        if "alpha" in line or "beta" in line
    ]  # seat, bot, version, score, place, forfeit
    assert [(r[0], r[1], r[4]) for r in rows] == [("1", "alpha", "2"), ("2", "beta", "1")]


def test_match_replay_seat_is_1_based(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli import commands_seat
    from hamlet.v1 import common_pb2

    asked: list[int | None] = []

    def fake_replay(stub: object, match_id: str, seat: int | None = None, **_: object) -> object:
        asked.append(seat)
        return common_pb2.Replay(
            match=common_pb2.Match(match_id=match_id),
            seat_view=common_pb2.SeatView(seat=seat or 0, bot_name="alpha"),
            matches_record=True,
        )

    monkeypatch.setattr(commands_seat, "whole_replay", fake_replay)
    assert main(["match", "replay", "m1", "--seat", "1", "--server", "127.0.0.1:1"]) == 0
    assert asked == [0] and "Seat 1 (alpha)" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:
        main(["match", "replay", "m1", "--seat", "0", "--server", "127.0.0.1:1"])
    assert refused.value.code == 2 and "1 is the first seat" in capsys.readouterr().err
