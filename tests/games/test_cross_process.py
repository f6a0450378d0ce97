"""Determinism across processes: a match played by a worker must replay on the server.

Python randomises string hashing per process, so an engine that iterates over a set of
strings (or a dict built from one) can order options or outcomes differently in another
process. Each game is played in two subprocesses with different hash seeds, and the
decision sequences and results must agree.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import games

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import hashlib, random, sys
import games
game = sys.argv[1]
spec = games.get(game)
digest = hashlib.sha256()
for n in range(spec.min_players, spec.max_players + 1):
    for seed in range(8):
        state = spec.new_game(num_players=n, seed=seed)
        rng = random.Random(seed)
        while not state.is_over():
            legal = state.legal_actions()
            digest.update(repr([str(a) for a in legal]).encode())
            state.apply(rng.choice(legal))
        digest.update(repr(state.result()).encode())
        digest.update(repr(sorted(str(state.public_state()))).encode())
print(digest.hexdigest())
"""


def _play(game: str, hash_seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, game],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return out.stdout.strip()


@pytest.mark.parametrize("game", games.names())
def test_games_replay_identically_under_other_hash_seeds(game: str) -> None:
    assert _play(game, "1") == _play(game, "2") == _play(game, "12345")
