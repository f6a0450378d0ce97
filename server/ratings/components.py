"""Which comparisons the results support: groups of bots that met, and bots never beaten.

- **Groups**: the connected components of the comparison graph (two bots are linked when they
  sat at one table). Ratings in different groups share no game, so the gap between groups would
  come only from the fit's prior: each group gets its own anchor and no order across groups is
  ever claimed.
- **Open sides**: a bot that never finished behind or level with another seat has no finite
  maximum-likelihood strength (more is always better), and one that never finished ahead of or
  level with another has none below. Its interval is open on that side.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from server.ratings.data import IntArray, Packed


@dataclass(frozen=True)
class Groups:
    """``of[i]``: the group of bot ``i``; group 0 holds ``anchor`` (when it played), else it
    is the largest group; the others follow by size, then by their first bot's name."""

    of: IntArray
    count: int

    def members(self, group: int) -> IntArray:
        """The bots of one group (indices, ascending)."""
        found: IntArray = np.flatnonzero(self.of == group)
        return found


def _find(parent: IntArray, i: int) -> int:
    root = i
    while parent[root] != root:
        root = int(parent[root])
    while parent[i] != root:  # path compression
        parent[i], i = root, int(parent[i])
    return root


def groups(packed: Packed, anchor: int | None = None) -> Groups:
    """The connected components of the comparison graph.

    Each game links its seats to its first seat, so the work is one union per seat (a Python
    loop only over the distinct links, which are far fewer than games on a real leaderboard).
    """
    n = len(packed.names)
    parent: IntArray = np.arange(n, dtype=np.int64)
    links: set[tuple[int, int]] = set()
    for t in packed.tables:
        first = t.bots[:, :1]
        pairs = np.stack([np.broadcast_to(first, t.bots.shape), t.bots], axis=-1).reshape(-1, 2)
        links.update(map(tuple, np.unique(pairs, axis=0).tolist()))
    for a, b in links:
        ra, rb = _find(parent, a), _find(parent, b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    roots = np.array([_find(parent, i) for i in range(n)], dtype=np.int64)
    distinct = sorted(set(roots.tolist()), key=lambda r: (-int(np.sum(roots == r)), r))
    if anchor is not None:
        distinct.remove(int(roots[anchor]))
        distinct.insert(0, int(roots[anchor]))
    number = {r: g for g, r in enumerate(distinct)}
    of: IntArray = np.array([number[int(r)] for r in roots], dtype=np.int64)
    return Groups(of, len(distinct))


@dataclass(frozen=True)
class Sides:
    """Per bot: ``beaten[i]`` some seat finished ahead of or level with it at least once;
    ``beat[i]`` it finished ahead of or level with some seat at least once."""

    beaten: NDArray[np.bool_]
    beat: NDArray[np.bool_]

    @property
    def open_high(self) -> NDArray[np.bool_]:
        """Never beaten: no upper bound on the strength (the interval is ``>= low``)."""
        return ~self.beaten

    @property
    def open_low(self) -> NDArray[np.bool_]:
        """Never beat anyone: no lower bound (the interval is ``<= high``)."""
        return ~self.beat


def sides(packed: Packed) -> Sides:
    """Who was ever beaten and who ever beat someone (a tie counts both ways: it bounds the
    strength on both sides).

    Seats are in finishing order, ``stage`` the size of the tied group starting there (0 inside
    one): a seat was beaten unless it won alone, it beat someone unless it finished last alone.
    """
    n = len(packed.names)
    beaten = np.zeros(n, dtype=bool)
    beat = np.zeros(n, dtype=bool)
    for t in packed.tables:
        beaten[t.bots[:, 1:]] = True
        beaten[t.bots[t.stage[:, 0] > 1, 0]] = True  # the winner tied for first
        beat[t.bots[:, :-1]] = True
        beat[t.bots[t.stage[:, -1] == 0, -1]] = True  # the last seat tied for last
    return Sides(beaten, beat)
