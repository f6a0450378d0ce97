"""An infrastructure void never counts as an attempt of the match (attempts count what a bot
could have lost); voids have their own bound, HAMLET_MAX_INFRA_RETRIES, and a match that
runs out of them is FAILED with a reason saying so. A lease that ran out (a worker died while
playing it) still counts an attempt."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from server.config import ConfigError, Settings
from server.services.matches import MatchService
from server.services.scheduling import MemoryEnqueuer
from server.services.tournaments import TournamentRequest, TournamentService
from server.storage import MatchStatus, SqlStore


class World:
    def __init__(self, store: SqlStore, toy: str) -> None:
        self.clock = [datetime(2026, 1, 1)]
        self.queue = MemoryEnqueuer()
        for name in ("alpha", "beta"):
            store.upsert_builtin_bot(name, [toy], "")
        now = lambda: self.clock[0]  # noqa: E731
        tournaments = TournamentService(store, self.queue, 100, now=now)
        self.matches = MatchService(
            store, self.queue, 60.0, 300.0, max_attempts=2, now=now, max_infra_retries=3
        )
        t = tournaments.create(TournamentRequest(game=toy, bots=("alpha", "beta")))
        tournaments.start(t.tournament_id)
        self.match_id = self.queue.sent[0]


@pytest.fixture
def world(store: SqlStore, toy: str) -> World:
    return World(store, toy)


def test_voids_count_no_attempt_and_fail_the_match_at_their_own_bound(world: World) -> None:
    statuses = []
    for _ in range(3):
        claim = world.matches.claim(world.match_id, "w1", "task-1")
        statuses.append(world.matches.void(world.match_id, "sandbox died", claim.attempt_token))
        assert world.matches.get(world.match_id).attempts == 0
    assert statuses == [MatchStatus.QUEUED, MatchStatus.QUEUED, MatchStatus.FAILED]
    failed = world.matches.get(world.match_id)
    assert failed.void_reason.startswith(
        "failed: voided 3 times by infrastructure faults of workers, never played to a result "
        "(HAMLET_MAX_INFRA_RETRIES); the last: sandbox died"
    )
    print(f"\ninfrastructure voids: 3 allowed, match {failed.status.value}: {failed.void_reason}")


def test_more_voids_than_attempts_do_not_fail_a_match(world: World) -> None:
    # max_attempts is 2: two voids used to fail the match, unplayed.
    for _ in range(2):
        claim = world.matches.claim(world.match_id, "w1", "task-1")
        world.matches.void(world.match_id, "pause", claim.attempt_token)
    assert world.matches.get(world.match_id).status is MatchStatus.QUEUED


def test_a_lease_that_ran_out_still_counts_an_attempt(world: World) -> None:
    world.matches.claim(world.match_id, "w1", "task-1")  # ... and the worker dies
    world.clock[0] += timedelta(seconds=61)
    assert world.matches.reap().requeued == (world.match_id,)
    match = world.matches.get(world.match_id)
    assert (match.status, match.attempts) == (MatchStatus.QUEUED, 1)


def test_the_bound_is_a_setting() -> None:
    assert Settings().max_infra_retries == 10
    assert Settings.from_env({"HAMLET_MAX_INFRA_RETRIES": "4"}).max_infra_retries == 4
    with pytest.raises(ConfigError, match="HAMLET_MAX_INFRA_RETRIES"):
        Settings(max_infra_retries=0).validate()
