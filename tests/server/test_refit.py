"""Background refits of the leaderboards: single flight, debounce, incremental designs equal
to a fit from scratch, and reads that never fit."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator

import numpy as np
import pytest

from server.config import ConfigError, Settings
from server.ratings import intervals
from server.ratings.data import pack
from server.ratings.design import Design
from server.ratings.fit import fit
from server.ratings.fitter import TOLERANCE
from server.services.errors import UnavailableError
from server.services.leaderboards import LeaderboardService
from server.services.refit import RefitService, as_result
from server.storage import SqlStore
from tests.integration.stack import wait_until
from tests.server import crowd, planted

RULES = "toy-1"


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Fits:
    """What ``on_fit`` was told, and on which threads."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, str]] = []
        self._lock = threading.Lock()

    def __call__(self, game: str, seconds: float, matches: int) -> None:
        with self._lock:
            self.calls.append((game, matches, threading.current_thread().name))


def scratch(
    store: SqlStore, game: str
) -> tuple[list[intervals.Line], list[intervals.SeatAdvantage]]:
    """The lines and seat advantages of a fit from scratch (the way reads fitted before)."""
    packed = pack(as_result(r) for r in store.rated_results(game, RULES))
    result = fit(packed, tolerance=TOLERANCE)
    cov = intervals.sandwich(packed, result)
    return intervals.table(packed, result, cov), intervals.seat_advantages(result, cov)


def assert_same(store: SqlStore, refits: RefitService, game: str) -> None:
    lines, seats = scratch(store, game)
    fitted = refits.snapshot((game, RULES)).fitted
    assert fitted.matches == len(store.rated_results(game, RULES))
    by_bot = {line.bot: line for line in fitted.lines}
    assert set(by_bot) == {line.bot for line in lines}
    for line in lines:
        mine = by_bot[line.bot]
        assert (mine.games, mine.rank_low, mine.rank_high) == (
            line.games,
            line.rank_low,
            line.rank_high,
        )
        assert mine.provisional == line.provisional
        for a, b in (
            (mine.rating, line.rating),
            (mine.low, line.low),
            (mine.high, line.high),
            (mine.average_place, line.average_place),
        ):
            assert a == pytest.approx(b, abs=1e-6)
    assert [(s.k, s.seat) for s in fitted.seats] == [(s.k, s.seat) for s in seats]
    for a_seat, b_seat in zip(fitted.seats, seats, strict=True):
        assert a_seat.elo == pytest.approx(b_seat.elo, abs=1e-6)
        assert a_seat.high == pytest.approx(b_seat.high, abs=1e-6)


@pytest.fixture
def manual(store: SqlStore) -> Iterator[tuple[RefitService, Clock, Fits]]:
    """A refit service without its thread (the test ticks it) on an injected clock."""
    clock, fits = Clock(), Fits()
    refits = RefitService(store, debounce=5.0, clock=clock, on_fit=fits)
    yield refits, clock, fits
    refits.close()


@pytest.mark.parametrize("processes", [False, True], ids=["thread", "process"])
def test_appended_batches_fit_as_from_scratch(store: SqlStore, processes: bool) -> None:
    clock = Clock()
    refits = RefitService(
        store, debounce=1.0, clock=clock, processes=processes, process_threshold=0
    )
    try:
        field = planted.bots(store, "toy", RULES, [f"p{i}" for i in range(8)] + ["random"])
        early = planted.Field(field.game, RULES, field.version_ids[:5], field.strengths[:5])
        refits.follow(("toy", RULES))
        # batches: two-seat tables of five bots; then new bots at three seats; then four seats
        # and two seats again, with every bot
        batches = [
            (early, 2, 60),
            (field, 3, 40),
            (field, 4, 30),
            (field, 2, 20),
        ]
        for i, (bots, k, n) in enumerate(batches):
            planted.record(store, bots, f"t{i}", planted.tables(bots, n, k, seed=i))
            refits.touch()
            clock.now += 1000.0  # past the debounce and the pause after a slow fit
            refits.tick()
            assert_same(store, refits, "toy")
    finally:
        refits.close()


