"""The sandbox's files on the host: private to the bot's uid while a match runs, and gone
when it ends (in the worker and in local play); a corrupt archive is the bot's forfeit."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import games
from workers.clients import CodeCache, SeatClients
from workers.model import BotError, BotKind, ForfeitReason, MatchPlan, SeatPlan
from workers.play import play_plan
from workers.sandbox import SandboxedBot
from workers.sandbox_check import cached_check, missing_kernel_features
from workers.sandbox_layout import bwrap_path
from workers.sandbox_procs import PARENT_PREFIX

ROOT = Path(__file__).resolve().parents[2]
HONEST = (ROOT / "bots" / "examples" / "random_uploaded.py").read_bytes()
ECHO = b"""
import struct, sys
while head := sys.stdin.buffer.read(4):
    msg = sys.stdin.buffer.read(struct.unpack(">I", head)[0])
    out = open(msg.decode(), "rb").read()[:16]
    sys.stdout.buffer.write(struct.pack(">I", len(out)) + out)
    sys.stdout.buffer.flush()
"""


@pytest.fixture(scope="module", autouse=True)
def full_sandbox() -> None:
    lacking = missing_kernel_features()
    if lacking:
        pytest.skip(f"this kernel lacks what the sandbox needs: {'; '.join(lacking)}")
    from workers.sandbox import SandboxLimits

    report = cached_check(SandboxLimits())
    assert report.plays_uploaded, report.why_refused()


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_the_bots_directory_and_code_are_private_to_its_uid(tmp_path: Path) -> None:
    source = tmp_path / "bot.py"
    source.write_bytes(ECHO)
    with SandboxedBot(source) as bot:
        root, code = bot.root, bot.root / "code" / "bot.py"
        parent = root.parent
        assert parent.name.startswith(f"{PARENT_PREFIX}{os.getpid()}-")
        # The parent can be traversed (as root, by the throw-away uids) but not listed.
        assert _mode(parent) == (0o711 if os.geteuid() == 0 else 0o700)
        assert _mode(root) == 0o700 and _mode(code) == 0o400
        owner = bot.uid if bot.uid is not None else os.geteuid()
        assert root.stat().st_uid == owner == code.stat().st_uid
        assert bot.exchange(b"/bot/bot.py", 10) == ECHO[:16]  # the bot still reads it
        if os.geteuid() == 0:  # any other uid of the host reads nothing, lists nothing
            for argv in (["cat", str(code)], ["ls", str(parent)], ["ls", str(root)]):
                seen = subprocess.run(argv, user=65533, group=65533, capture_output=True)
                assert seen.returncode != 0 and b"Permission denied" in seen.stderr, argv
    assert not root.exists()


@pytest.fixture
def private_tmp() -> Iterator[Path]:
    """A fresh temporary directory for a child process (traversable by every uid, as /tmp)."""
    path = Path(tempfile.mkdtemp(prefix="hamlet-test-tmp-", dir="/tmp"))
    path.chmod(0o1777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_local_play_leaves_nothing_in_tmp(private_tmp: Path, tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(private_tmp)}
    if os.geteuid() == 0:
        # bubblewrap under a private directory: local play runs it from a copy, which must
        # go with the rest (it was left behind after every local play).
        found = bwrap_path()
        assert found is not None
        real = Path(os.path.realpath(found))
        hidden = tmp_path / "private" / "site" / real.parts[-3] / real.parts[-2] / real.name
        shutil.copytree(real.parent, hidden.parent)
        libs = real.parents[2] / f"{real.parts[-3]}.libs"
        if libs.is_dir():
            shutil.copytree(libs, tmp_path / "private" / "site" / libs.name)
        (tmp_path / "private").chmod(0o700)
        env["HAMLET_BWRAP"] = str(hidden)
    bot = tmp_path / "mine.py"
    bot.write_bytes(HONEST)
    argv = ["bot", "play", str(bot), "--game", "village", "--vs", "random", "--games", "2"]
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from cli.main import main; sys.exit(main())", *argv],
        env=env,
        capture_output=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert sorted(p.name for p in private_tmp.iterdir()) == []


def _corrupt(code: bytes) -> bytes:
    """``code`` (a stored archive) with one byte of its entry file flipped: a bad CRC."""
    out = bytearray(code)
    at = out.find(b"from bots")
    out[at] ^= 0x20
    return bytes(out)


def _stored_archive() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("hamlet.json", b'{"runtime": "python3", "entry": "main.py"}')
        zf.writestr("main.py", HONEST)
    return out.getvalue()


def test_a_corrupt_archive_is_the_bots_crash_not_ours(tmp_path: Path) -> None:
    planted = tmp_path / "planted.zip"
    planted.write_bytes(_corrupt(_stored_archive()))
    with pytest.raises(BotError) as raised:
        SandboxedBot(planted)
    assert raised.value.reason is ForfeitReason.CRASH
    assert "corrupt" in raised.value.detail or "CRC" in raised.value.detail


def test_a_corrupt_archive_planted_in_storage_forfeits_its_seat(tmp_path: Path) -> None:
    # It passed no submission check (planted in the store): the worker finds it unpacking.
    bad = _corrupt(_stored_archive())
    codes = {hashlib.sha256(c).hexdigest(): c for c in (bad, HONEST)}
    seats = tuple(
        SeatPlan(i, f"seat{i}", 1, BotKind.UPLOADED, code_sha256=hashlib.sha256(c).hexdigest())
        for i, c in enumerate((bad, HONEST))
    )
    spec = games.get("village")
    plan = MatchPlan("corrupt-1", "village", spec.rules_version, 3, seats, 1.0, 6.0)
    record = play_plan(plan, SeatClients(CodeCache(tmp_path / "cache", codes.__getitem__)))
    assert len(record.ranks) == 2 and record.ranks[0] == 1  # played, the crash ranked last
    (forfeit,) = record.forfeits
    assert (forfeit.seat, forfeit.reason) == (0, ForfeitReason.CRASH)
    assert "cannot run" in forfeit.detail
