"""Published leaderboards: the rating fit over a game's rated results, refitted in the
background when results arrive, shown per bot version or per bot (its latest version)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np

import games
from server.ratings import intervals
from server.ratings.fitter import Key
from server.ratings.intervals import Line, SeatAdvantage
from server.services import validation as v
from server.services.refit import RefitService, Snapshot
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
    #: :meth:`latest_only`, made once per fit (None: made on each call).
    latest: tuple[VersionLine, ...] | None = None

    def latest_only(self) -> tuple[VersionLine, ...]:
        """Each bot's line at its latest rated version, rank ranges among these lines."""
        return self.latest if self.latest is not None else self.latest_lines()

    def latest_lines(self) -> tuple[VersionLine, ...]:
        """:meth:`latest_only`, computed: O(lines^2) for the rank ranges.

        Per-line ranges compare the shown intervals within each group; joint ranges count the
        orders the full table claimed among the shown lines (claims that hold for every pair of
        versions at once still hold for any subset of them).
        """
        latest: dict[str, int] = {}
        for vl in self.lines:
            latest[vl.bot] = max(latest.get(vl.bot, 0), vl.version)
        if len(latest) == len(self.lines):
            # one version a bot: the view is the table itself, its ranges are the table's
            # (per group, as here). A fit's form is made on the refit thread, and this saves
            # that thread (and the readers waiting on the interpreter lock) O(lines^2) work.
            return self.lines
        return self.subset_lines(latest)

    def subset_lines(self, latest: dict[str, int]) -> tuple[VersionLine, ...]:
        """The lines of the versions in ``latest`` (bot name -> version), rank ranges among
        these lines (see :meth:`latest_lines`)."""
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
    """Serves each (game, rules version)'s last published fit; the fits are made in the
    background by a :class:`~server.services.refit.RefitService` (see there)."""

    def __init__(
        self,
        store: Store,
        on_fit: Callable[[str, float, int], None] | None = None,
        refits: RefitService | None = None,
    ) -> None:
        self.store = store
        if refits is None:
            refits = RefitService(store, on_fit=on_fit)
            refits.start()
        #: The background refits (the recorder calls ``refits.touch()`` after each result).
        self.refits = refits
        self._lock = threading.Lock()
        self._boards: dict[Key, tuple[Snapshot, Published]] = {}
        refits.on_publish.append(self._board)  # made on the refit thread, not by a reader

    def published(self, game: str, rules_version: str = "") -> Published:
        """The last fitted leaderboard (the engine's current rules when ``rules_version`` is
        empty). O(1): the first read of a leaderboard waits for its first fit (boundedly);
        later reads never wait nor fit."""
        spec = v.game_spec(game)
        rules = rules_version or spec.rules_version
        v.identifier("rules_version", rules)
        key = (game, rules)
        board = self._board(key, self.refits.snapshot(key))
        if not board.matches and rules != spec.rules_version:
            # Older rules without results stay without: followed, any name a caller makes up
            # would be polled for ever.
            self.refits.forget(key)
            with self._lock:
                self._boards.pop(key, None)
        recorded = self.refits.recorded(key)
        return (
            board
            if recorded == board.results_recorded
            else replace(board, results_recorded=recorded)
        )

    def anchored(self, game: str) -> bool | None:
        """Whether the game's current leaderboard is anchored on ``random`` (None before its
        first fit); never waits for a fit."""
        key = (game, v.game_spec(game).rules_version)
        snapshot = self.refits.latest(key)
        if snapshot is None:
            return None
        return any(vl.line.anchor for vl in self._board(key, snapshot).lines)

    def _board(self, key: Key, snapshot: Snapshot) -> Published:
        """The published form of a fit, made once per fit."""
        with self._lock:
            cached = self._boards.get(key)
        if cached is None or cached[0] is not snapshot:
            cached = (snapshot, _published(*key, snapshot))
            with self._lock:
                self._boards[key] = cached
        return cached[1]

    def rebuild(self, game: str) -> None:
        """Read a game's result log from its start again (``rebuild-ratings``); the current
        fits are served until the rebuilt ones are published."""
        self.refits.reset(game)

    def lines_of(self, bot: str, game_names: Sequence[str]) -> dict[tuple[str, int], Line]:
        """A bot's published lines under each game's current rules, by (game, version)
        (versions without rated games have none): the published fits, never a new one."""
        out: dict[tuple[str, int], Line] = {}
        for game in game_names:
            if game not in games.names():  # a game no longer served has no current rules
                continue
            for vl in self.published(game).lines:
                if vl.bot == bot:
                    out[(game, vl.version)] = vl.line
        return out


def _published(game: str, rules: str, snapshot: Snapshot) -> Published:
    """A fit as the published leaderboard: lines per bot version, best first."""
    fitted = snapshot.fitted
    versions: dict[str, list[int]] = {}
    for line in fitted.lines:
        name, version = split_version(line.bot)
        versions.setdefault(name, []).append(version)
    out = []
    for line in fitted.lines:
        name, version = split_version(line.bot)
        others = tuple(sorted(x for x in versions[name] if x != version))
        out.append(VersionLine(name, version, line, others))
    board = Published(
        game,
        rules,
        tuple(out),
        fitted.seats,
        fitted.matches,
        fitted.blocks,
        fitted_at=snapshot.fitted_at,
        results_recorded=fitted.matches,
    )
    # once per fit, not per read: the rank ranges of the default view cost O(lines^2)
    return replace(board, latest=board.latest_lines())
