"""Published leaderboards: the rating fit over a game's rated results, refitted when results
arrive, shown per bot version or per bot (its latest version)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import numpy as np

import games
from server.ratings import intervals
from server.ratings.data import Result, pack
from server.ratings.fit import fit
from server.ratings.intervals import Line, SeatAdvantage
from server.services import validation as v
from server.storage import Store


@dataclass(frozen=True, slots=True)
class VersionLine:
    """A published line of one bot version."""

    bot: str
    version: int
    line: Line
    other_versions: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Published:
    """One game's published leaderboard under one rules version."""

    game: str
    rules_version: str
    lines: tuple[VersionLine, ...]  # best first, every version
    seats: tuple[SeatAdvantage, ...]
    matches: int
    blocks: int
    #: When the fit behind these lines was made (None: no fit yet) and how many rated results
    #: were recorded when it was read (``matches`` of them are in the fit).
    fitted_at: datetime | None = None
    results_recorded: int = 0

    def latest_only(self) -> tuple[VersionLine, ...]:
        """Each bot's line at its latest rated version, rank ranges among these lines.

        Per-line ranges compare the shown intervals within each group; joint ranges count the
        orders the full table claimed among the shown lines (claims that hold for every pair of
        versions at once still hold for any subset of them).
        """
        latest: dict[str, int] = {}
        for vl in self.lines:
            latest[vl.bot] = max(latest.get(vl.bot, 0), vl.version)
        shown = [vl for vl in self.lines if vl.version == latest[vl.bot]]
        out: list[VersionLine] = []
        for group in sorted({vl.line.group for vl in shown}):
            members = [vl for vl in shown if vl.line.group == group]
            ranks = intervals.rank_ranges(
                np.array([vl.line.low for vl in members]),
                np.array([vl.line.high for vl in members]),
            )
            keys = {vl.line.bot for vl in members}
            beaten_by = dict.fromkeys(keys, 0)
            for vl in members:
                for name in vl.line.above:
                    if name in keys:
                        beaten_by[name] += 1
            for vl, (lo, hi) in zip(members, ranks, strict=True):
                above = tuple(name for name in vl.line.above if name in keys)
                line = replace(
                    vl.line,
                    rank_low=lo,
                    rank_high=hi,
                    joint_rank_low=1 + beaten_by[vl.line.bot],
                    joint_rank_high=len(members) - len(above),
                    above=above,
                )
                out.append(replace(vl, line=line))
        return tuple(out)


def split_version(key: str) -> tuple[str, int]:
    """``name@3`` -> ``("name", 3)``."""
    name, _, version = key.rpartition("@")
    return name, int(version)


class LeaderboardService:
    """Fits on demand and keeps the last fit per (game, rules version) until results change."""

    def __init__(
        self, store: Store, on_fit: Callable[[str, float, int], None] | None = None
    ) -> None:
        self.store = store
        #: Told ``(game, seconds, matches)`` after every fit (the server's metrics).
        self.on_fit = on_fit
        self._lock = threading.Lock()
        self._cache: dict[tuple[str, str], tuple[int, Published]] = {}

    def published(self, game: str, rules_version: str = "") -> Published:
        """The fitted leaderboard (the engine's current rules when ``rules_version`` is empty)."""
        spec = v.game_spec(game)
        rules = rules_version or spec.rules_version
        v.identifier("rules_version", rules)
        count = self.store.rated_result_count(game)
        with self._lock:
            cached = self._cache.get((game, rules))
        if cached is not None and cached[0] == count:
            return cached[1]
        started = time.perf_counter()
        board = self._fit(game, rules)
        if self.on_fit is not None:
            self.on_fit(game, time.perf_counter() - started, board.matches)
        board = replace(
            board, fitted_at=datetime.now(UTC).replace(tzinfo=None), results_recorded=count
        )
        with self._lock:
            self._cache[(game, rules)] = (count, board)
        return board

    def lines_of(self, bot: str, game_names: Sequence[str]) -> dict[tuple[str, int], Line]:
        """A bot's published lines under each game's current rules, by (game, version)
        (versions without rated games have none). Fits are cached, so this costs a fit only
        when results arrived since the last one."""
        out: dict[tuple[str, int], Line] = {}
        for game in game_names:
            if game not in games.names():  # a game no longer served has no current rules
                continue
            for vl in self.published(game).lines:
                if vl.bot == bot:
                    out[(game, vl.version)] = vl.line
        return out

    def _fit(self, game: str, rules: str) -> Published:
        rows = self.store.rated_results(game, rules)
        if not rows:
            return Published(game, rules, (), (), 0, 0)
        packed = pack(
            Result(
                tuple(f"{name}@{version}" for name, version, _ in r.seats),
                tuple(rank for _, _, rank in r.seats),
                r.block,
            )
            for r in rows
        )
        result = fit(packed)
        cov = intervals.sandwich(packed, result)
        lines = intervals.table(packed, result, cov)
        versions: dict[str, list[int]] = {}
        for line in lines:
            name, version = split_version(line.bot)
            versions.setdefault(name, []).append(version)
        out = []
        for line in lines:
            name, version = split_version(line.bot)
            others = tuple(sorted(x for x in versions[name] if x != version))
            out.append(VersionLine(name, version, line, others))
        seats = tuple(intervals.seat_advantages(result, cov))
        return Published(game, rules, tuple(out), seats, len(rows), packed.blocks)
