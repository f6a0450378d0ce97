"""Recovery bounds that do not multiply with the block: on a simulated clock over the real
storage, a block of 2 or 6 matches keeps its claims one lease at a time while its worker
renews them (however long its matches are), and once its worker dies every match of the
block is queued again within ``RecoveryBound.dead_worker()`` (lease + reaper beat), the
same for every block size. Nothing here waits or reads the wall clock."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from server.services.matches import MatchService
from server.services.recovery import RecoveryBound
from server.services.scheduling import MemoryEnqueuer, blocks_of
from server.services.tournaments import TournamentRequest, TournamentService
from server.storage import MatchStatus, SqlStore

LEASE, TIMEOUT, BEAT = 60.0, 300.0, 10.0
BOUND = RecoveryBound(lease=LEASE, queue_timeout=TIMEOUT, reaper=BEAT)
#: Each match of the block takes three leases: slow but legal, never to be taken away.
MATCH_S = 3 * LEASE


class Block:
    """One claimed block, its worker renewing every quarter lease of simulated time."""

    def __init__(self, store: SqlStore, game: str, seats: int) -> None:
        self.clock = [datetime(2026, 1, 1)]
        self.store = store
        self.queue = MemoryEnqueuer()
        bots = tuple(f"bot{i}" for i in range(seats))
        for name in bots:
            store.upsert_builtin_bot(name, [game], "")
        now = lambda: self.clock[0]  # noqa: E731
        tournaments = TournamentService(store, self.queue, 100, now=now)
        self.matches = MatchService(store, self.queue, LEASE, TIMEOUT, max_attempts=3, now=now)
        t = tournaments.create(
            TournamentRequest(game=game, bots=bots, players_per_table=seats, rounds=1)
        )
        tournaments.start(t.tournament_id)
        self.ids = next(iter(blocks_of(self.queue.sent, store.match_routes).values()))
        claims = self.matches.claim_block(self.ids, "w1", "task-1")
        self.tokens = {m: c.attempt_token for m, c, _ in claims if c is not None}
        self.sent_before = {m: self.queue.sent.count(m) for m in self.ids}
        self.last_renewal = self.clock[0]

    def beat(self, alive: bool) -> None:
        """Ten simulated seconds: the worker renews if due (and alive), the reaper runs."""
        self.clock[0] += timedelta(seconds=BEAT)
        due = self.clock[0] - self.last_renewal >= timedelta(seconds=LEASE / 4)
        if alive and due:
            renewed = self.matches.renew(list(self.tokens.items()), "w1")
            assert all(ok for _, ok in renewed)
            self.last_renewal = self.clock[0]
        self.matches.reap()

    def resent(self) -> set[str]:
        return {m for m in self.ids if self.queue.sent.count(m) > self.sent_before[m]}


@pytest.fixture(params=[("toy", 2), ("farmaria", 6)], ids=["2-seats", "6-seats"])
def block(request: pytest.FixtureRequest, store: SqlStore, toy: str) -> Block:
    game, seats = request.param
    return Block(store, game, seats)


def test_a_live_block_of_long_matches_keeps_its_claims(block: Block) -> None:
    assert len(block.ids) in (2, 6) and len(block.tokens) == len(block.ids)
    elapsed = 0.0
    while elapsed < MATCH_S * len(block.ids):  # the whole block, every match three leases
        block.beat(alive=True)
        elapsed += BEAT
        for match_id in block.ids:
            match = block.matches.get(match_id)
            assert match.status is MatchStatus.RUNNING and match.attempts == 1
        # Never more than one lease ahead: the claims do not multiply with the block.
        one_lease_on = block.clock[0] + timedelta(seconds=LEASE + 1)
        assert set(block.ids) <= set(block.store.expired_leases(one_lease_on))
    assert not block.resent()


def test_a_dead_workers_block_is_queued_again_within_one_bound(block: Block) -> None:
    for _ in range(int(MATCH_S // BEAT)):  # the first match is played, the worker renews...
        block.beat(alive=True)
    waited = 0.0  # ... and dies
    while block.resent() != set(block.ids):
        assert waited <= BOUND.dead_worker(), f"not re-sent within {BOUND.dead_worker()}s"
        block.beat(alive=False)
        waited += BEAT
    print(
        f"\nblock of {len(block.ids)}: planned {len(block.ids)}, recorded 0, FAILED 0, "
        f"queued again {waited:.0f} s (simulated) after its worker died; "
        f"bound {BOUND.dead_worker():.0f} s, a lease per match would be "
        f"{LEASE * len(block.ids) + BEAT:.0f} s"
    )
    assert waited <= BOUND.dead_worker()
    for match_id in block.ids:
        match = block.matches.get(match_id)
        assert (match.status, match.attempts) == (MatchStatus.QUEUED, 1)


def test_a_renewal_of_a_lost_claim_is_refused(block: Block) -> None:
    for _ in range(int(BOUND.dead_worker() // BEAT) + 1):
        block.beat(alive=False)  # the lease ran out: queued again
    renewed = block.matches.renew(list(block.tokens.items()), "w1")
    assert [ok for _, ok in renewed] == [False] * len(block.ids)
