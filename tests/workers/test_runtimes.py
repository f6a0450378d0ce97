"""Bots in other runtimes, from archives with a manifest, in the strict sandbox: the Node
example and a static C executable each play a whole match without forfeiting."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

import games
from bots.archive import pack
from workers.clients import CodeCache, SeatClients
from workers.model import BotKind, MatchPlan, SeatPlan
from workers.play import play_plan
from workers.sandbox_check import missing_kernel_features

ROOT = Path(__file__).resolve().parents[2]

# Answers index 0 to every request: a DecisionResponse with action_index 0 is empty.
C_BOT = r"""
#include <stdint.h>
#include <unistd.h>
static int full(int fd, unsigned char *buf, size_t n) {
    size_t got = 0;
    while (got < n) { ssize_t r = read(fd, buf + got, n - got); if (r <= 0) return 0; got += r; }
    return 1;
}
int main(void) {
    static unsigned char body[1 << 20];
    unsigned char head[4];
    while (full(0, head, 4)) {
        uint32_t len = (uint32_t)head[0] << 24 | head[1] << 16 | head[2] << 8 | head[3];
        if (len > sizeof body || !full(0, body, len)) return 1;
        unsigned char answer[4] = {0, 0, 0, 0};
        if (write(1, answer, 4) != 4) return 1;
    }
    return 0;
}
"""


def play(tmp_path: Path, code: bytes) -> tuple[int, ...]:
    lacking = missing_kernel_features()
    if lacking:
        pytest.skip(f"this kernel lacks what the sandbox needs: {lacking}")
    sha = hashlib.sha256(code).hexdigest()
    seats = (
        SeatPlan(0, "other", 1, BotKind.UPLOADED, code_sha256=sha),
        SeatPlan(1, "random", 0, BotKind.BUILTIN),
    )
    plan = MatchPlan("rt-1", "village", games.get("village").rules_version, 5, seats, 5, 10)
    record = play_plan(plan, SeatClients(CodeCache(tmp_path / "cache", {sha: code}.__getitem__)))
    assert not record.forfeits, record.forfeits
    assert not record.unrated and record.sandbox_tier.startswith("bwrap")
    return record.ranks


@pytest.mark.skipif(shutil.which("node") is None, reason="no node runtime on this host")
def test_the_node_example_plays_a_match(tmp_path: Path) -> None:
    play(tmp_path, pack(ROOT / "bots" / "examples" / "node_random"))


def test_a_static_executable_plays_a_match(tmp_path: Path) -> None:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("no C compiler to build a static test bot")
    (tmp_path / "bot.c").write_text(C_BOT)
    built = subprocess.run(
        [gcc, "-static", "-O2", "-o", str(tmp_path / "bot"), str(tmp_path / "bot.c")],
        capture_output=True,
    )
    if built.returncode != 0:
        pytest.skip(f"cannot link a static executable here: {built.stderr.decode()[-300:]}")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("hamlet.json", json.dumps({"runtime": "native", "entry": "bot"}))
        zf.write(tmp_path / "bot", "bot")
    play(tmp_path, out.getvalue())
