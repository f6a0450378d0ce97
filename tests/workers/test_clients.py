"""Seat clients end to end on village: uploaded bots in the sandbox, remote gRPC bots."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import pytest

from bots import sdk
from workers import local
from workers.clients import CodeCache
from workers.model import ForfeitReason, InfrastructureError
from workers.runner import replay

EXAMPLE = Path(__file__).parents[2] / "bots" / "examples" / "random_uploaded.py"


def write(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body)
    return str(path)


def test_the_example_uploaded_bot_plays_a_whole_match() -> None:
    record = local.play_local("village", [str(EXAMPLE), "random"], 3, 5.0, 30.0)
    assert record.forfeits == ()
    result = replay("village", 3, 2, record.decisions)
    assert (result.scores, result.ranks) == (record.scores, record.ranks)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("lambda obs, legal: len(legal)", ForfeitReason.ILLEGAL_ACTION),
        ("lambda obs, legal: 1 // 0", ForfeitReason.CRASH),
    ],
)
def test_uploaded_bot_faults(tmp_path: Path, body: str, reason: ForfeitReason) -> None:
    path = write(tmp_path, "bad.py", f"from bots.sdk import run\nrun({body})\n")
    record = local.play_local("village", [path, "random"], 4, 5.0, 30.0)
    assert [(f.seat, f.reason) for f in record.forfeits] == [(0, reason)]
    assert record.ranks[0] == 1


def test_uploaded_bot_garbage_is_bad_output(tmp_path: Path) -> None:
    body = (
        "import sys\nfrom hamlet import codec\n"
        "while codec.read_frame(sys.stdin.buffer) is not None:\n"
        "    codec.write_frame(sys.stdout.buffer, b'\\xff\\xff\\xff')\n"
    )
    record = local.play_local("village", [write(tmp_path, "g.py", body), "random"], 5, 5.0, 30.0)
    assert [f.reason for f in record.forfeits] == [ForfeitReason.BAD_OUTPUT]


def test_uploaded_bot_hang_times_out(tmp_path: Path) -> None:
    body = "import time\nfrom bots.sdk import run\nrun(lambda obs, legal: time.sleep(60))\n"
    record = local.play_local("village", ["random", write(tmp_path, "h.py", body)], 6, 0.3, 0.2)
    assert [(f.seat, f.reason) for f in record.forfeits] == [(1, ForfeitReason.TIMEOUT)]


def test_remote_bot_and_its_deadline() -> None:
    good, good_port = sdk.start_grpc(lambda obs, legal: 0, host="127.0.0.1")
    slow, slow_port = sdk.start_grpc(lambda obs, legal: time.sleep(4) or 0, host="127.0.0.1")
    try:
        record = local.play_local(
            "village",
            [f"grpc://127.0.0.1:{good_port}", f"grpc://127.0.0.1:{slow_port}"],
            7,
            1.0,
            1.0,
        )
    finally:
        good.stop(grace=None)
        slow.stop(grace=None)
    assert [(f.seat, f.reason) for f in record.forfeits] == [(1, ForfeitReason.TIMEOUT)]


def test_code_cache_verifies_hashes(tmp_path: Path) -> None:
    code = b"print('hi')\n"
    sha = hashlib.sha256(code).hexdigest()
    fetched: list[str] = []

    def fetch(digest: str) -> bytes:
        fetched.append(digest)
        return code if digest == sha else b"tampered"

    cache = CodeCache(tmp_path / "cache", fetch)
    assert cache.path(sha).read_bytes() == code
    assert cache.path(sha).read_bytes() == code
    assert fetched == [sha]  # the second use hits the cache
    with pytest.raises(InfrastructureError, match="does not hash"):
        cache.path("0" * 64)
    with pytest.raises(InfrastructureError, match="SHA-256"):
        cache.path("../../etc/passwd")
