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


def nearest_pair(
    bots: Sequence[BotRecord],
    ratings: Mapping[str, float],
    draw: Callable[[str], int],
    busy: Mapping[str, int],
    playing: Collection[frozenset[str]],
    owner_limit: int,
) -> tuple[BotRecord, BotRecord] | None:
    """The eligible pair of ``bots`` with the nearest ratings (a bot without one has
    :data:`elo.INITIAL_RATING`), in the order of ``bots``; None if no pair is eligible.

    ``draw`` gives each bot's seeded tie-break (a number in [0, 2**64)), ``busy`` each
    owner's open blocks and ``playing`` the tables being played. Bots of equal rating and
    draw are ordered as in ``bots``."""
    free = [i for i, b in enumerate(bots) if not (b.owner and busy.get(b.owner, 0) >= owner_limit)]
    n = len(free)
    if n < 2:
        return None
    index = np.asarray(free, dtype=np.int64)
    rating = np.fromiter((ratings.get(bots[i].name, elo.INITIAL_RATING) for i in free), float, n)
    drawn = np.fromiter((draw(bots[i].name) for i in free), np.uint64, n)
    order = np.lexsort((index, drawn, rating))  # by rating, then draw, then place in bots
    index, rating, drawn = index[order], rating[order], drawn[order]
    # Owners as numbers; each built-in bot a number of its own (it pairs with anyone).
    codes: dict[str, int] = {}
    owner = np.fromiter(
        (
            codes.setdefault(bots[i].owner, len(codes)) if bots[i].owner else -1 - k
            for k, i in enumerate(index.tolist())
        ),
        np.int64,
        n,
    )
    # partner[i]: the first position after i whose owner is not i's. The gaps only grow
    # further on, so it is i's nearest eligible partner, unless that table is being played.
    starts = np.flatnonzero(owner[1:] != owner[:-1]) + 1
    partner: Ints = np.append(starts, n)[np.searchsorted(starts, np.arange(n), side="right")]
    if playing:
        _step_past_tables(bots, index, owner, partner, playing)
    first = np.flatnonzero(partner < n)
    if not len(first):
        return None
    gap = rating[partner[first]] - rating[first]
    # The smallest gap; among equal gaps the lower bot that drew least (then the first).
    tied = first[gap == gap.min()]
    i = int(tied[np.argmin(drawn[tied])])
    a, b = sorted((int(index[i]), int(index[partner[i]])))
    return bots[a], bots[b]


def _step_past_tables(
    bots: Sequence[BotRecord],
    index: Ints,
    owner: Ints,
    partner: Ints,
    playing: Collection[frozenset[str]],
) -> None:
    """Correct ``partner`` where a bot's first partner would make a table being played:
    walk on from it, past runs of the bot's owner's bots (by ``partner`` itself) and past
    tables being played. Only the lower bot of a table being played can need it, so this is
    a few short walks."""
    n = len(index)
    position = {bots[int(i)].name: k for k, i in enumerate(index.tolist())}
    tables = [t for t in playing if len(t) == 2 and all(name in position for name in t)]
    original = partner.copy()
    for table in tables:
        p, q = sorted(position[name] for name in table)
        if original[p] != q:
            continue
        name = bots[int(index[p])].name
        j = q
        while j < n:
            if owner[j] == owner[p]:
                j = int(original[j])
            elif frozenset((name, bots[int(index[j])].name)) in playing:
                j += 1
            else:
                break
        partner[p] = j
