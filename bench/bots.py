"""Built-in bot strength: ``mcts`` against ``greedy`` and ``random`` over duplicate blocks.

``python bench/bots.py [--decision-ms MS | --iterations N] [--blocks B] [--games G ...]
[--players 2 4] [--opponents greedy random] [--jobs J]``

For every game, player count and opponent, a *duplicate block* is one seed played once per
seat: ``mcts`` takes each seat in turn and the opponent bot fills the others, so every
block deals ``mcts`` and the opponent the same cards and dice from the same seats. Per
setup it prints ``mcts``'s average place (1 = first), its win rate (a shared first place
counts 1/k) with a Wilson 95% interval over games, and a test of "``mcts`` places no
better than the opponent": per block the opponent seats' mean place minus ``mcts``'s
place, an exact two-sided sign test over blocks (``sign p``) and a t-test on the block
differences (``t p``); and an exact binomial test of its wins against the even share
``1/n`` (``win p``). The iteration rate (iterations per CPU-second of ``mcts``'s own
search) is printed per setup, and before the matches the rate from a mid-game four-player
position of each game (``--speed-only`` prints only that).

A time budget (``--decision-ms``) makes the numbers depend on the machine's load; an
iteration budget (``--iterations``) is reproducible. Numbers only: tests assert nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scipy import stats

import games
from bots import greedy, mcts, registry
from bots.api import Bot, Decision
from bots.search import Budget
from games import State


@dataclass(frozen=True, slots=True)
class Setup:
    """One line of the table: a game, a table size, an opponent and the budget."""

    game: str
    players: int
    opponent: str
    decision_s: float
    iterations: int | None
    settings: mcts.Settings | None = None


@dataclass(frozen=True, slots=True)
class Block:
    """One duplicate block's outcome for ``mcts``."""

    places: tuple[int, ...]  # mcts's place (1-based) in each rotation
    wins: tuple[float, ...]  # 1/k for a first place shared by k players
    opponent_mean_place: float
    iterations: int
    search_cpu_s: float
    decisions: int


def make_mcts(setup: Setup, rng: random.Random) -> mcts.MctsBot:
    """``mcts`` with the setup's budget."""
    if setup.iterations is not None:
        budget = Budget(iterations=setup.iterations, max_seconds=None)
    else:
        budget = Budget(max_seconds=None)
    return mcts.MctsBot(setup.game, rng, budget, setup.settings)


def opponent(setup: Setup, seed: int, seat: int) -> Bot:
    """The opponent bot in ``seat``, seeded per block and seat."""
    rng = random.Random(games.derive_seed(seed, setup.opponent, seat))
    return registry.make(setup.opponent, setup.game, rng)


def play_block(setup: Setup, seed: int) -> Block:
    """Play seed ``seed`` once per seat with ``mcts`` in that seat."""
    n = setup.players
    places: list[int] = []
    wins: list[float] = []
    opponent_places: list[float] = []
    iterations = 0
    cpu = 0.0
    decisions = 0
    for seat_of_mcts in range(n):
        state = games.get(setup.game).new_game(num_players=n, seed=seed)
        search = make_mcts(setup, random.Random(games.derive_seed(seed, "mcts", seat_of_mcts)))
        bots: list[Bot] = [
            search if i == seat_of_mcts else opponent(setup, seed, i) for i in range(n)
        ]
        asked = [0] * n
        while not state.is_over():
            seat = state.to_move()
            assert seat is not None
            legal = state.legal_actions()
            decision = Decision(setup.game, seat, asked[seat], setup.decision_s, setup.decision_s)
            asked[seat] += 1
            if seat == seat_of_mcts:
                began = time.process_time()
                choice = search.decide(state, legal, decision)
                cpu += time.process_time() - began
                iterations += search.last_iterations
                decisions += 1
            else:
                choice = bots[seat].decide(state, legal, decision)
            state.apply(legal[choice])
        ranks = state.result().ranks
        places.append(ranks[seat_of_mcts] + 1)
        firsts = ranks.count(0)
        wins.append(1.0 / firsts if ranks[seat_of_mcts] == 0 else 0.0)
        others = [r + 1 for i, r in enumerate(ranks) if i != seat_of_mcts]
        opponent_places.append(sum(others) / len(others))
    return Block(tuple(places), tuple(wins), sum(opponent_places) / n, iterations, cpu, decisions)


