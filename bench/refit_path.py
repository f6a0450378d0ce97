"""The leaderboard service's whole refit path through the store, per stage (used by
``bench/ratings.py``).

Results are recorded through the store's own API (create, queue, claim, finalize) into SQLite
in a temporary directory: 200 bots, three quarters of the results at two-seat tables (blocks of
two rotations), a quarter at four seats (blocks of four). Then, in CPU seconds of this process:

- ``cold``: what a read did on every new result before the fit left the request path:
  ``rated_results`` (SQL) -> ``pack`` -> ``fit`` -> ``sandwich`` -> ``table``;
- ``first``: the background refit's first fit: the log's tail from 0 appended to a design,
  fitted cold;
- ``+100``: its refit after 100 more results: the tail since its last read, appended, the fit
  warm-started from the last solution.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import event

import games
from server.ratings import intervals
from server.ratings.data import pack
from server.ratings.design import Design
from server.ratings.fit import fit, warm_start
from server.ratings.fitter import TOLERANCE
from server.services.refit import as_result
from server.storage import SqlStore, open_store
from tests.server import planted

GAME = "village"
BOTS = 200
T = TypeVar("T")


def quick_store(path: Path) -> SqlStore:
    """A store on a SQLite file without an fsync per commit (seeding only)."""
    store = open_store(f"sqlite:///{path}")
    store.engine.dispose()

    @event.listens_for(store.engine, "connect")
    def _quick(conn: Any, _record: Any) -> None:
        cur = conn.cursor()
        cur.execute("PRAGMA synchronous=OFF")
        cur.close()

    return store


def seed(store: SqlStore, field: planted.Field, results: int, first: int, prefix: str) -> None:
    """Record ``results`` results (tournaments of up to 5,000) starting at ``first``."""
    done = 0
    while done < results:
        n = min(5_000, results - done)
        k, per_block = (4, 4) if (first + done) // 5_000 % 4 == 3 else (2, 2)
        tables = planted.tables(field, n, k, seed=first + done)
        planted.record(store, field, f"{prefix}{first + done}", tables, per_block=per_block)
        done += n


class Stages:
    """CPU seconds per stage of one refit."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def __call__(self, name: str, step: Callable[[], T]) -> T:
        started = time.process_time()
        out = step()
        self.seconds[name] = self.seconds.get(name, 0.0) + time.process_time() - started
        return out

    def line(self, label: str, results: int) -> str:
        s = self.seconds
        total = sum(s.values())
        return (
            f"{results:>9,} {label:<6}{s.get('sql', 0):>8.3f}{s.get('pack', 0):>8.3f}"
            f"{s.get('newton', 0):>8.3f}{s.get('intervals', 0):>10.3f}{total:>8.3f}"
        )


def cold(store: SqlStore, rules: str) -> Stages:
    """The old read path, from scratch."""
    st = Stages()
    rows = st("sql", lambda: store.rated_results(GAME, rules))
    packed = st("pack", lambda: pack(as_result(r) for r in rows))
    result = st("newton", lambda: fit(packed))
    st("intervals", lambda: intervals.table(packed, result, intervals.sandwich(packed, result)))
    return st


def refit(
    store: SqlStore, rules: str, design: Design, seq: int, last: tuple[Any, ...] | None
) -> tuple[Stages, int, tuple[Any, ...]]:
    """One background refit: the log's tail, appended, fitted (warm when ``last`` is given)."""
    st = Stages()
    tail = st("sql", lambda: store.rated_results_after(GAME, rules, seq))
    st("pack", lambda: design.append(as_result(r) for r in tail.results))
    packed = st("pack", design.packed)
    start = None if last is None else warm_start(last[1], last[0], packed)
    result = st("newton", lambda: fit(packed, start=start, tolerance=TOLERANCE))
    st("intervals", lambda: intervals.table(packed, result, intervals.sandwich(packed, result)))
    return st, tail.last_seq, (packed.names, result)


@contextmanager
def seeded(results: int) -> Iterator[tuple[SqlStore, planted.Field]]:
    """A store holding ``results`` rated results."""
    with tempfile.TemporaryDirectory() as tmp:
        store = quick_store(Path(tmp) / "hamlet.db")
        rules = games.get(GAME).rules_version
        field = planted.bots(store, GAME, rules, [f"r{i:03d}" for i in range(BOTS)])
        try:
            yield store, field
        finally:
            store.close()


