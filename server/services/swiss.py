"""Swiss pairing for tables of any size: bots of similar score meet, no table twice when it can
be avoided, never two bots of one owner at a rated table when it can be avoided, and byes (when
the field does not divide into tables) go to those who had the fewest.

Pure: the caller gives the order (best first, ties already broken by the tournament's seed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def pair(
    order: Sequence[int],
    per_table: int,
    played: set[frozenset[int]],
    owners: Sequence[str] | None = None,
    byes: Mapping[int, int] | None = None,
) -> list[tuple[int, ...]]:
    """Tables (entry indices, best first) for one round.

    ``played`` holds the tables already played (as sets of entries); ``owners`` by entry
    ("" for the system's bots) forbids same-owner tables where possible; ``byes`` counts the
    rounds each entry sat out.
    """
    tables_count = len(order) // per_table
    seated = _sit_out(order, len(order) - tables_count * per_table, byes or {})
    free = [e for e in order if e in seated]
    tables: list[tuple[int, ...]] = []
    while free:
        table = [free.pop(0)]
        while len(table) < per_table:
            pick = next(
                (e for e in free if _fits(table, e, per_table, played, owners)),
                next((e for e in free if _fits(table, e, per_table, set(), owners)), free[0]),
            )
            free.remove(pick)
            table.append(pick)
        tables.append(tuple(table))
    return tables


def _sit_out(order: Sequence[int], count: int, byes: Mapping[int, int]) -> set[int]:
    """Everyone but ``count`` entries: the lowest placed among those with the fewest byes."""
    if count <= 0:
        return set(order)
    by_need = sorted(
        range(len(order)), key=lambda pos: (byes.get(order[pos], 0), -pos)
    )  # fewest byes first, then the lowest placed
    out = {order[pos] for pos in by_need[:count]}
    return set(order) - out


def _fits(
    table: list[int],
    entry: int,
    per_table: int,
    played: set[frozenset[int]],
    owners: Sequence[str] | None,
) -> bool:
    if owners is not None and owners[entry] and owners[entry] in {owners[e] for e in table}:
        return False
    return not (len(table) + 1 == per_table and frozenset((*table, entry)) in played)
