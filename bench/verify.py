"""The cost of the server's replay-before-final check, per game and player count.

``python bench/verify.py [--matches N]``. For each game it plays N random matches in process
(the worker's side), builds the report a worker sends, then times
:func:`server.services.verify.verify_outcome` on it (the server's side: JSON-decode every
action, replay through the engine, compare decision count, scores and ranks). It prints the
median verification time per match in CPU milliseconds of this one process (per core) and
its ratio to playing the match, so the share of a server core per recorded match is visible.
Numbers, never assertions.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import games
from server.services.verify import verify_outcome
from server.storage import DecisionRecord, MatchRecord, MatchStatus, Outcome, SeatOutcome
from server.storage.base import SeatRecord

SETUPS = [(g, n) for g in ("village", "my_village", "farmaria") for n in (2, 4)] + [("farmaria", 6)]


def play(game: str, players: int, seed: int) -> tuple[MatchRecord, Outcome, float]:
    """A random match as a worker would report it, and the CPU seconds playing it took."""
    spec = games.get(game)
    rng = random.Random(seed)
    start = time.process_time()
    state = spec.new_game(num_players=players, seed=seed)
    decisions = []
    while not state.is_over():
        legal = state.legal_actions()
        action = legal[rng.randrange(len(legal))]
        decisions.append((state.to_move(), len(legal), action))
        state.apply(action)
    played = time.process_time() - start
    result = state.result()
    log = tuple(
        DecisionRecord(i, p or 0, n, json.dumps(games.action_to_dict(a)), str(a), 0.0, False)
        for i, (p, n, a) in enumerate(decisions)
    )
    seats = tuple(SeatOutcome(s, r) for s, r in zip(result.scores, result.ranks, strict=True))
    match = MatchRecord(
        match_id="m",
        tournament_id="t",
        game=game,
        rules_version=spec.rules_version,
        seed=seed,
        status=MatchStatus.RUNNING,
        round=0,
        table=0,
        rotation=0,
        attempts=1,
        decision_time_ms=1000,
        time_bank_ms=10000,
        seats=tuple(SeatRecord(i, f"b{i}", 1, "builtin", "") for i in range(players)),
    )
    return match, Outcome(seats, log, 0.0), played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--matches", type=int, default=30)
    args = parser.parse_args()
    print(f"{'game':<12} {'players':>7} {'decisions':>9} {'verify ms':>10} {'play ms':>8} "
          f"{'verify/play':>11} {'verified/s per core':>20}")  # fmt: skip
    for game, players in SETUPS:
        verify_s, play_s, counts = [], [], []
        for seed in range(args.matches):
            match, outcome, played = play(game, players, seed)
            start = time.process_time()
            verify_outcome(match, outcome)
            verify_s.append(time.process_time() - start)
            play_s.append(played)
            counts.append(len(outcome.decisions))
        v, p = statistics.median(verify_s), statistics.median(play_s)
        print(
            f"{game:<12} {players:>7} {statistics.median(counts):>9.0f} {v * 1e3:>10.2f} "
            f"{p * 1e3:>8.2f} {v / p:>11.2f} {1 / v:>20.0f}"
        )


if __name__ == "__main__":
    main()
