"""The ladder's next table: the eligible pair of bots whose outcome is most uncertain.

Under Elo the expected score of a pair is nearest 1/2 exactly when their ratings are nearest,
so the most uncertain table is the eligible pair with the smallest rating gap. Sorted by
rating, the nearest eligible partner of each bot is among its first eligible successors, so
the pick costs a sort and one pass (O(n log n)) instead of a look at every pair (O(n^2)).

A pair is eligible when its two bots have different owners (built-in bots, owner ``""``,
pair with anyone), neither owner already has ``owner_limit`` open blocks, and the pair is
not a table being played. Ties are broken by a seeded draw per bot: among pairs with the
same gap, the pair whose lower bot (by rating, then draw) drew least; then the partner
nearest it in that order.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from server import elo
from server.storage import BotRecord

#: A pair's place in the order of pick: (rating gap, the lower bot's draw, then positions).
PairKey = tuple[float, int, int, int]


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

    ``draw`` gives each bot's seeded tie-break, ``busy`` each owner's open blocks and
    ``playing`` the tables being played."""
    free = [i for i, b in enumerate(bots) if not (b.owner and busy.get(b.owner, 0) >= owner_limit)]
    rating = {i: ratings.get(bots[i].name, elo.INITIAL_RATING) for i in free}
    drawn = {i: draw(bots[i].name) for i in free}
    order = sorted(free, key=lambda i: (rating[i], drawn[i], bots[i].name))
    owners = [bots[i].owner for i in order]
    n = len(order)
    # other[j]: the first position after j whose owner is not bot j's (a built-in's next).
    other = [n] * n
    for j in range(n - 2, -1, -1):
        same = owners[j] and owners[j + 1] == owners[j]
        other[j] = other[j + 1] if same else j + 1
    names = [bots[i].name for i in order]
    best: tuple[PairKey, int, int] | None = None
    # The first position after i whose bot may share a table with i's is i's nearest
    # eligible partner (the gaps only grow further on). Each step skips a run of i's owner's
    # bots or one table being played (a table only from its lower bot): all of one pick's
    # steps are at most 2n plus two per table being played.
    for i in range(n - 1):
        j = i + 1
        owner = owners[i]
        while j < n:
            if owner and owners[j] == owner:
                j = other[j]
            elif playing and frozenset((names[i], names[j])) in playing:
                j += 1
            else:
                break
        if j == n:
            continue
        key = (rating[order[j]] - rating[order[i]], drawn[order[i]], i, j)
        if best is None or key < best[0]:
            best = (key, order[i], order[j])
    if best is None:
        return None
    a, b = sorted(best[1:])
    return bots[a], bots[b]
