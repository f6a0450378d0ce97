"""`hamlet user|token|login|whoami` and what another user's token may not do."""

from __future__ import annotations

import io
import re
import stat
from pathlib import Path

import pytest

from cli import credentials
from cli.main import main
from tests.server import fakeworker
from tests.server.conftest import Running

TOKEN = re.compile(r"^(hmt_[0-9a-f]{12}_\S+)$", re.M)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_users_tokens_login_and_ownership(
    running: Running,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    srv = ("--server", running.addr)
    fakeworker.announce(running.worker_channel, ["toy"])
    monkeypatch.setenv("HAMLET_TOKEN", running.admin_token)
    code, out, _ = run(capsys, "user", "create", "alice", *srv)
    assert code == 0 and "user alice created" in out
    alice = TOKEN.search(out).group(1)  # type: ignore[union-attr]
    code, out, _ = run(capsys, "user", "create", "bob", *srv)
    bob = TOKEN.search(out).group(1)  # type: ignore[union-attr]

    # alice logs in (token on stdin); the CLI keeps it, private, for later commands
    monkeypatch.delenv("HAMLET_TOKEN")
    monkeypatch.setenv("HAMLET_DATA_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setattr("sys.stdin", io.StringIO(alice + "\n"))
    code, out, _ = run(capsys, "login", *srv)
    assert code == 0 and "logged in as alice" in out
    saved = credentials.config_file()
    assert saved.read_text().strip() == alice
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    code, out, _ = run(capsys, "whoami", *srv)
    assert code == 0 and out.startswith("alice") and "read, submit" in out

    source = tmp_path / "bot.py"
    source.write_text("from bots.sdk import run\nrun(lambda observation, legal: 0)\n")
    code, out, _ = run(capsys, "bot", "submit", "alices-bot", "toy", str(source), *srv)
    assert code == 0 and "alices-bot v1" in out

    code, out, _ = run(capsys, "token", "create", "--scope", "read", "--expires", "1h", *srv)
    assert code == 0 and "scopes read" in out and "expires" in out
    reader = TOKEN.search(out).group(1)  # type: ignore[union-attr]
    code, out, _ = run(capsys, "token", "list", *srv)
    token_id = reader.split("_")[1]
    assert code == 0 and token_id in out and reader.split("_", 2)[2] not in out
    code, out, _ = run(capsys, "token", "revoke", token_id, *srv)
    assert code == 0 and "revoked" in out

    # bob may not retire alice's bot, nor the system's
    monkeypatch.setenv("HAMLET_TOKEN", bob)
    code, _, err = run(capsys, "bot", "retire", "alices-bot", *srv)
    assert code == 5 and "PERMISSION_DENIED" in err and "belongs to alice" in err
    code, _, err = run(capsys, "bot", "retire", "alpha", *srv)
    assert code == 5 and "built-in bot" in err

    # alice retires and restores her own
    monkeypatch.setenv("HAMLET_TOKEN", alice)
    assert run(capsys, "bot", "retire", "alices-bot", *srv)[0] == 0
    code, out, _ = run(capsys, "bot", "restore", "alices-bot", *srv)
    assert code == 0 and "restored" in out

    # the revoked token and no token at all
    monkeypatch.setenv("HAMLET_TOKEN", reader)
    code, _, err = run(capsys, "bots", *srv)
    assert code == 5 and "revoked" in err
    monkeypatch.delenv("HAMLET_TOKEN")
    saved.unlink()
    code, _, err = run(capsys, "bot", "retire", "alices-bot", *srv)
    assert code == 5 and "UNAUTHENTICATED" in err and "hamlet login" in err
    code, out, _ = run(capsys, "bots", *srv)  # reads stay public
    assert code == 0 and "alices-bot" in out


def test_login_refuses_a_bad_token(
    running: Running, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HAMLET_TOKEN", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO("hmt_0123456789ab_nope\n"))
    code, _, err = run(capsys, "login", "--server", running.addr)
    assert code == 5 and "not valid" in err
    assert not credentials.config_file().exists()


def test_the_token_files_are_named_as_the_server_names_them() -> None:
    from server.services import accounts

    assert credentials.ADMIN_TOKEN_FILE == accounts.ADMIN_TOKEN_FILE
    assert credentials.WORKER_TOKEN_FILE == accounts.WORKER_TOKEN_FILE


def test_token_list_draws_the_tree_of_tokens() -> None:
    from cli.commands_accounts import token_tree
    from hamlet.v1 import arena_pb2

    def tok(tid: str, parent: str, at: str) -> arena_pb2.TokenInfo:
        return arena_pb2.TokenInfo(token_id=tid, parent_token_id=parent, created_at=at)

    tokens = [
        tok("c2", "root", "3"),
        tok("root", "", "1"),
        tok("g1", "c1", "4"),
        tok("c1", "root", "2"),
        tok("orphan", "someone-elses", "5"),  # its parent is not listed: a root here
    ]
    drawn = [(depth, t.token_id) for depth, t in token_tree(tokens)]
    assert drawn == [(0, "root"), (1, "c1"), (2, "g1"), (1, "c2"), (0, "orphan")]