def table(sizes: list[int], dbs: list[Path] | None = None) -> None:
    """Print the refit path per stage at each size (recorded now), and on a copy of each
    SQLite file in ``dbs`` (results generated before, e.g. by ``bench/reads_million.py``)."""
    print("the service's refit path through the store (CPU s; SQLite; 200 bots, 2 and 4 seats)")
    print(f"{'results':>9} {'path':<6}{'sql':>8}{'pack':>8}{'newton':>8}{'intervals':>10}"
          f"{'total':>8}")  # fmt: skip
    for size in sizes:
        with seeded(size) as (store, field):
            started = time.perf_counter()
            seed(store, field, size, 0, "s")
            print(f"  (recorded {size:,} results in {time.perf_counter() - started:.0f} s)")
            _paths(store, field)
    for db in dbs or []:
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / "hamlet.db"
            source = open_store(f"sqlite:///{db}")
            with source.engine.connect() as conn:  # a consistent copy, WAL and all
                conn.exec_driver_sql(f"VACUUM INTO '{copy}'")
            source.close()
            store = quick_store(copy)
            rules = games.get(GAME).rules_version
            seen = {(n, v) for r in store.rated_results(GAME, rules)[:5000] for n, v, _ in r.seats}
            ids = sorted(_ids(store, seen))
            print(f"  ({db}: results generated before)")
            _paths(store, planted.Field(GAME, rules, tuple(ids), tuple(0.0 for _ in ids)))
            store.close()


def _ids(store: SqlStore, seen: set[tuple[str, int]]) -> list[int]:
    out = []
    for name, version in seen:
        found = store.get_bot_version(name, version)
        if found is not None:
            out.append(found.version_id)
    return out


def _paths(store: SqlStore, field: planted.Field) -> None:
    rules = games.get(GAME).rules_version
    size = len(store.rated_results(GAME, rules))
    print(cold(store, rules).line("cold", size))
    design = Design()
    first, seq, last = refit(store, rules, design, 0, None)
    print(first.line("first", size))
    planted.record(store, field, f"more{size}", planted.tables(field, 100, 2, seed=size % 997))
    again, seq, last = refit(store, rules, design, seq, last)
    print(again.line("+100", size + 100))


def in_memory(sizes: list[int]) -> None:
    """The fitting side of an incremental refit at sizes too large to record through the
    store here: a design of simulated four-seat results (200 bots), 100 more appended, the
    fit warm-started, intervals and table; CPU seconds per stage."""
    from server.ratings.simulate import simulate

    print("the fitting side of a refit after +100 results, in memory (CPU s; 200 bots, 4 seats)")
    print(f"{'results':>9} {'path':<6}{'sql':>8}{'pack':>8}{'newton':>8}{'intervals':>10}"
          f"{'total':>8}")  # fmt: skip
    for size in sizes:
        sim = simulate(200, (size + 100) // 4, seats=4, spread_elo=200, shared_luck=0.5, seed=1)
        print(_added(list(_results(sim.packed))).line("+100", size + 100))


def _added(rows: list[Any]) -> Stages:
    """Stages of refitting a design of ``rows`` but the last 100 after appending those."""
    design = Design()
    design.append(rows[:-100])
    before = design.packed()
    last = fit(before, tolerance=TOLERANCE)
    st = Stages()
    st("pack", lambda: design.append(rows[-100:]))
    packed = st("pack", design.packed)
    start = warm_start(last, before.names, packed)
    result = st("newton", lambda: fit(packed, start=start, tolerance=TOLERANCE))
    st("intervals", lambda: intervals.table(packed, result, intervals.sandwich(packed, result)))
    return st


def _results(packed: Any) -> Iterator[Any]:
    """A packed design's results again (bots and competition ranks by seat, block names)."""
    import numpy as np

    from server.ratings.data import Result

    for t in packed.tables:
        position = np.arange(t.k)
        for g in range(len(t.block)):
            start = np.maximum.accumulate(np.where(t.stage[g] > 0, position, 0))
            bots: list[str] = [""] * t.k
            ranks = [0] * t.k
            for i in range(t.k):
                bots[t.seats[g, i]] = packed.names[t.bots[g, i]]
                ranks[t.seats[g, i]] = int(start[i])
            yield Result(tuple(bots), tuple(ranks), f"b{t.block[g]}")
