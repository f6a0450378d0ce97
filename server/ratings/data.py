"""Results packed for the fit: one array block per table size.

A result is a finishing order of one table (bots by seat, competition ranks by seat, 0 best,
ties share a rank) and the duplicate block it belongs to (the games that share a seed). The fit
only ever sees integer arrays, so its cost does not depend on Python objects per game.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

IntArray = NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class Result:
    """One finished table."""

    bots: tuple[str, ...]  # by seat
    ranks: tuple[int, ...]  # by seat, 0 best, ties share a rank
    block: str = ""  # games sharing a seed (rotations of one table); "" = its own block


@dataclass(frozen=True)
class Tables:
    """All results of one table size ``k``, each game's seats in finishing order.

    ``bots[g, i]`` and ``seats[g, i]`` are the bot and the seat that finished ``i``-th in game
    ``g`` (ties in seat order); ``stage[g, i]`` is the size of the tied group that starts at
    position ``i``, 0 inside a group; ``block[g]`` the game's duplicate block.
    """

    k: int
    bots: IntArray
    seats: IntArray
    stage: IntArray
    block: IntArray

    @classmethod
    def of(cls, k: int, bots: IntArray, ranks: IntArray, block: IntArray) -> Tables:
        """From bots and competition ranks by seat."""
        order = np.argsort(ranks, axis=1, kind="stable")
        ranked = np.take_along_axis(ranks, order, axis=1)
        starts = np.ones_like(ranked, dtype=bool)
        starts[:, 1:] = ranked[:, 1:] != ranked[:, :-1]
        # group size at each start: distance to the next start (or the end)
        position = np.arange(k)[None, :].repeat(len(ranks), axis=0)
        next_start = np.full_like(position, k)
        for i in range(k - 2, -1, -1):
            next_start[:, i] = np.where(starts[:, i + 1], i + 1, next_start[:, i + 1])
        stage = np.where(starts, next_start - position, 0)
        return cls(k, np.take_along_axis(bots, order, axis=1), order, stage, block)


@dataclass(frozen=True)
class Packed:
    """Every result, by table size, with the bot and block names behind the indices."""

    names: tuple[str, ...]
    tables: tuple[Tables, ...]
    blocks: int
    games: IntArray = field(repr=False)  # games played, by bot
    places: NDArray[np.float64] = field(repr=False)  # sum of 1-based places, by bot

    def index(self, name: str) -> int:
        """The index of a bot (ValueError if absent)."""
        return self.names.index(name)


def pack(results: Iterable[Result], names: Sequence[str] | None = None) -> Packed:
    """Pack results; bots are indexed in ``names`` order (default: sorted by name), so the
    fit does not depend on the order of the results."""
    rows = list(results)
    bot_names = (
        tuple(names) if names is not None else tuple(sorted({b for r in rows for b in r.bots}))
    )
    bot_index = {n: i for i, n in enumerate(bot_names)}
    block_index: dict[str, int] = {}
    coded = []
    for i, r in enumerate(rows):
        if len(r.bots) != len(r.ranks) or len(r.bots) < 2:
            raise ValueError(f"result {i}: {len(r.bots)} bots and {len(r.ranks)} ranks")
        blk = block_index.setdefault(r.block or f"#{i}", len(block_index))
        coded.append(([bot_index[b] for b in r.bots], list(r.ranks), blk))
    tables, games, places = by_table_size(coded, len(bot_names))
    return Packed(bot_names, tables, len(block_index), games, places)


def by_table_size(
    coded: Iterable[tuple[list[int], list[int], int]], n: int
) -> tuple[tuple[Tables, ...], IntArray, NDArray[np.float64]]:
    """Results coded as (bot indices by seat, ranks by seat, block index), grouped into one
    :class:`Tables` per table size (ascending), with the games and summed 1-based places of
    each of the ``n`` bots."""
    by_k: dict[int, tuple[list[list[int]], list[list[int]], list[int]]] = {}
    for seated_row, ranks_row, blk in coded:
        bots, ranks, blocks = by_k.setdefault(len(seated_row), ([], [], []))
        bots.append(seated_row)
        ranks.append(ranks_row)
        blocks.append(blk)
    games = np.zeros(n, np.int64)
    places = np.zeros(n, np.float64)
    tables = []
    for k, (b, rk, bl) in sorted(by_k.items()):
        seated: IntArray = np.asarray(b, np.int64)
        placed: IntArray = np.asarray(rk, np.int64)
        games += np.bincount(seated.ravel(), minlength=n)
        places += np.bincount(seated.ravel(), weights=(placed + 1).ravel(), minlength=n)
        tables.append(Tables.of(k, seated, placed, np.asarray(bl, np.int64)))
    return tuple(tables), games, places
