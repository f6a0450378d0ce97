"""`hamlet bot permission`, `hamlet challenge` and `hamlet invitations` against a real server:
another user's attempt to enter a private bot is refused (exit 5, nothing written) until its
owner consents; the rated time control shows in `hamlet games` and the leaderboard."""

from __future__ import annotations

import json

import pytest

from cli.main import main
from tests.server import fakeworker
from tests.server.conftest import Running, snapshot

SOURCE = "from bots.sdk import run\nrun(lambda observation, legal: 0)\n"


class As:
    """Runs the CLI as one user or another (their token in HAMLET_TOKEN)."""

    def __init__(
        self, run: Running, capsys: pytest.CaptureFixture[str], mp: pytest.MonkeyPatch
    ) -> None:
        self.run, self.capsys, self.mp = run, capsys, mp
        self.tokens = {"admin": run.admin_token}
        for name in ("ann", "bo"):
            self.tokens[name], _ = run.user(name)

    def __call__(self, who: str, *argv: str) -> tuple[int, str, str]:
        self.mp.setenv("HAMLET_TOKEN", self.tokens[who])
        self.capsys.readouterr()
        code = main([*argv, "--server", self.run.addr])
        captured = self.capsys.readouterr()
        return code, captured.out, captured.err


@pytest.fixture
def cli(
    running: Running, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> As:
    fakeworker.announce(running.worker_channel, ["toy"])
    return As(running, capsys, monkeypatch)


def test_entering_a_private_bot_needs_its_owners_consent(cli: As, tmp_path: object) -> None:
    from pathlib import Path

    source = Path(str(tmp_path)) / "mine.py"
    source.write_text(SOURCE)
    assert cli("ann", "bot", "submit", "mine", "toy", str(source))[0] == 0
    code, out, _ = cli("ann", "bot", "show", "mine")
    assert code == 0 and "private (only its owner and admins may enter it)" in out

    before = snapshot(cli.run.store)
    code, out, err = cli("bo", "tournament", "create", "toy", "mine", "alpha", "--players", "2")
    assert code == 5 and out == ""
    assert "PERMISSION_DENIED: bot 'mine' is ann's, not yours (you are bo)" in err
    assert "hamlet challenge mine --rated" in err
    assert snapshot(cli.run.store) == before
    code, out, err = cli("bo", "bot", "permission", "mine", "open")
    assert code == 5 and "only its owner or an admin" in err

    code, out, _ = cli("bo", "challenge", "mine", "--rated", "--message", "a [bold]game[/]?")
    assert code == 0 and "invitation 1: asked ann to let you enter mine" in out
    assert "hamlet invitations accept 1" in out
    code, out, _ = cli("ann", "invitations")
    assert code == 0 and "Received" in out and "bo" in out and "pending" in out
    assert "a [bold]game[/]?" in out  # the challenger's words, as written
    code, out, _ = cli("bo", "invitations", "--json")
    sent = json.loads(out)["sent"]
    assert code == 0 and [i["invitation_id"] for i in sent] == ["1"]
    code, out, err = cli("bo", "invitations", "accept", "1")
    assert code == 5 and "only its owner or an admin may answer it" in err
    code, out, _ = cli("ann", "invitations", "accept", "1")
    assert code == 0 and "accepted: bo may enter mine in rated and unrated events" in out

    code, out, _ = cli("bo", "tournament", "create", "toy", "mine", "alpha", "--players", "2")
    assert code == 0 and "rated" in out
    code, out, _ = cli("ann", "invitations", "decline", "1")
    assert code == 0 and "invitation 1: declined" in out
    code, _, err = cli("bo", "tournament", "create", "toy", "mine", "alpha", "--players", "2")
    assert code == 5

    code, out, _ = cli("ann", "bot", "permission", "mine", "challengeable")
    assert code == 0 and "mine: challengeable (anyone may enter it in unrated events)" in out
    code, out, _ = cli(
        "bo", "tournament", "create", "toy", "mine", "alpha", "--players", "2", "--unrated"
    )
    assert code == 0
    code, out, _ = cli("ann", "bot", "show", "mine", "--json")
    assert code == 0 and json.loads(out)["permission"] == "BOT_PERMISSION_CHALLENGEABLE"


def test_rated_play_has_one_time_control(cli: As) -> None:
    code, out, _ = cli("bo", "games")
    assert code == 0 and "rated decision/bank" in out and "1000/10000 ms" in out
    code, out, err = cli("bo", "tournament", "create", "toy", "alpha", "beta", "--decision-ms", "1")
    assert code == 2 and "INVALID_ARGUMENT: rated play uses toy's published time control" in err
    code, out, _ = cli(
        "bo", "tournament", "create", "toy", "alpha", "beta", "--decision-ms", "1", "--unrated"
    )
    assert code == 0 and "1 ms" in out
    code, out, _ = cli("bo", "leaderboard", "toy")
    assert code == 0 and "rated play at 1000 ms a decision, 10000 ms bank" in " ".join(out.split())