def test_debounced_by_the_clock(store: SqlStore, manual: tuple[RefitService, Clock, Fits]) -> None:
    refits, clock, fits = manual
    field = planted.bots(store, "toy", RULES, ["a", "b", "c"])
    planted.record(store, field, "t0", planted.tables(field, 10, 2, seed=1))
    refits.follow(("toy", RULES))
    refits.tick()
    assert [m for _, m, _ in fits.calls] == [10]
    planted.record(store, field, "t1", planted.tables(field, 4, 2, seed=2))
    refits.touch()
    clock.now = 3.0
    assert refits.tick() == pytest.approx(2.0)  # read, not fitted: the next fit is due at 5
    assert refits.recorded(("toy", RULES)) == 14
    assert refits.snapshot(("toy", RULES)).fitted.matches == 10
    assert len(fits.calls) == 1
    clock.now = 5.0
    refits.tick()
    assert [m for _, m, _ in fits.calls] == [10, 14]
    clock.now = 20.0
    refits.tick()  # polled at the beat: nothing new, nothing fitted
    assert len(fits.calls) == 2


def test_two_first_readers_share_one_fit(store: SqlStore) -> None:
    fits = Fits()
    refits = RefitService(store, debounce=3600, on_fit=fits)
    field = planted.bots(store, "toy", RULES, ["a", "b", "c", "d"])
    planted.record(store, field, "t0", planted.tables(field, 50, 2, seed=1))
    barrier = threading.Barrier(2)
    seen = []

    def read() -> None:
        barrier.wait()
        seen.append(refits.snapshot(("toy", RULES)))

    readers = [threading.Thread(target=read) for _ in range(2)]
    for reader in readers:
        reader.start()
    refits.start()  # the thread starts once both readers may be waiting
    for reader in readers:
        reader.join()
    refits.close()
    assert len(fits.calls) == 1 and seen[0] is seen[1] and seen[0].fitted.matches == 50


def test_reads_serve_the_last_fit_and_never_fit(store: SqlStore, toy: str) -> None:
    fits = Fits()
    refits = RefitService(store, debounce=3600, on_fit=fits)
    refits.start()
    boards = LeaderboardService(store, refits=refits)
    try:
        field = planted.bots(store, toy, RULES, ["a", "b", "c"])
        planted.record(store, field, "t0", planted.tables(field, 12, 2, seed=1))
        first = boards.published(toy)
        assert first.matches == first.results_recorded == 12 and first.fitted_at is not None
        planted.record(store, field, "t1", planted.tables(field, 6, 2, seed=2))
        with crowd.counting(store.engine) as seen:
            again = boards.published(toy)
            boards.lines_of("a", [toy])
        assert seen.count == 0  # no count of the log, no read of it: the published fit
        assert again is first
        refits.touch()  # the recorder's signal: the log is read, the refit waits its turn
        wait_until(lambda: boards.published(toy).results_recorded == 18, 30, "the poll")
        assert boards.published(toy).matches == 12  # debounced: the last fit still served
        assert {thread for _, _, thread in fits.calls} == {"hamlet-refit"}
    finally:
        refits.close()


def test_a_new_result_shows_after_the_next_refit(store: SqlStore, toy: str) -> None:
    refits = RefitService(store, debounce=0.05)
    refits.start()
    boards = LeaderboardService(store, refits=refits)
    try:
        field = planted.bots(store, toy, RULES, ["a", "b"])
        planted.record(store, field, "t0", planted.tables(field, 4, 2, seed=1))
        assert boards.published(toy).matches == 4
        planted.record(store, field, "t1", planted.tables(field, 2, 2, seed=2))
        refits.touch()
        wait_until(lambda: boards.published(toy).matches == 6, 30, "the refit")
        boards.rebuild(toy)  # rebuild-ratings: the design is read again from the log
        wait_until(lambda: refits.recorded((toy, RULES)) == 6, 30, "the rebuild")
        assert boards.published(toy).matches == 6
    finally:
        refits.close()


