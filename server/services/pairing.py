"""The ladder's next table: the eligible pair of bots whose outcome is most uncertain.

Under Elo the expected score of a pair is nearest 1/2 exactly when their ratings are nearest,
so the most uncertain table is the eligible pair with the smallest rating gap. Sorted by
rating, the nearest eligible partner of each bot is among its first eligible successors, so
the pick costs a sort and one pass (O(n log n)) instead of a look at every pair (O(n^2)).

A pair is eligible when its two bots have different owners (built-in bots, owner ``""``,
pair with anyone), neither owner already has ``owner_limit`` open blocks, and the pair is
not a table being played. Ties are broken by a seeded draw per bot: among pairs with the
same gap, the pair whose lower bot (by rating, then draw) drew least. The pass is done on
arrays (numpy), so a pick among 10,000 bots takes milliseconds.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from server import elo
from server.storage import BotRecord

Ints = npt.NDArray[np.int64]
Draws = npt.NDArray[np.uint64]


class Pool:
    """The bots a pick chooses from, their ratings and owners as arrays: made once, it serves
    every pick until the bots or their ratings change."""

    def __init__(self, bots: Sequence[BotRecord], ratings: Mapping[str, float]) -> None:
        """``bots`` and their ratings (a bot without one has :data:`elo.INITIAL_RATING`)."""
        self.bots = list(bots)
        n = len(self.bots)
        self.rating = np.fromiter(
            (ratings.get(b.name, elo.INITIAL_RATING) for b in self.bots), float, n
        )
        #: Owners as numbers; each built-in bot a number of its own (it pairs with anyone).
        self.codes: dict[str, int] = {}
        self.owner: Ints = np.fromiter(
            (
                self.codes.setdefault(b.owner, len(self.codes)) if b.owner else -1 - k
                for k, b in enumerate(self.bots)
            ),
            np.int64,
            n,
        )
        self.place = {b.name: k for k, b in enumerate(self.bots)}

    def pick(
        self,
        draws: Draws,
        busy: Mapping[str, int],
        playing: Collection[frozenset[str]],
        owner_limit: int,
    ) -> tuple[BotRecord, BotRecord] | None:
        """The eligible pair with the nearest ratings, in the order of the pool's bots; None
        if no pair is eligible. ``draws[k]`` is bot k's seeded tie-break, ``busy`` each
        owner's open blocks and ``playing`` the tables being played. Bots of equal rating
        and draw are ordered as in the pool."""
        full = [self.codes[o] for o, k in busy.items() if k >= owner_limit and o in self.codes]
        free = np.flatnonzero(~np.isin(self.owner, full)) if full else np.arange(len(self.bots))
        n = len(free)
        if n < 2:
            return None
        order = np.lexsort((free, draws[free], self.rating[free]))  # rating, draw, place
        index: Ints = free[order]
        rating, drawn, owner = self.rating[index], draws[index], self.owner[index]
        # partner[i]: the first position after i whose owner is not i's. The gaps only grow
        # further on, so it is i's nearest eligible partner, unless that table is being played.
        starts = np.flatnonzero(owner[1:] != owner[:-1]) + 1
        partner: Ints = np.append(starts, n)[np.searchsorted(starts, np.arange(n), side="right")]
        if playing:
            self._step_past_tables(index, owner, partner, playing)
        first = np.flatnonzero(partner < n)
        if not len(first):
            return None
        gap = rating[partner[first]] - rating[first]
        # The smallest gap; among equal gaps the lower bot that drew least (then the first).
        tied = first[gap == gap.min()]
        i = int(tied[np.argmin(drawn[tied])])
        a, b = sorted((int(index[i]), int(index[partner[i]])))
        return self.bots[a], self.bots[b]

    def _step_past_tables(
        self, index: Ints, owner: Ints, partner: Ints, playing: Collection[frozenset[str]]
    ) -> None:
        """Correct ``partner`` where a bot's first partner would make a table being played:
        walk on from it, past runs of the bot's owner's bots (by ``partner`` itself) and past
        tables being played. Only the lower bot of a table being played can need it, so this
        is a few short walks."""
        n = len(index)
        position = np.full(len(self.bots), -1, dtype=np.int64)
        position[index] = np.arange(n)
        original = partner.copy()
        for table in playing:
            places = [self.place.get(name, -1) for name in table]
            if len(places) != 2 or min(places) < 0:
                continue  # not a table of two of the pool's bots
            p, q = sorted(int(position[k]) for k in places)
            if p < 0 or original[p] != q:
                continue  # a bot of it is not free, or it is not p's first partner
            name = self.bots[int(index[p])].name
            j = q
            while j < n:
                if owner[j] == owner[p]:
                    j = int(original[j])
                elif frozenset((name, self.bots[int(index[j])].name)) in playing:
                    j += 1
                else:
                    break
            partner[p] = j


def nearest_pair(
    bots: Sequence[BotRecord],
    ratings: Mapping[str, float],
    draw: Callable[[str], int],
    busy: Mapping[str, int],
    playing: Collection[frozenset[str]],
    owner_limit: int,
) -> tuple[BotRecord, BotRecord] | None:
    """:meth:`Pool.pick` for one pick, ``draw`` giving each bot's tie-break (a number in
    [0, 2**64))."""
    pool = Pool(bots, ratings)
    draws = np.fromiter((draw(b.name) for b in pool.bots), np.uint64, len(pool.bots))
    return pool.pick(draws, busy, playing, owner_limit)
