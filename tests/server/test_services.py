"""Services without gRPC: round-robin planning, starting, re-queueing expired leases."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.services.errors import FailedPreconditionError, InvalidArgumentError, NotFoundError
from server.services.matches import MatchService
from server.services.scheduling import MemoryEnqueuer
from server.services.tournaments import TournamentRequest, TournamentService, plan_round_robin
from server.storage import MatchStatus, SqlStore, TournamentStatus


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 7), st.integers(2, 4), st.integers(1, 3), st.integers(0, 2**63 - 1))
def test_round_robin_covers_every_table_rotation_and_seat(
    n: int, k: int, rounds: int, seed: int
) -> None:
    if k > n:
        return
    entries = list(range(100, 100 + n))
    plan = plan_round_robin("t", entries, k, rounds, seed)
    assert len(plan) == comb(n, k) * k * rounds
    assert len({m.match_id for m in plan}) == len(plan)
    seats = Counter((bot, seat) for m in plan for seat, bot in enumerate(m.seat_version_ids))
    # every bot sits in every seat equally often
    assert len(set(seats.values())) == 1 and len(seats) == n * k
    by_table: dict[tuple[int, int], set[int]] = {}
    for m in plan:
        by_table.setdefault((m.round, m.table), set()).add(m.seed)
        assert 0 <= m.seed < 2**63
    # duplicate seeds: all rotations of a table share one seed
    assert all(len(s) == 1 for s in by_table.values())


def test_round_robin_is_deterministic() -> None:
    assert plan_round_robin("t", [1, 2, 3], 2, 2, 9) == plan_round_robin("t", [1, 2, 3], 2, 2, 9)


@pytest.fixture
def services(
    store: SqlStore, toy: str
) -> tuple[TournamentService, MatchService, MemoryEnqueuer, list[datetime]]:
    clock = [datetime(2026, 1, 1)]
    queue = MemoryEnqueuer()
    for name in ("alpha", "beta"):
        store.upsert_builtin_bot(name, [toy], "")
    now = lambda: clock[0]  # noqa: E731
    return (
        TournamentService(store, queue, 100, now=now),
        MatchService(
            store, queue, lease_seconds=60, queue_timeout_seconds=600, max_attempts=3, now=now
        ),
        queue,
        clock,
    )


def test_start_is_idempotent_and_requeues_expired_leases(services: tuple) -> None:  # type: ignore[type-arg]
    tournaments, matches, queue, clock = services
    t = tournaments.create(TournamentRequest(game="toy", bots=("alpha", "beta"), rounds=2))
    assert t.matches_total == 4 and t.status is TournamentStatus.CREATED and queue.sent == []
    tournaments.start(t.tournament_id)
    tournaments.start(t.tournament_id)
    assert len(queue.sent) == 4
    first = queue.sent[0]
    claim = matches.claim(first, "w1")
    assert claim.match.status is MatchStatus.RUNNING and not claim.already_final
    assert matches.reap().requeued == ()
    clock[0] += timedelta(seconds=61)
    assert matches.reap().requeued == (first,)
    assert queue.sent.count(first) == 2
    assert matches.get(first).attempts == 1  # one claim so far
    clock[0] += timedelta(seconds=601)  # queued too long: the message is presumed lost
    reaped = matches.reap()
    assert sorted(reaped.resent) == sorted(set(queue.sent)) and reaped.requeued == ()
    assert all(matches.get(m).attempts == (m == first) for m in set(queue.sent))


def test_create_validation(services: tuple) -> None:  # type: ignore[type-arg]
    tournaments, *_ = services
    with pytest.raises(NotFoundError):
        tournaments.create(TournamentRequest(game="toy", bots=("alpha", "nobody")))
    with pytest.raises(InvalidArgumentError):
        tournaments.create(TournamentRequest(game="toy", bots=()))
    with pytest.raises(InvalidArgumentError):
        tournaments.create(TournamentRequest(game="toy", bots=("alpha", "beta"), format="knockout"))
    with pytest.raises(InvalidArgumentError):
        tournaments.create(TournamentRequest(game="toy", bots=("alpha", "beta"), rounds=100_000))
    t = tournaments.create(TournamentRequest(game="toy", bots=("alpha", "beta")))
    tournaments.cancel(t.tournament_id)
    with pytest.raises(FailedPreconditionError):
        tournaments.start(t.tournament_id)
