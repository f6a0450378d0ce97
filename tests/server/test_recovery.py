"""No match is lost to waiting: re-sends count no attempt, and every lost message is sent
again within the documented bound (server.services.recovery), on a simulated clock: the
reaper's beat is stepped by hand, nothing here waits or reads the wall clock."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from server.config import Settings
from server.services.errors import UnavailableError
from server.services.matches import MatchService
from server.services.recovery import RecoveryBound
from server.services.scheduling import CeleryEnqueuer, MemoryEnqueuer
from server.services.tournaments import TournamentRequest, TournamentService
from server.storage import MatchStatus, SqlStore, TournamentStatus

LEASE, TIMEOUT, BEAT = 60.0, 300.0, 10.0
BOUND = RecoveryBound(lease=LEASE, queue_timeout=TIMEOUT, reaper=BEAT)


class World:
    """The services on one store with a clock the test moves, and a reaper beat."""

    def __init__(self, store: SqlStore, toy: str) -> None:
        self.clock = [datetime(2026, 1, 1)]
        self.queue = MemoryEnqueuer()
        for name in ("alpha", "beta"):
            store.upsert_builtin_bot(name, [toy], "")
        now = lambda: self.clock[0]  # noqa: E731
        self.tournaments = TournamentService(store, self.queue, 100, now=now)
        self.matches = MatchService(
            store,
            self.queue,
            lease_seconds=LEASE,
            queue_timeout_seconds=TIMEOUT,
            max_attempts=3,
            now=now,
        )

    def beats_until_sent(self, match_id: str, limit: float) -> float:
        """Step the reaper until ``match_id`` is sent again; the simulated seconds it took."""
        before = self.queue.sent.count(match_id)
        waited = 0.0
        while self.queue.sent.count(match_id) == before:
            assert waited <= limit, f"{match_id} not re-sent within {limit}s"
            self.clock[0] += timedelta(seconds=BEAT)
            waited += BEAT
            self.matches.reap()
        return waited


@pytest.fixture
def world(store: SqlStore, toy: str) -> World:
    return World(store, toy)


def _start(world: World) -> list[str]:
    t = world.tournaments.create(TournamentRequest(game="toy", bots=("alpha", "beta")))
    world.tournaments.start(t.tournament_id)
    return list(world.queue.sent)


def test_the_default_queue_timeout_is_minutes_and_the_bound_is_documented() -> None:
    d = Settings()
    assert 60 <= d.queue_timeout_seconds <= 900
    bound = RecoveryBound(d.match_lease_seconds, d.queue_timeout_seconds, d.reaper_interval_seconds)
    assert bound.bound() == max(d.queue_timeout_seconds, d.match_lease_seconds) + 10


def test_a_lost_message_is_sent_again_within_the_bound_without_penalty(world: World) -> None:
    first, *_ = _start(world)
    for _ in range(10):  # ten queue timeouts in a row: the queue is long, not broken
        assert world.beats_until_sent(first, BOUND.lost_message()) <= BOUND.lost_message()
    match = world.matches.get(first)
    assert (match.status, match.attempts) == (MatchStatus.QUEUED, 0)
    claim = world.matches.claim(first, "w1", "task-1")
    assert claim.match.attempts == 1 and not claim.already_final


def test_a_dead_workers_match_is_queued_again_within_the_bound(world: World) -> None:
    first, *_ = _start(world)
    world.matches.claim(first, "w1", "task-1")  # ... and the worker dies
    assert world.beats_until_sent(first, BOUND.dead_worker()) <= BOUND.dead_worker()
    match = world.matches.get(first)
    assert (match.status, match.attempts) == (MatchStatus.QUEUED, 1)


def test_a_broker_that_lost_everything_gets_every_queued_match_again(world: World) -> None:
    sent = _start(world)
    world.matches.claim(sent[0], "w1", "task-1")
    assert sorted(world.matches.resend_queued()) == sorted(sent[1:])  # the running one waits
    assert all(world.matches.get(m).attempts == 0 for m in sent[1:])


def test_a_resent_copy_is_dropped_while_the_first_attempt_lives(world: World) -> None:
    first, *_ = _start(world)
    world.matches.claim(first, "w1", "task-1")
    from server.services.errors import FailedPreconditionError

    with pytest.raises(FailedPreconditionError, match="another queue message"):
        world.matches.claim(first, "w2", "task-2")
    assert world.matches.get(first).attempts == 1


def test_a_start_the_broker_refuses_answers_unavailable_and_can_be_retried(
    store: SqlStore, toy: str
) -> None:
    world = World(store, toy)
    # A real Celery producer on a port where no broker listens.
    dead = CeleryEnqueuer("redis://127.0.0.1:9/0")
    from prometheus_client import CollectorRegistry

    from server.app import _CountingEnqueuer
    from server.metrics import ServerMetrics

    strict = _CountingEnqueuer(dead, ServerMetrics(CollectorRegistry()))
    refusing = TournamentService(store, strict, 100, now=lambda: world.clock[0])
    t = refusing.create(TournamentRequest(game="toy", bots=("alpha", "beta")))
    with pytest.raises(UnavailableError, match="start it again"):
        refusing.start(t.tournament_id)
    again = store.get_tournament(t.tournament_id)
    assert again is not None and again.status is TournamentStatus.CREATED
    assert again.counts.get(MatchStatus.PENDING) == again.matches_total
    assert strict.broker_epoch() is None
    world.tournaments.start(t.tournament_id)  # the broker is back: start works
    assert len(world.queue.sent) == again.matches_total
