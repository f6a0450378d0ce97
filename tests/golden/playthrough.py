"""Golden playthrough files: full games with fixed seeds, every decision and the public
state after it, one JSON object per line (OpenSpiel's playthroughs, in JSON Lines).

Line 1 is a header ``{"game", "rules_version", "num_players", "seed", "public"}`` with the
initial public state; then one line per decision ``{"i", "player", "legal", "action", "text",
"changed"}``, where ``changed`` maps each changed path of the public state ("players/2/coins")
to its new value, so that applying it to the previous public state gives the public state
after the decision; the last line is ``{"result": {"scores", "ranks"}}``. The decisions are
a seeded random policy's.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import games

#: A public state value that disappeared at a path.
REMOVED = {"$removed": True}

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
    before = state.public_state()
    i = 0
    while not state.is_over():
        player = state.to_move()
        legal = state.legal_actions()
        action = rng.choice(legal)
        state.apply(action)
        after = state.public_state()
        yield {
            "i": i,
            "player": player,
            "legal": len(legal),
            "action": games.action_to_dict(action),
            "text": str(action),
            "changed": diff(before, after),
        }
        before = after
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
            out.write(
                json.dumps(line, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
            )
    return path


def diff(old: Any, new: Any, path: str = "") -> dict[str, Any]:
    """Paths (``a/0/b``) whose value differs between two JSON values, with the new value."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: dict[str, Any] = {}
        for key in old.keys() | new.keys():
            sub = f"{path}/{key}" if path else str(key)
            if key not in new:
                out[sub] = REMOVED
            elif key not in old:
                out[sub] = new[key]
            else:
                out.update(diff(old[key], new[key], sub))
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        out = {}
        for index, (a, b) in enumerate(zip(old, new, strict=True)):
            out.update(diff(a, b, f"{path}/{index}" if path else str(index)))
        return out
    return {} if old == new else {path: new}


def patch(value: Any, changes: dict[str, Any]) -> Any:
    """Apply :func:`diff` output to a JSON value (a new value; the input is not changed)."""
    value = json.loads(json.dumps(value))
    for path, new in changes.items():
        if path == "":
            value = new
            continue
        *parents, last = path.split("/")
        node = value
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = new
        elif new == REMOVED:
            del node[last]
        else:
            node[last] = new
    return value
