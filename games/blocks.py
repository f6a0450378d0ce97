"""Duplicate blocks: the shape every fair comparison of bots takes.

A block is one table played in each of its cyclic seat rotations, every rotation with the
same seed, so each bot meets the same shuffles and dice from every seat and the luck of the
draw cancels out. The server's tournaments, ladder and head-to-head tests plan their blocks
this way, and ``hamlet bot play`` does the same locally; both derive a block's seed from one
seed with :func:`block_seed`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from games.chance import derive_seed

#: Seeds are stored as signed 64-bit integers: derived seeds are masked to fit.
MAX_SEED = 2**63 - 1

T = TypeVar("T")


def block_seed(seed: int, index: int) -> int:
    """The seed of the ``index``-th block (table) planned from ``seed``."""
    return derive_seed(seed, "table", index) & MAX_SEED


def rotation(order: Sequence[T], r: int) -> tuple[T, ...]:
    """Rotation ``r`` of a table's seat order: ``order[r:] + order[:r]``."""
    if not order:
        return ()
    r %= len(order)
    return (*order[r:], *order[:r])


def seat_in_rotation(players: int, r: int, entry: int = 0) -> int:
    """The seat that ``order[entry]`` takes in rotation ``r`` of a ``players``-seat table."""
    return (entry - r) % players
