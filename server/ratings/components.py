"""Which comparisons the results support: groups of bots that met, and sets never beaten.

- **Groups**: the connected components of the comparison graph (two bots are linked when they
  sat at one table). Ratings in different groups share no game, so the gap between groups would
  come only from the fit's prior: each group gets its own anchor and no order across groups is
  ever claimed.
- **Open sets**: in the directed graph "``v`` finished ahead of or level with ``u``" (``u -> v``),
  a group whose graph is not strongly connected has no finite maximum-likelihood strengths:
  a component that the main one only ever finished behind can be made stronger without end
  (more is always better), one it only ever finished ahead of weaker. Their lines are open
  above (below). A lone bot that won every game is the common case; two bots that only ever
  lost to each other are the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from scipy.sparse import csgraph

from server.ratings.data import IntArray, Packed


@dataclass(frozen=True)
class Groups:
    """``of[i]``: the group of bot ``i``; group 0 holds ``anchor`` (when it played), else it
    is the largest group; the others follow by size, then by their first bot's index."""

    of: IntArray
    count: int

    def members(self, group: int) -> IntArray:
        """The bots of one group (indices, ascending)."""
        found: IntArray = np.flatnonzero(self.of == group)
        return found


def _graph(n: int, tail: list[IntArray], head: list[IntArray]) -> sparse.csr_matrix:
    rows = np.concatenate(tail) if tail else np.zeros(0, np.int64)
    cols = np.concatenate(head) if head else np.zeros(0, np.int64)
    return sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))


def groups(packed: Packed, anchor: int | None = None) -> Groups:
    """The connected components of the comparison graph (each game links its seats to its
    first one: ``k - 1`` edges a game)."""
    n = len(packed.names)
    tail = [t.bots[:, 1:].ravel() for t in packed.tables]
    head = [np.repeat(t.bots[:, 0], t.k - 1) for t in packed.tables]
    count, labels = csgraph.connected_components(_graph(n, tail, head), directed=False)
    sizes = np.bincount(labels, minlength=count)
    first = np.full(count, n)
    np.minimum.at(first, labels, np.arange(n))
    order = sorted(range(count), key=lambda c: (-int(sizes[c]), int(first[c])))
    if anchor is not None:
        order.remove(int(labels[anchor]))
        order.insert(0, int(labels[anchor]))
    number = np.empty(count, np.int64)
    number[order] = np.arange(count)
    return Groups(number[labels].astype(np.int64), count)


@dataclass(frozen=True)
class OpenSet:
    """Bots whose strengths are unbounded on one side of the rest of their group: ``members``
    (one strongly connected component) is above the group's main component (``upper``) or
    below it; ``moved`` are the bots that move with it in the test behind its bound (it and
    every bot above it, or below it): nobody outside ``moved`` ever finished ahead of (or,
    below, behind) one of them."""

    members: IntArray
    moved: IntArray
    upper: bool


@dataclass(frozen=True)
class Sides:
    """Per bot: ``open_high[i]`` no upper bound on its strength (its line is ``>= low``),
    ``open_low[i]`` no lower bound (both: no bound at all, for a component the main one is
    neither above nor below); and the sets behind them."""

    open_high: NDArray[np.bool_]
    open_low: NDArray[np.bool_]
    sets: tuple[OpenSet, ...]


def sides(packed: Packed, grouping: Groups | None = None, anchor: int | None = None) -> Sides:
    """The open sets of each group: its strongly connected components of the "finished ahead
    of or level with" graph other than the main one (the largest; on a tie, the anchor's or
    the first), placed by reachability from the main one.

    Seats are in finishing order; each seat gets an edge to the one just ahead of it, and both
    ways inside a tie (``stage`` is 0 within a tied group): reachability is then the same as
    with an edge for every pair of a game.
    """
    n = len(packed.names)
    grouping = grouping or groups(packed)
    tail, head = [], []
    for t in packed.tables:
        tail.append(t.bots[:, 1:].ravel())
        head.append(t.bots[:, :-1].ravel())
        tied = t.stage[:, 1:] == 0
        tail.append(t.bots[:, :-1][tied])
        head.append(t.bots[:, 1:][tied])
    graph = _graph(n, tail, head).tocoo()
    count, scc = csgraph.connected_components(graph.tocsr(), directed=True, connection="strong")
    across = scc[graph.row] != scc[graph.col]
    dag = sparse.csr_matrix(
        (np.ones(int(across.sum())), (scc[graph.row[across]], scc[graph.col[across]])),
        shape=(count, count),
    )
    open_high = np.zeros(n, bool)
    open_low = np.zeros(n, bool)
    sets = []
    for g in range(grouping.count):
        bots = grouping.members(g)
        comps = np.unique(scc[bots])
        if len(comps) == 1:
            continue
        sizes = {int(c): int(np.sum(scc[bots] == c)) for c in comps}
        main = max(
            sizes,
            key=lambda c: (
                sizes[c],
                anchor is not None and scc[anchor] == c,
                -int(bots[scc[bots] == c][0]),
            ),
        )
        above = set(csgraph.breadth_first_order(dag, main, directed=True)[0].tolist())
        below = set(csgraph.breadth_first_order(dag.T.tocsr(), main, directed=True)[0].tolist())
        for c in map(int, comps):
            if c == main:
                continue
            members = np.flatnonzero(scc == c)
            if c in above or c in below:
                upper = c in above
                reach = csgraph.breadth_first_order(dag if upper else dag.T.tocsr(), c)[0]
                moved = np.flatnonzero(np.isin(scc, reach))
                (open_high if upper else open_low)[members] = True
                sets.append(OpenSet(members, moved, upper))
            else:  # neither above nor below the main component: no bound either way
                open_high[members] = open_low[members] = True
    return Sides(open_high, open_low, tuple(sets))
