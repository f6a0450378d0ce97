"""The numbers ``hamlet bot play`` reports: per game results folded into one summary.

Places are 1-based and follow the match record: competition ranking (tied seats share a
place, the next place is skipped) with forfeited seats last. A *win* is a game the bot
finished in first place, shared first places included; ``shared`` says how many of those
were ties. Decision times are the bot's own answered decisions (fallback moves played for it
after a forfeit are not its time).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workers.model import MatchRecord


@dataclass(frozen=True, slots=True)
class GameResult:
    """One played game of a local run."""

    number: int  # 1-based
    block: int
    rotation: int
    target_seat: int
    #: The label of each seat's bot, by seat.
    labels: tuple[str, ...]
    record: MatchRecord
    trace_path: Path | None = None

    @property
    def target_place(self) -> int:
        """The target's 1-based place."""
        return self.record.ranks[self.target_seat] + 1


@dataclass(frozen=True, slots=True)
class BotLine:
    """How one bot did over the seats it played."""

    name: str
    games: int
    wins: int
    shared: int
    average_place: float
    average_score: float
    forfeits: int


@dataclass(frozen=True, slots=True)
class ForfeitNote:
    """One forfeit of the target: where, why, and what it said."""

    game: int
    seat: int
    reason: str
    detail: str
    decision: int


@dataclass(frozen=True, slots=True)
class Summary:
    """Everything ``hamlet bot play`` prints at the end (and ``--json`` prints as one object)."""

    game: str
    seed: int
    players: int
    requested: int
    games: int
    blocks: int
    target: BotLine
    opponents: tuple[BotLine, ...]
    forfeits: tuple[ForfeitNote, ...]
    opponent_forfeits: int
    decisions: int
    mean_decision_s: float
    max_decision_s: float
    #: The sandbox tier uploaded bots ran in ("" if none ran); "insecure" means unsandboxed.
    sandbox_tier: str
    traces: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return dataclasses.asdict(self)


def _line(name: str, seats: Sequence[tuple[GameResult, int]]) -> BotLine:
    wins = shared = forfeits = 0
    places = scores = 0.0
    for result, seat in seats:
        ranks = result.record.ranks
        if ranks[seat] == 0:
            wins += 1
            shared += sum(1 for r in ranks if r == 0) > 1
        forfeits += any(f.seat == seat for f in result.record.forfeits)
        places += ranks[seat] + 1
        scores += result.record.scores[seat]
    n = max(1, len(seats))
    return BotLine(name, len(seats), wins, shared, places / n, scores / n, forfeits)


def summarize(
    *,
    game: str,
    seed: int,
    players: int,
    requested: int,
    target: str,
    results: Sequence[GameResult],
    sandbox_tier: str,
) -> Summary:
    """Fold the games of one run into its :class:`Summary`."""
    mine = [(r, r.target_seat) for r in results]
    by_opponent: dict[str, list[tuple[GameResult, int]]] = {}
    for r in results:
        for seat, label in enumerate(r.labels):
            if seat != r.target_seat:
                by_opponent.setdefault(label, []).append((r, seat))
    times = [
        d.seconds
        for r in results
        for d in r.record.decisions
        if d.player == r.target_seat and not d.by_fallback
    ]
    forfeits = tuple(
        ForfeitNote(r.number, f.seat, f.reason.value, f.detail, f.at_decision)
        for r in results
        for f in r.record.forfeits
        if f.seat == r.target_seat
    )
    others = sum(1 for r in results for f in r.record.forfeits if f.seat != r.target_seat)
    return Summary(
        game=game,
        seed=seed,
        players=players,
        requested=requested,
        games=len(results),
        blocks=len({r.block for r in results}),
        target=_line(target, mine),
        opponents=tuple(_line(name, seats) for name, seats in by_opponent.items()),
        forfeits=forfeits,
        opponent_forfeits=others,
        decisions=len(times),
        mean_decision_s=sum(times) / len(times) if times else 0.0,
        max_decision_s=max(times, default=0.0),
        sandbox_tier=sandbox_tier,
        traces=tuple(str(r.trace_path) for r in results if r.trace_path is not None),
    )