def wilson(successes: float, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for a proportion."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = (
        z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    )
    return max(0.0, centre - half), min(1.0, centre + half)


def report(setup: Setup, blocks: list[Block]) -> str:
    """One table row."""
    places = [p for b in blocks for p in b.places]
    wins = [w for b in blocks for w in b.wins]
    diffs = [b.opponent_mean_place - sum(b.places) / len(b.places) for b in blocks]
    better = sum(d > 0 for d in diffs)
    worse = sum(d < 0 for d in diffs)
    sign_p = stats.binomtest(better, better + worse, 0.5).pvalue if better + worse else 1.0
    spread = stats.tstd(diffs) if len(set(diffs)) > 1 else 0.0  # identical: no spread
    t_p = (
        float(stats.ttest_1samp(diffs, 0.0).pvalue)
        if len(diffs) > 1 and spread > 0
        else (0.0 if diffs and min(diffs) > 0 else 1.0)
    )
    low, high = wilson(sum(wins), len(wins))
    # Wins against the even share 1/n: a shared first place is rounded down (conservative).
    win_p = stats.binomtest(int(sum(wins)), len(wins), 1 / setup.players).pvalue
    opp = sum(b.opponent_mean_place for b in blocks) / len(blocks)
    cpu = sum(b.search_cpu_s for b in blocks)
    rate = sum(b.iterations for b in blocks) / max(1e-9, cpu)
    per_decision = cpu / max(1, sum(b.decisions for b in blocks))
    return (
        f"{setup.game:<11}{setup.players:>3} {setup.opponent:<7}{len(places):>6}"
        f"{sum(places) / len(places):>7.2f}{opp:>7.2f}"
        f"{sum(wins) / len(wins):>7.1%} [{low:.0%}, {high:.0%}]{win_p:>9.2g}"
        f"{better:>6}/{worse:<4}{sign_p:>9.2g}{t_p:>9.2g}{rate:>9.0f}{per_decision:>7.2f}"
    )  # fmt: skip


