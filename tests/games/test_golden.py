"""Replays the golden playthrough files; fails if a registered game has none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import games
from tests.golden.playthrough import GOLDEN_DIR, diff, patch

FILES = sorted(GOLDEN_DIR.glob("*/*.jsonl"))


@pytest.mark.parametrize("game", games.names())
def test_every_game_has_golden_files(game: str) -> None:
    assert list((GOLDEN_DIR / game).glob("*.jsonl")), (
        f"no golden playthrough for {game}: run python tests/golden/make_golden.py {game}"
    )


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_golden_playthrough_replays_exactly(path: Path) -> None:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    header, steps, final = lines[0], lines[1:-1], lines[-1]
    spec = games.get(header["game"])
    assert spec.rules_version == header["rules_version"], "rules version changed: regenerate"
    state = spec.new_game(num_players=header["num_players"], seed=header["seed"])
    public = header["public"]
    assert state.public_state() == public
    for step in steps:
        where = f"{path.name} decision {step['i']}"
        assert state.to_move() == step["player"], where
        legal = state.legal_actions()
        assert len(legal) == step["legal"], where
        action = spec.action_from_dict(step["action"])
        assert action in legal, where
        assert str(action) == step["text"], where
        state.apply(action)
        public = patch(public, step["changed"])
        assert state.public_state() == public, where
    assert state.is_over()
    result = state.result()
    assert list(result.scores) == final["result"]["scores"]
    assert list(result.ranks) == final["result"]["ranks"]


def test_diff_and_patch_round_trip() -> None:
    old = {"a": [1, {"b": 2}], "c": 3, "gone": 1}
    new = {"a": [1, {"b": 5}], "c": [4, 4], "added": {"x": None}}
    assert patch(old, diff(old, new)) == new
    assert diff(new, new) == {}
