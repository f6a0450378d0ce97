"""Engine speed: complete random games per second on one core, per game and player count.

``python bench/engines.py [--seconds S] [GAME ...]`` (``make bench``). For each game and
player count it plays uniformly random games in this one process for about S seconds of
CPU time and prints games/s, decisions/s and the median cost of one ``legal_actions()`` +
``apply()`` step in microseconds. Rates are per CPU-second of this single-threaded process,
i.e. per core, so other load on the machine does not distort them (wall-clock games/s is
printed beside them). Numbers, never assertions: tests do not time anything.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import games

#: The issues' targets (complete random 4-player games per second per core).
TARGETS = {("village", 4): 200, ("my_village", 4): 300, ("farmaria", 4): 300}


def measure(game: str, num_players: int, seconds: float) -> tuple[float, float, float, float, int]:
    """(games/CPU-s, decisions/CPU-s, median step µs, games/wall-s, games) for one setup."""
    spec = games.get(game)
    played = decisions = 0
    step_samples: list[float] = []
    clock = time.perf_counter
    cpu = time.process_time
    start, cpu_start = clock(), cpu()
    seed = 0
    while cpu() - cpu_start < seconds or played < 3:
        state = spec.new_game(num_players=num_players, seed=seed)
        rng = random.Random(seed)
        while not state.is_over():
            t0 = clock()
            legal = state.legal_actions()
            action = legal[rng.randrange(len(legal))]
            state.apply(action)
            if decisions % 16 == 0:
                step_samples.append(clock() - t0)
            decisions += 1
        played += 1
        seed += 1
    wall, used = clock() - start, cpu() - cpu_start
    step_us = statistics.median(step_samples) * 1e6
    return played / used, decisions / used, step_us, played / wall, played


def main() -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=games.names())
    parser.add_argument("--seconds", type=float, default=3.0, help="time per configuration")
    args = parser.parse_args()
    print(
        f"{'game':<12}{'players':>8}{'games/s':>10}{'decisions/s':>13}{'step µs':>9}"
        f"{'wall games/s':>14}  target (games/s per core)"
    )
    for game in args.games:
        spec = games.get(game)
        for n in range(spec.min_players, spec.max_players + 1):
            gps, dps, step_us, wall_gps, _ = measure(game, n, args.seconds)
            target = TARGETS.get((game, n))
            verdict = (
                "" if target is None else f"{target}/s: {'met' if gps >= target else 'MISSED'}"
            )
            row = f"{game:<12}{n:>8}{gps:>10.1f}{dps:>13.0f}{step_us:>9.1f}{wall_gps:>14.1f}"
            print(f"{row}  {verdict}")
    print("(per CPU-second of one single-threaded process; uniformly random legal actions;")
    print(" game seeds 0, 1, 2, ...; step µs is wall-clock, so it rises with machine load)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
