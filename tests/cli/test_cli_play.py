"""``hamlet bot new`` and ``hamlet bot play`` through the real CLI entry point: the summary,
exit codes (0 played, 1 forfeited or refused, 2 bad arguments in one line), --json, a remote
bot over gRPC, and the defaults shared with the server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bots.sdk import start_grpc
from cli.main import main
from games.blocks import block_seed
from server.config import Settings
from server.services import tournaments
from server.services.commitments import table_seed
from workers import localplay


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_local_play_uses_the_servers_defaults_and_seeds() -> None:
    assert Settings().default_decision_time_ms == localplay.DEFAULT_DECISION_MS
    assert localplay.TIME_BANK_FACTOR == tournaments.TIME_BANK_FACTOR
    assert [block_seed(5, i) for i in range(6)] == [
        table_seed(5, r, 3, t) for r in range(2) for t in range(3)
    ]


def test_a_run_of_built_ins_prints_the_summary(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("bot", "play", "greedy", "--game", "village", "--vs", "random", "--games", "4")
    code, out, err = run(capsys, *argv, "--seed", "3")
    assert code == 0, err
    assert "village: greedy vs random, 4 games in 2 duplicate blocks of 2 seat rotations" in out
    assert "greedy (you)" in out and "avg place" in out and "decision time of greedy" in out
    assert "█" not in out  # not a terminal: no progress bar


def test_json_prints_one_summary(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("bot", "play", "first", "--game", "farmaria", "--vs", "random", "--games", "2")
    code, out, _ = run(capsys, *argv, "--seed", "1", "--json", "--players", "3")
    assert code == 0
    summary = json.loads(out)
    assert summary["games"] == 3 and summary["requested"] == 2 and summary["players"] == 3
    assert summary["target"]["name"] == "first" and summary["forfeits"] == []


def test_a_forfeiting_file_exits_1_with_its_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bot = tmp_path / "crashy.py"
    bot.write_text(
        "from bots.sdk import run\n\ndef decide(observation, legal):\n"
        "    raise RuntimeError('no idea what to do')\n\nrun(decide)\n"
    )
    code, out, _ = run(capsys, "bot", "play", str(bot), "--game", "village", "--games", "2")
    assert code == 1
    assert "Forfeits of crashy.py" in out and "crash" in out and "no idea what to do" in out


def test_bot_new_then_bot_play_as_the_docs_show(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(
        capsys, "bot", "new", "mybot", "--game", "my_village", "--dir", str(tmp_path)
    )
    assert code == 0 and f"wrote {tmp_path / 'mybot.py'}" in out
    assert "hamlet bot play" in out
    path = str(tmp_path / "mybot.py")
    code, out, _ = run(
        capsys, "bot", "play", path, "--game", "my_village", "--games", "2", "--json"
    )
    assert code == 0 and json.loads(out)["target"]["forfeits"] == 0
    before = Path(path).read_text()
    code, _, err = run(capsys, "bot", "new", "mybot", "--game", "village", "--dir", str(tmp_path))
    assert code == 1 and "exists already" in err and len(err.strip().splitlines()) == 1
    assert Path(path).read_text() == before


def test_a_remote_bot_over_grpc(capsys: pytest.CaptureFixture[str]) -> None:
    server, port = start_grpc(lambda observation, legal: len(legal) - 1, host="127.0.0.1")
    try:
        target = f"grpc://127.0.0.1:{port}"
        code, out, _ = run(capsys, "bot", "play", target, "--game", "village", "--games", "2")
    finally:
        server.stop(grace=None)
    assert code == 0 and f"decision time of {target} over" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("play", "random", "--game", "chess"), "unknown game 'chess'; known games: village"),
        (("play", "nobody", "--game", "village"), "unknown bot 'nobody'"),
        (("play", "random", "--game", "village", "--vs", "random,zed"), "unknown bot 'zed'"),
        (("play", "gone.py", "--game", "village"), "no such file: gone.py"),
        (("play", "random", "--game", "village", "--players", "5"), "played by 2 to 4 players"),
        (("play", "random", "--game", "village", "--games", "0"), "--games must be at least 1"),
        (("play", "grpc://x", "--game", "village"), "bad remote bot 'grpc://x'"),
        (("new", "x", "--game", "chess"), "unknown game 'chess'; games with a template"),
        (("new", "../x", "--game", "village"), "bad bot name '../x'"),
    ],
)
def test_each_bad_argument_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    code, out, err = run(capsys, "bot", *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err
    assert "Traceback" not in err


def test_bad_arguments_with_json_are_a_json_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bot", "play", "random", "--game", "chess", "--json")
    assert code == 2
    error = json.loads(out)["error"]
    assert error["code"] == "INVALID_ARGUMENT" and "unknown game" in error["message"]
