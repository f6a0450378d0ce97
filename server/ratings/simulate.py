"""Planted-strength results for testing and benchmarking the fit (numpy's seeded RNG only).

Outcomes are exact Plackett–Luce draws by the Gumbel trick: a table's finishing order is the
order of ``theta[bot] + delta[seat] + G`` with ``G`` standard Gumbel per seat. Duplicate blocks
play every rotation of one table; with ``shared_luck`` the rotations reuse the same ``G`` per
*seat* (what a shared seed does: the luck goes with the seat, each bot meets it once), so games
of a block are correlated while each game on its own is still exactly Plackett–Luce.

``groups`` splits the bots into that many sets that never meet (each block draws its table from
one set, in turn): the disconnected leaderboards the table must not order across.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from server.ratings.data import IntArray, Packed, Tables
from server.ratings.fit import ELO, FloatArray


@dataclass(frozen=True)
class Planted:
    """A simulated leaderboard and the truth behind it (Elo, ``names[0]`` is ``random``)."""

    packed: Packed
    strength_elo: FloatArray
    seat_elo: FloatArray


def simulate(
    bots: int,
    blocks: int,
    seats: int = 4,
    spread_elo: float = 200.0,
    seat_elo: tuple[float, ...] | None = None,
    shared_luck: float = 0.0,
    seed: int = 0,
    strengths: Sequence[float] | None = None,
    groups: int = 1,
) -> Planted:
    """``blocks`` duplicate blocks (every rotation of a random table of ``seats`` bots).

    ``shared_luck`` in [0, 1]: the chance that a game of a block reuses the block's seat luck.
    ``strengths`` (Elo) replaces the normal draw with ``spread_elo``. Bot 0 is named
    ``random`` so that the anchor applies; with ``groups`` > 1 it is in group 0 (the bots are
    dealt to groups in turn: bot ``i`` is in group ``i % groups``).
    """
    rng = np.random.default_rng(seed)
    drawn = rng.normal(0.0, spread_elo, bots)
    strength = drawn if strengths is None else np.asarray(strengths, np.float64)
    advantage = np.zeros(seats) if seat_elo is None else np.asarray((0.0, *seat_elo))
    members = [np.arange(g, bots, groups) for g in range(groups)]
    keys = rng.random((blocks, bots))
    tables = np.empty((blocks, seats), np.int64)
    for b in range(blocks):
        pool = members[b % groups]
        tables[b] = pool[np.argsort(keys[b, : len(pool)])[:seats]]
    rotations = [np.roll(tables, -r, axis=1) for r in range(seats)]
    bot_ix: IntArray = np.concatenate(rotations).astype(np.int64)
    block: IntArray = np.tile(np.arange(blocks, dtype=np.int64), seats)
    shared = rng.gumbel(size=(blocks, seats))[block]
    fresh = rng.gumbel(size=bot_ix.shape)
    reuse = rng.random(len(bot_ix)) < shared_luck
    luck = np.where(reuse[:, None], shared, fresh)
    utility = (strength[bot_ix] + advantage[None, :]) / ELO + luck
    order = np.argsort(-utility, axis=1)
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(seats)[None, :].repeat(len(order), 0), axis=1)
    names = ("random", *(f"bot{i:03d}" for i in range(1, bots)))
    games = np.bincount(bot_ix.ravel(), minlength=bots)
    places = np.bincount(bot_ix.ravel(), weights=(ranks + 1).ravel(), minlength=bots).astype(
        np.float64
    )
    packed = Packed(names, (Tables.of(seats, bot_ix, ranks, block),), blocks, games, places)
    return Planted(packed, strength - strength[0], advantage[1:])
