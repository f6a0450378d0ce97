"""Regenerate golden playthrough files: ``python tests/golden/make_golden.py GAME [GAME...]``.

Writes one game at the minimum and one at the maximum player count (and 3 players when
that differs from both), seed 1, per game. Review the diff before committing: a changed
golden file means the rules changed.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import games
from tests.golden.playthrough import write

SEED = 1


def counts(game: str) -> list[int]:
    """The player counts recorded for ``game``."""
    spec = games.get(game)
    return sorted({spec.min_players, 3, spec.max_players} & set(range(spec.min_players, 7)))


def main(argv: list[str]) -> int:
    """Write the golden files of the named games (all registered games if none named)."""
    for game in argv or games.names():
        for n in counts(game):
            print(write(game, n, SEED))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
