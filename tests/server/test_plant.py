"""Planting results in bulk leaves every table as recording them one by one does."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import MetaData, select

from server.storage import (
    DecisionRecord,
    Outcome,
    SeatOutcome,
    SeatTraceRecord,
    SqlStore,
    TracedStep,
    open_store,
)
from tests.server import planted

RULES = "toy-1"
Tables = list[tuple[tuple[int, ...], tuple[int, ...]]]


def outcomes(played: Tables, tid: str) -> list[tuple[str, Outcome, str]]:
    """A report per table: plain ones, and now and then decisions, a trace, a forfeit, an
    unrated one (ties come from the tables)."""
    out = []
    for i, (_, ranks) in enumerate(played):
        seats = [SeatOutcome(10 - r, r) for r in ranks]
        decisions: tuple[DecisionRecord, ...] = ()
        traces: tuple[SeatTraceRecord, ...] = ()
        if i % 7 == 1:
            worst = max(range(len(ranks)), key=lambda s: ranks[s])
            seats[worst] = SeatOutcome(0, ranks[worst], "timeout", "too slow", 3)
        if i % 5 == 2:
            decisions = tuple(
                DecisionRecord(d, d % len(ranks), 3, f'{{"a": {d}}}', f"a{d}", 0.01 * d, d == 2)
                for d in range(4)
            )
            traces = (SeatTraceRecord(0, (TracedStep(1, 12, "", ""),), "tail", 0),)
        unrated = i % 11 == 4
        outcome = Outcome(tuple(seats), decisions, 0.25 * i, unrated, "full", traces)
        out.append((f"{tid}.m{i}", outcome, f"h-{tid}.m{i}"))
    return out


def one_by_one(store: SqlStore, reports: Sequence[tuple[str, Outcome, str]]) -> None:
    """As workers' reports are recorded: queued, claimed, finalized, in chunks of 4."""
    for at in range(0, len(reports), 4):
        part = reports[at : at + 4]
        ids = [mid for mid, _, _ in part]
        store.mark_queued(ids, planted.NOW)
        lease = planted.NOW + timedelta(days=3650)
        store.claim_matches([(m, lease, d) for m, _, d in part], "w", "planter", planted.NOW)
        assert all(store.finalize_matches(list(part), planted.NOW))


def dump(store: SqlStore) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows, sorted (creation times aside: the two stores were set up a moment
    apart, and recording writes none)."""
    meta = MetaData()
    meta.reflect(store.engine)
    out = {}
    with store.engine.connect() as conn:
        for name, table in sorted(meta.tables.items()):
            columns = [c for c in table.columns if c.name != "created_at"]
            out[name] = sorted((tuple(row) for row in conn.execute(select(*columns))), key=repr)
    return out


def setup(path: Path) -> tuple[SqlStore, list[tuple[str, Tables]]]:
    """A store with two running events (2 and 4 seats; the second also unrated reports)."""
    store = open_store(f"sqlite:///{path}")
    field = planted.bots(store, "toy", RULES, [f"b{i}" for i in range(9)], seed=3)
    events = [
        ("two", planted.tables(field, 30, 2, seed=1)),
        ("four", planted.tables(field, 25, 4, seed=2)),
    ]
    for tid, played in events:
        planted.create(store, field, tid, played, per_block=2)
    return store, events


@pytest.mark.parametrize("chunk", [1, 7, 100])
def test_planted_tables_equal_one_by_one(tmp_path: Path, chunk: int) -> None:
    slow, events = setup(tmp_path / "slow.db")
    fast, _ = setup(tmp_path / "fast.db")
    reports = [r for tid, played in events for r in outcomes(played, tid)]
    # interleaved, as results of two events arrive
    reports = reports[::2] + reports[1::2]
    one_by_one(slow, reports)
    for at in range(0, len(reports), chunk):
        fast.plant_results(reports[at : at + chunk], "w", "planter", planted.NOW)
    before, after = dump(slow), dump(fast)
    assert before.keys() == after.keys()
    for name in before:
        assert before[name] == after[name], name
    # every table the recording touches is compared, not just present
    for name in ("matches", "match_seats", "standings", "results", "ratings", "decisions"):
        assert before[name], name
    for tid, _ in events:  # the last result finished each event, in both
        record = fast.get_tournament(tid)
        assert record is not None and record.status.value == "finished"
    slow.close()
    fast.close()


def test_plant_refuses_a_final_match(tmp_path: Path) -> None:
    store, events = setup(tmp_path / "h.db")
    tid, played = events[0]
    reports = outcomes(played, tid)
    store.plant_results(reports[:3], "w", "planter", planted.NOW)
    with pytest.raises(ValueError, match="not open"):
        store.plant_results(reports[2:5], "w", "planter", planted.NOW)
    # nothing of the refused chunk was written
    assert store.get_match(reports[3][0]) is not None
    assert store.get_match(reports[3][0]).status.value == "pending"  # type: ignore[union-attr]
    store.close()
