"""Elo for multi-player results (pure: no I/O, no server imports).

A match with n seats counts as the n(n-1)/2 pairwise games between its seats, decided by final
rank (a better rank wins, equal ranks draw half a point each). Every seat's change uses the
ratings before the match, and K is divided by the number of opponents, so a four-player
match moves a rating about as much as one two-player game:

    delta_i = K / (n - 1) * sum_{j != i} (S_ij - E_ij),   E_ij = 1 / (1 + 10 ** ((R_j - R_i) / 400))

Updates are zero-sum. Elo depends on the order of results, which is why the result log keeps
recording order and :func:`rebuild` replays it (order-independent fits come later).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

INITIAL_RATING = 1500.0
K_FACTOR = 32.0


@dataclass(frozen=True, slots=True)
class BotRating:
    """One bot's line on a leaderboard."""

    bot: str
    rating: float = INITIAL_RATING
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0


def expected_score(rating: float, opponent: float) -> float:
    """Probability-like expected score of ``rating`` against ``opponent``."""
    return float(1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0)))


def pair_score(rank: int, opponent_rank: int) -> float:
    """1 for a better (lower) rank, 0.5 for a tie, 0 for a worse one."""
    if rank < opponent_rank:
        return 1.0
    return 0.5 if rank == opponent_rank else 0.0


def deltas(ratings: Sequence[float], ranks: Sequence[int], k: float = K_FACTOR) -> list[float]:
    """Rating changes by seat for one match (pre-match ratings and final ranks by seat)."""
    n = len(ratings)
    if n != len(ranks):
        raise ValueError("ratings and ranks must have one entry per seat")
    if n < 2:
        return [0.0] * n
    scale = k / (n - 1)
    return [
        scale
        * sum(
            pair_score(ranks[i], ranks[j]) - expected_score(ratings[i], ratings[j])
            for j in range(n)
            if j != i
        )
        for i in range(n)
    ]


def outcome(seat: int, ranks: Sequence[int]) -> str:
    """``win`` (sole first), ``draw`` (shared first) or ``loss`` for one seat."""
    if ranks[seat] != 0:
        return "loss"
    return "draw" if sum(1 for r in ranks if r == 0) > 1 else "win"


def apply_match(
    table: Mapping[str, BotRating], bots: Sequence[str], ranks: Sequence[int], k: float = K_FACTOR
) -> dict[str, BotRating]:
    """The new lines of the bots of one match (``bots`` and ``ranks`` by seat).

    A bot that holds several seats gets the sum of its seats' changes; pairs of seats held by
    the same bot are not games and count for nothing.
    """
    current = {b: table.get(b, BotRating(b)) for b in bots}
    n = len(bots)
    change = dict.fromkeys(bots, 0.0)
    if n >= 2:
        scale = k / (n - 1)
        for i in range(n):
            for j in range(n):
                if i == j or bots[i] == bots[j]:
                    continue
                s = pair_score(ranks[i], ranks[j])
                e = expected_score(current[bots[i]].rating, current[bots[j]].rating)
                change[bots[i]] += scale * (s - e)
    out: dict[str, BotRating] = {}
    for seat, bot in enumerate(bots):
        line = out.get(bot, current[bot])
        result = outcome(seat, ranks)
        out[bot] = replace(
            line,
            games=line.games + 1,
            wins=line.wins + (result == "win"),
            draws=line.draws + (result == "draw"),
            losses=line.losses + (result == "loss"),
        )
    return {b: replace(line, rating=line.rating + change[b]) for b, line in out.items()}


def rebuild(
    results: Iterable[tuple[Sequence[str], Sequence[int]]], k: float = K_FACTOR
) -> dict[str, BotRating]:
    """The leaderboard from scratch: apply every (bots, ranks) result in recording order."""
    table: dict[str, BotRating] = {}
    for bots, ranks in results:
        table.update(apply_match(table, bots, ranks, k))
    return table


def ordered(table: Mapping[str, BotRating]) -> list[BotRating]:
    """Lines best first (rating, then more games, then name)."""
    return sorted(table.values(), key=lambda r: (-r.rating, -r.games, r.bot))
