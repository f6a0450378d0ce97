"""A round robin of built-in bots through the real match runner: who tops each game.

``python bench/round_robin.py [--bots random first greedy mcts] [--seeds 1] [--games ...]
[--decision-ms 100]``

For each game and seed, one four-player table of the given bots is played once per seat
rotation (so every bot sits in every seat on the same seed), by ``workers.local`` (the runner
``python -m workers play`` uses: real deadlines, banks and forfeits). It prints each bot's
mean place and wins per game, best first. Time-budgeted, so the figures vary with load.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import games
from workers.local import play_local


def main() -> int:
    """Play the rotations and print the standings per game."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", nargs="+", default=["random", "first", "greedy", "mcts"])
    parser.add_argument("--games", nargs="+", default=games.names())
    parser.add_argument("--seeds", type=int, default=1, help="seeds per game (each rotated)")
    parser.add_argument("--decision-ms", type=int, default=100)
    args = parser.parse_args()
    n = len(args.bots)
    for game in args.games:
        places: dict[str, list[int]] = defaultdict(list)
        wins: dict[str, float] = defaultdict(float)
        forfeits = 0
        for seed in range(1, args.seeds + 1):
            for shift in range(n):
                seats = [args.bots[(i + shift) % n] for i in range(n)]
                record = play_local(game, seats, seed, args.decision_ms / 1000, 10.0)
                forfeits += len(record.forfeits)
                firsts = record.ranks.count(0)
                for seat, bot in enumerate(seats):
                    places[bot].append(record.ranks[seat] + 1)
                    wins[bot] += 1 / firsts if record.ranks[seat] == 0 else 0.0
        table = sorted(args.bots, key=lambda b: sum(places[b]) / len(places[b]))
        standings = ", ".join(
            f"{b} {sum(places[b]) / len(places[b]):.2f} ({wins[b]:.0f} won)" for b in table
        )
        games_played = args.seeds * n
        print(f"{game:<11}{games_played} games, mean place: {standings}; forfeits {forfeits}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
