"""CLI errors a person or a script can act on: JSON errors with --json, timeouts named as such,
bad `up` arguments refused at once, an unknown game for rebuild-ratings."""

from __future__ import annotations

import json
import socket
import threading

import pytest

from cli.main import main
from tests.server.conftest import Running


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_json_errors_are_json_on_stdout(
    running: Running, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "leaderboard", "chess", "--json", "--server", running.addr)
    assert code == 3
    error = json.loads(out)["error"]
    assert error["code"] == "NOT_FOUND" and "unknown game" in error["message"]


def test_an_expired_deadline_says_timed_out(capsys: pytest.CaptureFixture[str]) -> None:
    # a socket that accepts and never answers: the call's deadline passes
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    keep: list[socket.socket] = []
    threading.Thread(target=lambda: keep.append(listener.accept()[0]), daemon=True).start()
    try:
        code, _, err = run(capsys, "games", "--timeout", "0.5", "--server", f"127.0.0.1:{port}")
    finally:
        listener.close()
    assert code == 4
    assert "timed out" in err or "cannot reach" in err  # a dead peer may also refuse at once


def test_up_refuses_zero_workers_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "up", "--workers", "0")
    assert code == 2 and "at least 1" in err


def test_rebuild_ratings_of_an_unknown_game(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    monkeypatch.setenv("HAMLET_DATA_DIR", str(tmp_path))
    code, _, err = run(capsys, "rebuild-ratings", "chess")
    assert code == 3 and "unknown game 'chess'" in err