def midgame(game: str) -> State:
    """The 4-player position halfway through a random game of ``game`` (seed 11)."""
    spec = games.get(game)
    state = spec.new_game(num_players=4, seed=11)
    rng = random.Random(11)
    length = 0
    probe = state.clone()
    while not probe.is_over():
        legal = probe.legal_actions()
        probe.apply(legal[rng.randrange(len(legal))])
        length += 1
    rng = random.Random(11)
    for _ in range(length // 2):
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    return state


def speed(game: str, seconds: float = 2.0) -> tuple[float, int]:
    """(iterations per CPU-second, legal actions) of one search from :func:`midgame`."""
    state = midgame(game)
    seat = state.to_move()
    assert seat is not None
    legal = state.legal_actions()
    bot = mcts.MctsBot(game, random.Random(1), Budget(iterations=100_000, max_seconds=seconds))
    began = time.process_time()
    bot.decide(state, legal, Decision(game, seat, 0, seconds, seconds))
    return bot.last_iterations / (time.process_time() - began), len(legal)


def costs(game: str, repeat: int = 300) -> dict[str, float]:
    """CPU µs of an iteration's parts from :func:`midgame`: a determinization, one
    legal_actions() + apply() step on it, and the heuristic for all four players."""
    state = midgame(game)
    seat = state.to_move()
    assert seat is not None
    rng = random.Random(2)
    evaluate = greedy.heuristic_for(game)

    def per_call(work: Callable[[], object]) -> float:
        began = time.process_time()
        for _ in range(repeat):
            work()
        return (time.process_time() - began) / repeat * 1e6

    worlds = iter([state.determinize(seat, rng) for _ in range(repeat)])

    def step() -> None:
        world = next(worlds)
        for _ in range(4):
            if world.is_over():
                break
            legal = world.legal_actions()
            world.apply(legal[rng.randrange(len(legal))])

    determinize = per_call(lambda: state.determinize(seat, rng))
    return {
        "determinize": determinize,
        "step": per_call(step) / 4,
        "heuristic x4": per_call(
            lambda: [evaluate(state.observation(p), p) for p in range(state.num_players)]
        ),
    }


def settings(game: str, args: argparse.Namespace) -> mcts.Settings | None:
    """The game's default settings with the command line's overrides, if any."""
    base = mcts.settings_for(game)
    changes = {
        "playout_rounds": args.playout_rounds,
        "exploration": args.exploration,
        "scale": args.scale,
        "prior": args.prior,
        "horizon": args.horizon,
        "playout": None if args.playout is None else mcts.Playout(args.playout),
    }
    changed = {k: v for k, v in changes.items() if v is not None}
    if not changed:
        return None
    if changed.get("playout_rounds") == -1:
        changed["playout_rounds"] = None  # -1 on the command line: play to the end
    return dataclasses.replace(base, **changed)


def main() -> int:
    """Print the speed figures and the strength table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decision-ms", type=int, default=1000, help="time budget per decision")
    parser.add_argument("--iterations", type=int, help="iteration budget (overrides the time)")
    parser.add_argument("--blocks", type=int, default=20, help="duplicate blocks per setup")
    parser.add_argument(
        "--blocks-at",
        nargs="+",
        default=[],
        metavar="PLAYERS=BLOCKS",
        help="another number of blocks at a table size (4=3: four-player games are dearer)",
    )
    parser.add_argument("--games", nargs="+", default=games.names())
    parser.add_argument("--players", nargs="+", type=int, default=[2, 4])
    parser.add_argument("--opponents", nargs="+", default=["greedy", "random"])
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument("--speed-only", action="store_true")
    parser.add_argument("--playout-rounds", type=int, help="override the game's playout depth")
    parser.add_argument("--exploration", type=float, help="override the UCB1 constant")
    parser.add_argument("--scale", type=float, help="override the heuristic's squashing scale")
    parser.add_argument("--prior", type=float, help="override the root's progressive bias")
    parser.add_argument("--horizon", type=int, help="override the leaf horizon (decisions)")
    policies = [p.value for p in mcts.Playout]
    parser.add_argument("--playout", choices=policies, help="override the playout policy")
    args = parser.parse_args()
    print("mcts iterations per CPU-second, one search from a mid-game 4-player position:")
    for game in args.games:
        rate, options = speed(game)
        parts = ", ".join(f"{k} {v:.0f}" for k, v in costs(game).items())
        print(f"  {game:<11}{rate:>7.0f} it/s  ({options} legal actions; target 300)  µs: {parts}")
    if args.speed_only:
        return 0
    blocks_at = {int(k): int(v) for k, v in (item.split("=") for item in args.blocks_at)}
    budget = (
        f"{args.iterations} iterations" if args.iterations else f"{args.decision_ms} ms"
    ) + " per decision"
    counts = ", ".join([f"{args.blocks}", *(f"{v} at {k} players" for k, v in blocks_at.items())])
    print(f"mcts against each opponent, duplicate blocks per setup: {counts}; {budget}")
    print(
        f"{'game':<11}{'n':>3} {'vs':<7}{'games':>6}{'place':>7}{'opp':>7}{'win':>7} "
        f"{'95% CI':<11}{'win p':>9}{'blocks +/-':>11}{'sign p':>9}{'t p':>9}"
        f"{'it/s':>9}{'s/dec':>7}"
    )
    setups = [
        Setup(game, n, opponent, args.decision_ms / 1000, args.iterations, settings(game, args))
        for game in args.games
        for n in args.players
        if games.get(game).min_players <= n <= games.get(game).max_players
        for opponent in args.opponents
    ]

    def seeds(setup: Setup) -> range:
        return range(args.first_seed, args.first_seed + blocks_at.get(setup.players, args.blocks))

    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        # Every block of every setup is queued at once, so no core idles between setups.
        pending = [[pool.submit(play_block, s, seed) for seed in seeds(s)] for s in setups]
        for setup, futures in zip(setups, pending, strict=True):
            blocks = []
            for seed, future in zip(seeds(setup), futures, strict=True):
                blocks.append(future.result())
                print(f"  {setup.game} {setup.players}p vs {setup.opponent}: block {seed} "
                      f"places {blocks[-1].places}", file=sys.stderr, flush=True)  # fmt: skip
            print(report(setup, blocks), flush=True)
    print("place: mcts's mean place (1 = first); opp: the opponent seats' mean place; win: a")
    print("shared first place counts 1/k; win p: exact binomial test of mcts's wins against")
    print("the even share 1/n; blocks +/-: blocks mcts placed better/worse than the")
    print("opponents on average; sign p: exact two-sided sign test over blocks; t p: t-test on")
    print("the block differences; it/s: mcts iterations per CPU-second of its search; s/dec:")
    print("its mean CPU seconds per decision (below the budget when the answer settles early).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
