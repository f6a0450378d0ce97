"""An appendable packed design: the fit's integer arrays, grown as results arrive.

:func:`server.ratings.data.pack` builds the arrays of every result at once. A leaderboard that
is refitted as results arrive instead keeps a :class:`Design` and appends: new bots get the
next indices (a name index maps them), new duplicate blocks the next block numbers, and each
table size keeps growable arrays in the fit's own format (:class:`~server.ratings.data.Tables`),
so that a refit never packs the old results again.

What one append adds is a :class:`Batch` of integer arrays: the design that made it applies it
to itself, and a copy of the design in another process (the one that fits) applies the same
batch, so only the new results cross between processes, never a Python object per result.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from server.ratings.data import IntArray, Packed, Result, Tables, by_table_size

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Batch:
    """Results to append, integer-coded against a design holding ``names_before`` bots and
    ``results_before`` results (a batch from 0 and 0 holds a whole design)."""

    names_before: int
    results_before: int
    names: tuple[str, ...]  # bots first seen in this batch, in index order
    blocks: int  # the design's block count after the batch
    tables: tuple[Tables, ...]  # the new results, by table size
    games: IntArray  # games added, by bot (every bot after the batch)
    places: FloatArray  # 1-based places added, by bot

    @property
    def results(self) -> int:
        """How many results the batch adds."""
        return sum(len(t.block) for t in self.tables)


class _Rows:
    """A growable array of rows (doubling capacity): appends are amortized O(rows added),
    and a view of the rows so far is never written again."""

    def __init__(self, width: int, dtype: type[np.int64] | type[np.float64] = np.int64) -> None:
        self._data = np.zeros((16, width) if width else 16, dtype=dtype)
        self.size = 0

    def extend(self, rows: NDArray[Any]) -> None:
        need = self.size + len(rows)
        if need > len(self._data):
            grown = np.zeros(
                (max(need, 2 * len(self._data)), *self._data.shape[1:]), self._data.dtype
            )
            grown[: self.size] = self._data[: self.size]
            self._data = grown
        self._data[self.size : need] = rows
        self.size = need

    def view(self) -> NDArray[Any]:
        return self._data[: self.size]


class _TableRows:
    """One table size's results, in :class:`Tables` format."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.bots, self.seats, self.stage = _Rows(k), _Rows(k), _Rows(k)
        self.block = _Rows(0)

    def extend(self, t: Tables) -> None:
        self.bots.extend(t.bots)
        self.seats.extend(t.seats)
        self.stage.extend(t.stage)
        self.block.extend(t.block)

    def tables(self) -> Tables:
        return Tables(
            self.k,
            np.asarray(self.bots.view(), np.int64),
            np.asarray(self.seats.view(), np.int64),
            np.asarray(self.stage.view(), np.int64),
            np.asarray(self.block.view(), np.int64),
        )


class Design:
    """Every result of one leaderboard so far, packed, growing by appends."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._index: dict[str, int] = {}
        self._blocks: dict[str, int] = {}
        self.blocks = 0
        self.results = 0
        self._tables: dict[int, _TableRows] = {}
        self._games = _Rows(0)
        self._places = _Rows(0, np.float64)

    def append(self, results: Iterable[Result]) -> Batch:
        """Code ``results`` against this design, append them, and return the batch (for a
        copy of the design elsewhere). Raises ValueError on a malformed result, before any
        change."""
        rows = list(results)
        for i, r in enumerate(rows):
            if len(r.bots) != len(r.ranks) or len(r.bots) < 2:
                raise ValueError(f"result {i}: {len(r.bots)} bots and {len(r.ranks)} ranks")
        index = dict(self._index)
        new_names: list[str] = []
        blocks = dict(self._blocks)
        coded = []
        for i, r in enumerate(rows):
            for b in r.bots:
                if b not in index:
                    index[b] = len(index)
                    new_names.append(b)
            blk = blocks.setdefault(r.block or f"#{self.results + i}", len(blocks))
            coded.append(([index[b] for b in r.bots], list(r.ranks), blk))
        tables, games, places = by_table_size(coded, len(index))
        batch = Batch(
            len(self.names),
            self.results,
            tuple(new_names),
            len(blocks),
            tuple(tables),
            games,
            places,
        )
        self._blocks = blocks
        self.apply(batch)
        return batch

    def apply(self, batch: Batch) -> None:
        """Append a batch made against a design equal to this one (ValueError otherwise)."""
        if (batch.names_before, batch.results_before) != (len(self.names), self.results):
            raise ValueError(
                f"a batch for {batch.names_before} bots and {batch.results_before} results "
                f"does not apply to a design of {len(self.names)} bots and {self.results}"
            )
        for name in batch.names:
            self._index[name] = len(self.names)
            self.names.append(name)
        self._games.extend(np.zeros(len(batch.names), np.int64))
        self._places.extend(np.zeros(len(batch.names), np.float64))
        self._games.view()[:] += batch.games
        self._places.view()[:] += batch.places
        for t in batch.tables:
            self._tables.setdefault(t.k, _TableRows(t.k)).extend(t)
        self.blocks = batch.blocks
        self.results += batch.results

    def everything(self) -> Batch:
        """The whole design as one batch (for a copy that has nothing, or lost its state)."""
        return Batch(
            0,
            0,
            tuple(self.names),
            self.blocks,
            tuple(rows.tables() for _, rows in sorted(self._tables.items())),
            np.array(self._games.view(), np.int64),
            np.array(self._places.view(), np.float64),
        )

    def packed(self) -> Packed:
        """The design as the fit reads it (views: later appends never change them)."""
        return Packed(
            tuple(self.names),
            tuple(rows.tables() for _, rows in sorted(self._tables.items())),
            self.blocks,
            np.array(self._games.view(), np.int64),
            np.array(self._places.view(), np.float64),
        )
