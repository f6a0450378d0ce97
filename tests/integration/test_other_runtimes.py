"""A bot in another language through the whole pipeline: the Node example, submitted as an
archive with a manifest, plays a tournament on real workers (in the full sandbox) and every
match is stored with no seat of it forfeiting. Skipped where the host has no ``node``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bots.archive import pack
from hamlet.v1 import arena_pb2
from tests.integration.stack import bots_announced, scaled, wait_until
from tests.integration.test_pipeline import (
    Stack,
    check_stored_once,
    run_tournament,
    settled,
    stack,  # noqa: F401 (the fixture)
)

# The guard against a hang, scaled as every wait is (stack.slowness).
pytestmark = [pytest.mark.integration, pytest.mark.timeout(scaled(300))]

NODE_BOT = Path(__file__).parents[2] / "bots" / "examples" / "node_random"


@pytest.mark.skipif(shutil.which("node") is None, reason="no node runtime on this host")
def test_a_node_bot_archive_plays_a_tournament(stack: Stack) -> None:  # noqa: F811
    worker = stack.worker("w-node")
    try:
        wait_until(lambda: bots_announced(stack.stub, {"random"}), 60, "the worker's bots")
        done = stack.stub.SubmitBot(
            arena_pb2.SubmitBotRequest(name="node-random", game="village", archive=pack(NODE_BOT)),
            timeout=10,
        )
        assert done.created and len(done.code_sha256) == 64
        tid = run_tournament(stack, "village", ["node-random", "random"], rounds=2)
        wait_until(lambda: settled(stack, tid), 180, "the tournament with the Node bot")
        matches = check_stored_once(stack, tid)
        for match in matches:
            node_seats = [s for s in match.seats if s.bot_name == "node-random"]
            assert node_seats and not any(s.forfeit_reason for s in node_seats), match
    except BaseException:
        print(worker.output()[-5000:])
        raise
    finally:
        worker.stop()


def test_a_bad_archive_is_refused_at_submission(stack: Stack) -> None:  # noqa: F811
    import io
    import zipfile

    import grpc

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("hamlet.json", '{"runtime": "node", "entry": "../escape.js"}')
    with pytest.raises(grpc.RpcError) as err:
        stack.stub.SubmitBot(
            arena_pb2.SubmitBotRequest(name="bad", game="village", archive=buf.getvalue()),
            timeout=10,
        )
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "plain relative path" in (err.value.details() or "")
