"""The CLI on bot versions (`bot versions`, `bot show`, a v1-against-v2 tournament) and on the
commands that start processes: client flags refused, one process per data directory."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli import datalock
from cli.main import main
from tests.server import fakeworker
from tests.server.conftest import Running

SOURCE = "from bots.sdk import run\nrun(lambda observation, legal: 0)\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def two_versions(
    running: Running, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[str, str]:
    """``mine`` at versions 1 and 2, submitted with the CLI as the admin; --server args."""
    monkeypatch.setenv("HAMLET_TOKEN", running.admin_token)
    fakeworker.announce(running.worker_channel, ["toy"], bots=("alpha",))
    for i, text in ((1, "first"), (2, "second")):
        path = tmp_path / f"mine{i}.py"
        path.write_text(SOURCE + f"# v{i}\n")
        argv = ["bot", "submit", "mine", "toy", str(path), "--description", text]
        code = main([*argv, "--server", running.addr])
        assert code == 0
    return ("--server", running.addr)


def test_bot_versions_lists_every_version(
    two_versions: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    code, out, _ = run(capsys, "bot", "versions", "mine", *two_versions)
    assert code == 0 and "Versions of mine" in out and "2 (latest)" in out
    assert "first" in out and "second" in out and "python3" in out
    code, out, _ = run(capsys, "bot", "versions", "mine", "--json", *two_versions)
    data = json.loads(out)
    assert code == 0 and [v["version"] for v in data["versions"]] == [1, 2]
    assert data["versions"][0]["description"] == "first" and data["bot"]["name"] == "mine"


def test_bot_show_one_version(
    two_versions: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    code, out, _ = run(capsys, "bot", "show", "mine", *two_versions)
    assert code == 0 and "mine@2" in out and "(latest)" in out and "second" in out
    code, out, _ = run(capsys, "bot", "show", "mine@1", "--json", *two_versions)
    assert code == 0 and json.loads(out)["version"] == 1


def test_bot_show_of_an_unknown_version_exits_3_naming_the_versions(
    two_versions: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    code, out, err = run(capsys, "bot", "show", "mine@5", *two_versions)
    assert code == 3 and out == ""
    assert "no version 5" in err and "its versions are 1 and 2" in err
    code, out, _ = run(capsys, "bot", "show", "mine@5", "--json", *two_versions)
    assert code == 3 and json.loads(out)["error"]["code"] == "NOT_FOUND"
    code, _, err = run(capsys, "bot", "show", "mine@v2", *two_versions)
    assert code == 2 and "name@version" in err


def test_a_v1_against_v2_tournament_from_the_cli(
    running: Running, two_versions: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    code, out, _ = run(
        capsys, "tournament", "create", "toy", "mine@1", "mine@2", "--unrated", "--start",
        "--json", *two_versions,
    )  # fmt: skip
    assert code == 0
    created = json.loads(out)
    assert created["bots"] == ["mine@1", "mine@2"]
    for match_id in running.queue.sent:
        fakeworker.play(running.worker_channel, match_id)
    tid = created["tournament_id"]
    code, out, _ = run(capsys, "tournament", "show", tid, "--matches", *two_versions)
    assert code == 0 and "finished" in out
    standings = out[out.index("Standings") : out.index("Matches")]
    assert "mine@1" in standings and "mine@2" in standings
    table = out[out.index("Matches") :]
    assert table.count("mine@1") == 2 and table.count("mine@2") == 2  # two matches
    code, _, err = run(capsys, "tournament", "create", "toy", "mine@2", "mine", *two_versions)
    assert code == 2 and "are both mine@2" in err


def test_worker_refuses_json_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for flag in ("--json", "--timeout=5", "--server"):
        code, out, err = run(capsys, "worker", "--concurrency", "1", flag)
        assert code == 2 and out == "", flag
        assert len(err.strip().splitlines()) == 1 and "not a worker option" in err


@pytest.mark.parametrize(
    "argv",
    [
        ("up", "--json"),
        ("up", "--timeout", "5"),
        ("up", "--server", "127.0.0.1:1"),
        ("server", "--json"),
        ("server", "--timeout", "5"),
    ],
)
def test_up_and_server_refuse_the_flags_they_would_ignore(
    argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    assert exited.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err


@pytest.fixture
def serving(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], dict[str, str]]]:
    """A `hamlet server` process holding ``tmp_path``, and the environment it runs with."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HAMLET_")}
    env.update(
        HAMLET_DATA_DIR=str(tmp_path),
        HAMLET_GRPC_PORT="0",
        HAMLET_METRICS_PORT="-1",
        HAMLET_REDIS_URL="redis://127.0.0.1:1/0",
    )
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
        assert "gRPC on" in line, line
        yield proc, env
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=30)


@pytest.mark.parametrize("second", [("up", "--no-demo", "--port", "0"), ("server",)])
def test_a_second_process_on_a_data_directory_in_use_is_refused(
    serving: tuple[subprocess.Popen[str], dict[str, str]], tmp_path: Path, second: tuple[str, ...]
) -> None:
    proc, env = serving
    refused = subprocess.run(
        [sys.executable, "-m", "cli", *second],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert f"{tmp_path} is in use by process {proc.pid}" in refused.stderr
    assert "Hamlet is up" not in refused.stdout and not (tmp_path / "redis").exists()
    assert proc.poll() is None  # the first one serves on


def test_the_lock_goes_with_its_holder_and_fails_closed(tmp_path: Path) -> None:
    held = datalock.acquire(tmp_path)
    with pytest.raises(datalock.DataDirInUseError, match=f"in use by process {os.getpid()}"):
        datalock.acquire(tmp_path)
    held.release()
    datalock.acquire(tmp_path).release()
    (tmp_path / "file").write_text("")
    with pytest.raises(datalock.DataDirInUseError, match="cannot lock"):
        datalock.acquire(tmp_path / "file" / "data")
