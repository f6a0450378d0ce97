"""The Node example over the JSON framing, in the strict sandbox: ``node_greedy`` (its
``hamlet.json`` says ``"framing": "json"``) plays whole games of every game through local play,
the workers' own code, without forfeiting, and beats ``random`` over seeded duplicate blocks.
Skipped where the host has no ``node`` or the kernel cannot run the sandbox.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import games
from bots.archive import check, pack
from hamlet.codec import Framing
from workers import localplay
from workers.localplay import LocalPlay, prepare
from workers.sandbox_check import missing_kernel_features

NODE_GREEDY = Path(__file__).resolve().parents[2] / "bots" / "examples" / "node_greedy"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="no node runtime on this host")


def test_the_example_declares_the_json_framing() -> None:
    assert check(pack(NODE_GREEDY)).framing is Framing.JSON


@pytest.mark.parametrize("game", games.names())
def test_node_greedy_beats_random_in_the_sandbox(game: str) -> None:
    lacking = missing_kernel_features()
    if lacking:
        pytest.skip(f"this kernel lacks what the sandbox needs: {lacking}")
    request = LocalPlay(str(NODE_GREEDY), game, ("random",), games=4, seed=1, players=2)
    summary = localplay.play(prepare(request))
    assert summary.sandbox_tier.startswith("bwrap"), summary.sandbox_tier
    assert summary.games == 4 and not summary.forfeits, summary.forfeits
    (opponent,) = summary.opponents
    assert summary.target.wins > opponent.wins, (summary.target, opponent)
    assert summary.target.average_score > opponent.average_score