def test_a_design_ships_as_batches_of_integer_arrays() -> None:
    from server.ratings.data import Result

    mine, copy = Design(), Design()
    first = mine.append([Result(("a", "b"), (0, 1), "x"), Result(("b", "c", "a"), (1, 0, 1))])
    copy.apply(first)
    second = mine.append([Result(("d", "a"), (0, 0), "x")])
    copy.apply(second)
    assert second.names == ("d",) and (second.names_before, second.results_before) == (3, 2)
    assert all(t.bots.dtype == np.int64 for t in second.tables)
    with pytest.raises(ValueError, match="does not apply"):
        copy.apply(second)
    again = Design()
    again.apply(mine.everything())
    for d in (copy, again):
        a, b = d.packed(), mine.packed()
        assert a.names == b.names and a.blocks == b.blocks == 2
        assert np.array_equal(a.games, b.games) and np.array_equal(a.places, b.places)
        for ta, tb in zip(a.tables, b.tables, strict=True):
            assert np.array_equal(ta.bots, tb.bots) and np.array_equal(ta.stage, tb.stage)
            assert np.array_equal(ta.block, tb.block)


def test_a_first_read_without_a_fit_in_time_is_unavailable(store: SqlStore) -> None:
    refits = RefitService(store, first_wait=0.0)  # no thread: nothing fits
    with pytest.raises(UnavailableError, match="being computed for the first time"):
        refits.snapshot(("toy", RULES))
    refits.tick()
    assert refits.snapshot(("toy", RULES)).fitted.matches == 0  # an empty log: an empty fit
    refits.close()


def test_refit_settings() -> None:
    s = Settings.from_env({})
    assert s.refit_seconds == 3.0 and s.refit_process is None
    assert s.effective_refit_process == ((os.cpu_count() or 1) > 1)
    s = Settings.from_env({"HAMLET_REFIT_SECONDS": "0.5", "HAMLET_REFIT_PROCESS": "no"})
    assert s.refit_seconds == 0.5 and s.effective_refit_process is False
    assert Settings.from_env({"HAMLET_REFIT_PROCESS": "yes"}).effective_refit_process is True
    with pytest.raises(ConfigError, match="HAMLET_REFIT_SECONDS"):
        Settings.from_env({"HAMLET_REFIT_SECONDS": "0"})
    with pytest.raises(ConfigError, match="HAMLET_REFIT_PROCESS"):
        Settings.from_env({"HAMLET_REFIT_PROCESS": "maybe"})


def test_older_rules_without_results_are_not_kept(store: SqlStore, toy: str) -> None:
    refits = RefitService(store, debounce=3600)
    refits.start()
    boards = LeaderboardService(store, refits=refits)
    try:
        for made_up in ("toy-0", "no-such-rules"):
            assert boards.published(toy, made_up).lines == ()
        boards.published(toy)
        assert list(refits._boards) == [(toy, RULES)]  # only the current rules are followed
    finally:
        refits.close()


@pytest.mark.parametrize("processes", [False, True], ids=["thread", "process"])
def test_fast_updates_between_full_fits(store: SqlStore, processes: bool) -> None:
    clock, kinds = Clock(), []
    refits = RefitService(
        store,
        debounce=1.0,
        full_seconds=30.0,
        clock=clock,
        processes=processes,
        process_threshold=0,
        on_progress=lambda game, pending, cpu: None,
    )
    try:
        field = planted.bots(store, "toy", RULES, [f"f{i}" for i in range(6)] + ["random"])
        planted.record(store, field, "t0", planted.tables(field, 400, 2, seed=1))
        refits.follow(("toy", RULES))
        refits.tick()
        kinds.append(refits.snapshot(("toy", RULES)).fitted.full)
        for i in range(1, 4):  # within full_seconds: fast updates, near a fit from scratch
            planted.record(store, field, f"t{i}", planted.tables(field, 4, 2, seed=1 + i))
            refits.touch()
            clock.now += 2.0
            refits.tick()
            fitted = refits.snapshot(("toy", RULES)).fitted
            kinds.append(fitted.full)
            assert fitted.matches == 400 + 4 * i
            lines, _ = scratch(store, "toy")
            mine = {line.bot: line for line in fitted.lines}
            for line in lines:  # second order in the move (test_update): a log this small
                # (tails of 1-3% of it) moves the ratings by Elo points, the error is hundredths
                assert mine[line.bot].rating == pytest.approx(line.rating, abs=0.25)
                assert mine[line.bot].games == line.games
        planted.record(store, field, "t9", planted.tables(field, 4, 2, seed=9))
        refits.touch()
        clock.now += 30.0  # the full fit is due: it equals a fit from scratch
        refits.tick()
        kinds.append(refits.snapshot(("toy", RULES)).fitted.full)
        assert_same(store, refits, "toy")
        assert kinds == [True, False, False, False, True]
    finally:
        refits.close()
