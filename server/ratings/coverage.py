"""How honest the published table is, measured against planted strengths.

Each :class:`Case` simulates many leaderboards (:func:`server.ratings.simulate.simulate`), fits
and publishes each one exactly as the service does (:func:`server.ratings.intervals.table`), and
compares every line with the truth put on the line's own scale (its group's anchor). Shared by
``bench/coverage.py`` (which prints the table) and the tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from server.ratings import intervals
from server.ratings.fit import fit
from server.ratings.simulate import simulate


@dataclass(frozen=True)
class Case:
    """One simulated setting: ``bots`` bots, ``blocks`` duplicate blocks at ``seats`` seats."""

    name: str
    bots: int
    blocks: int
    seats: int = 2
    shared_luck: float = 0.5
    spread_elo: float = 200.0
    groups: int = 1
    strengths: tuple[float, ...] | None = None
    #: The bot whose line is reported on its own (the planted unbeaten one), if any.
    watch: int | None = None

    def games_a_bot(self) -> float:
        """Games each bot plays on average."""
        return self.blocks * self.seats * self.seats / self.bots


@dataclass
class Tally:
    """What :func:`measure` counts over a case's datasets."""

    datasets: int = 0
    intervals: int = 0  # lines with an interval (not the anchor, at least one game)
    covered: int = 0  # of which the truth lies inside (an open side reaches to infinity)
    open_lines: int = 0
    provisional: int = 0
    boards_false_order: int = 0  # per-line intervals claim an order the truth contradicts
    boards_false_joint: int = 0  # the joint rank ranges do
    boards_across_groups: int = 0  # any order claimed between two groups
    watched: int = 0
    watched_open: int = 0
    watched_covered: int = 0
    watched_provisional: int = 0
    widths: list[float] = field(default_factory=list)

    @property
    def coverage(self) -> float:
        """Share of intervals that hold the truth."""
        return self.covered / max(self.intervals, 1)


def measure(case: Case, datasets: int, first_seed: int = 0) -> Tally:
    """Simulate ``datasets`` leaderboards of ``case`` and count how the table did."""
    tally = Tally()
    seat_elo = (-30.0, -40.0, -50.0, -55.0, -60.0)[: case.seats - 1]
    for seed in range(first_seed, first_seed + datasets):
        planted = simulate(
            case.bots,
            case.blocks,
            seats=case.seats,
            spread_elo=case.spread_elo,
            seat_elo=seat_elo,
            shared_luck=case.shared_luck,
            seed=seed,
            strengths=case.strengths,
            groups=case.groups,
        )
        packed = planted.packed
        result = fit(packed)
        lines = intervals.table(packed, result, intervals.sandwich(packed, result))
        s = intervals.scale(packed)
        n = len(packed.names)
        truth_of = dict(
            zip(packed.names, s.base + s.contrasts[:, :n] @ planted.strength_elo, strict=True)
        )
        group_of = {line.bot: line.group for line in lines}
        tally.datasets += 1
        false_line = false_joint = across = False
        for line in lines:
            truth = truth_of[line.bot]
            if line.games > 0 and not line.anchor:
                tally.intervals += 1
                tally.covered += int(line.low <= truth <= line.high)
                tally.open_lines += int(line.open_low or line.open_high)
                tally.provisional += int(line.provisional)
                if np.isfinite(line.high - line.low):
                    tally.widths.append(line.high - line.low)
            if case.watch is not None and line.bot == packed.names[case.watch]:
                tally.watched += 1
                tally.watched_open += int(line.open_high or line.open_low)
                tally.watched_covered += int(line.low <= truth <= line.high)
                tally.watched_provisional += int(line.provisional)
            for other in lines:
                if other.group != line.group:
                    continue
                if line.low > other.high and truth_of[line.bot] <= truth_of[other.bot]:
                    false_line = True
            for name in line.above:
                across |= group_of[name] != line.group
                false_joint |= truth_of[line.bot] <= truth_of[name]
        tally.boards_false_order += int(false_line)
        tally.boards_false_joint += int(false_joint)
        tally.boards_across_groups += int(across)
    return tally


#: The cases of ``bench/coverage.py`` and ``docs/ratings.md`` (two seats unless said).
CASES = (
    Case("middle: 180 blocks, 72 games a bot", 10, 180),
    Case("18 games a bot (45 blocks)", 10, 45),
    Case("18 games a bot, 4 seats (40 bots)", 40, 45, seats=4),
    Case("3 games a bot (8 blocks)", 10, 8),
    Case("two groups that never met", 12, 90, groups=2, spread_elo=300.0),
    Case(
        "one unbeaten bot (+900 Elo, 4 seats)",
        10,
        12,
        seats=4,
        strengths=(0.0, 900.0, 0, 50, -50, 100, -100, 150, -150, 20),
        watch=1,
    ),
    Case("ten equal bots, 45 blocks", 10, 45, strengths=(0.0,) * 10),
    Case("ten equal bots, 180 blocks", 10, 180, strengths=(0.0,) * 10),
)
