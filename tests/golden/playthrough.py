"""Golden playthrough files: full games with fixed seeds, every decision and the public
state after it, one JSON object per line (OpenSpiel's playthroughs, in JSON Lines).

Line 1 is a header ``{"game", "rules_version", "num_players", "seed"}``; then one line per
decision ``{"i", "player", "legal", "action", "text", "public"}``; the last line is
``{"result": {"scores", "ranks"}}``. The decisions are a seeded random policy's.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import games

GOLDEN_DIR = Path(__file__).parent


def record(game: str, num_players: int, seed: int) -> Iterator[dict[str, Any]]:
    """The lines of the golden file for one game."""
    spec = games.get(game)
    state = spec.new_game(num_players=num_players, seed=seed)
    yield {
        "game": game,
        "rules_version": spec.rules_version,
        "num_players": num_players,
        "seed": seed,
        "public": state.public_state(),
    }
    rng = random.Random(seed)
    i = 0
    while not state.is_over():
        player = state.to_move()
        legal = state.legal_actions()
        action = rng.choice(legal)
        state.apply(action)
        yield {
            "i": i,
            "player": player,
            "legal": len(legal),
            "action": games.action_to_dict(action),
            "text": str(action),
            "public": state.public_state(),
        }
        i += 1
    result = state.result()
    yield {"result": {"scores": list(result.scores), "ranks": list(result.ranks)}}


def path_for(game: str, num_players: int, seed: int) -> Path:
    """Where the golden file of that game lives."""
    return GOLDEN_DIR / game / f"{num_players}p-seed{seed}.jsonl"


def write(game: str, num_players: int, seed: int) -> Path:
    """(Re)write one golden file; returns its path."""
    path = path_for(game, num_players, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for line in record(game, num_players, seed):
            out.write(json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n")
    return path
