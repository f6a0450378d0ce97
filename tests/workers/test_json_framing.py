"""The worker speaks the manifest's framing to a sandboxed bot: a Python archive that asks for
JSON plays a whole match through ``bots.sdk.run(..., framing=JSON)``, and an answer that is not
a ``DecisionResponse`` in JSON (protobuf bytes, an unknown key) is ``bad_output``."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import pytest

import games
from workers.clients import CodeCache, SeatClients
from workers.model import BotKind, ForfeitReason, MatchPlan, MatchRecord, SeatPlan
from workers.play import play_plan
from workers.sandbox_check import missing_kernel_features

MANIFEST = json.dumps({"runtime": "python3", "entry": "bot.py", "framing": "json"})

SDK_BOT = """
from bots.sdk import run
from hamlet import codec

run(lambda observation, legal: len(legal) - 1, framing=codec.Framing.JSON)
"""

# Answers every JSON request with ``answer`` (bytes), framed.
RAW_BOT = """
import json, sys
from hamlet import codec

while (frame := codec.read_frame(sys.stdin.buffer)) is not None:
    assert json.loads(frame)["legal_actions"]  # the request did come as JSON
    codec.write_frame(sys.stdout.buffer, {answer!r})
"""


def archive(bot: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("hamlet.json", MANIFEST)
        zf.writestr("bot.py", bot)
    return out.getvalue()


def play(tmp_path: Path, code: bytes) -> MatchRecord:
    lacking = missing_kernel_features()
    if lacking:
        pytest.skip(f"this kernel lacks what the sandbox needs: {lacking}")
    sha = hashlib.sha256(code).hexdigest()
    seats = (
        SeatPlan(0, "json-bot", 1, BotKind.UPLOADED, code_sha256=sha),
        SeatPlan(1, "random", 0, BotKind.BUILTIN),
    )
    plan = MatchPlan("jf-1", "village", games.get("village").rules_version, 5, seats, 5, 10)
    return play_plan(plan, SeatClients(CodeCache(tmp_path / "cache", {sha: code}.__getitem__)))


def test_a_python_archive_plays_a_match_in_json(tmp_path: Path) -> None:
    record = play(tmp_path, archive(SDK_BOT))
    assert not record.forfeits, record.forfeits
    mine = [d for d in record.decisions if d.player == 0]
    assert mine and all(not d.by_fallback for d in mine)


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        (b"\x08\x01", "json framing"),  # a protobuf DecisionResponse: the wrong framing
        (b'{"action_index": 0, "confidence": 1}', "confidence"),
    ],
)
def test_an_answer_not_in_json_is_bad_output(tmp_path: Path, answer: bytes, says: str) -> None:
    record = play(tmp_path, archive(RAW_BOT.format(answer=answer)))
    (forfeit,) = record.forfeits
    assert forfeit.reason is ForfeitReason.BAD_OUTPUT
    assert "answer is not a DecisionResponse" in forfeit.detail and says in forfeit.detail
