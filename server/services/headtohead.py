"""Is B better than A? Paired duplicate blocks and a sequential test (fishtest's way).

A test is a tournament of format ``sprt`` whose round ``r`` is one pair of blocks with the same
seed, opponents and seats: table 0 seats A, table 1 seats B in A's place. Each completed pair is
one observation for :mod:`server.ratings.sprt`; the test is evaluated when a pair completes
(block boundaries only) and stops, cancelling what is still open, as soon as it decides, or
after ``max_pairs`` pairs. :data:`PAIRS_IN_FLIGHT` pairs are played at once.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from itertools import combinations

from hamlet.queues import queue_for
from server.ratings import sprt
from server.services import commitments, consent, request_ids
from server.services import validation as v
from server.services.caller import SYSTEM, Caller
from server.services.dispatch import Dispatcher, sent_of
from server.services.errors import FailedPreconditionError, InvalidArgumentError, NotFoundError
from server.services.matchtime import DEFAULT_MAX_MATCH_SECONDS, check_time_control
from server.services.quotas import Quota, QuotaService
from server.services.scheduling import Enqueuer
from server.services.tournaments import MAX_DECISION_MS, TIME_BANK_FACTOR, plan_round
from server.storage import (
    BotRecord,
    MatchRecord,
    MatchStatus,
    NewMatch,
    NewTournament,
    SprtRecord,
    Store,
    TournamentStatus,
)
from server.storage.base import utcnow

SPRT = "sprt"
PAIRS_IN_FLIGHT = 2
MAX_PAIRS = 5000


@dataclass(frozen=True, slots=True)
class TestStatus:
    """Where a head-to-head test stands."""

    tournament_id: str
    game: str
    bot_a: str
    bot_b: str
    opponents: tuple[str, ...]
    bounds: sprt.Bounds
    expected: tuple[float, float, float]  # blocks expected at elo0, at elo1, halfway
    state: sprt.State
    verdict: sprt.Verdict
    finished: bool


class HeadToHeadService:
    """Starting, scheduling, evaluating and following head-to-head tests."""

    def __init__(
        self,
        store: Store,
        enqueuer: Enqueuer,
        decision_time_ms: int = 1000,
        now: Callable[[], datetime] | None = None,
        dispatcher: Dispatcher | None = None,
        quotas: QuotaService | None = None,
        max_match_seconds: float = DEFAULT_MAX_MATCH_SECONDS,
    ) -> None:
        self.max_match_seconds = max_match_seconds
        self.store = store
        self.enqueuer = enqueuer
        self.decision_time_ms = decision_time_ms
        self.now = now or utcnow
        #: Sends the test's blocks in its owner's fair share of the window.
        self.dispatcher = dispatcher or Dispatcher(store, enqueuer, now=self.now)
        self._lock = threading.Lock()
        self.quotas = quotas or QuotaService(store)

    def start(
        self,
        game: str,
        bots: Sequence[BotRecord],
        players: int,
        bounds: sprt.Bounds,
        max_pairs: int,
        decision_time_ms: int,
        owner_id: int | None,
        caller: Caller = SYSTEM,
        client_request_id: str = "",
    ) -> TestStatus:
        """``bots`` are A, B and the opponents; the test starts at once. A test is unrated:
        ``caller`` may enter bots whose owners allow unrated play (services.consent). It counts
        against the caller's quotas with the most it may play: max_pairs x 2 tables x
        rotations. With ``client_request_id``, a test the same caller already started with it
        is returned as it is (services.request_ids)."""
        args = (game, bots, players, bounds, max_pairs, decision_time_ms, owner_id, caller)
        if not client_request_id:
            return self._start("s" + secrets.token_hex(5), *args)
        tid = request_ids.event_id("s", owner_id, client_request_id)
        with request_ids.creating(tid):  # concurrent retries: one creates
            if self.store.get_tournament(tid) is not None:
                return self._finish_start(tid)
            return self._start(tid, *args)

    def _start(
        self,
        tid: str,
        game: str,
        bots: Sequence[BotRecord],
        players: int,
        bounds: sprt.Bounds,
        max_pairs: int,
        decision_time_ms: int,
        owner_id: int | None,
        caller: Caller,
    ) -> TestStatus:
        consent.check_entries(self.store, caller, bots, rated=False, now=self.now())
        spec = v.game_spec(game)
        players = players or spec.min_players
        if not spec.min_players <= players <= spec.max_players:
            raise InvalidArgumentError(
                f"{game} is played by {spec.min_players} to {spec.max_players} players"
            )
        if len(bots) < 1 + players:
            raise InvalidArgumentError(
                f"tables of {players} need A, B and at least {players - 1} opponents"
            )
        if len({b.version_id for b in bots}) != len(bots):
            raise InvalidArgumentError("A, B and the opponents must be different bot versions")
        for bot in bots:
            if game not in bot.games or bot.retired:
                raise InvalidArgumentError(f"bot {bot.name!r} cannot play {game} now")
        pairs = v.bounded("max_pairs", max_pairs or 1000, 1, MAX_PAIRS)
        decision = v.bounded(
            "decision_time_ms", decision_time_ms or self.decision_time_ms, 1, MAX_DECISION_MS
        )
        check_time_control(
            spec, players, decision, decision * TIME_BANK_FACTOR, self.max_match_seconds
        )
        most = pairs * 2 * players
        needs = {Quota.SPRTS: 1, Quota.OPEN_EVENTS: 1, Quota.MATCHES_PER_DAY: most}
        seed, salt = secrets.randbits(63), commitments.nonce()
        with self.quotas.guard(caller, needs):
            self.store.create_tournament(
                NewTournament(
                    tournament_id=tid,
                    game=game,
                    rules_version=spec.rules_version,
                    format=SPRT,
                    players_per_table=players,
                    rounds=pairs,
                    seed=seed,
                    decision_time_ms=decision,
                    time_bank_ms=decision * TIME_BANK_FACTOR,
                    rated=False,  # a test compares two versions, not the leaderboard's business
                    entry_version_ids=tuple(b.version_id for b in bots),
                    matches=(),
                    owner_id=owner_id,
                    seed_nonce=salt,
                    seed_commitment=commitments.commitment(tid, salt, seed),
                    planned_matches=most,
                )
            )
        self.store.save_sprt(
            SprtRecord(tid, bounds.elo0, bounds.elo1, bounds.alpha, bounds.beta, pairs, "continue")
        )
        return self._finish_start(tid)

    def _finish_start(self, tid: str) -> TestStatus:
        """Run a created test (a no-op for one already running or over); its status."""
        if self.store.get_sprt(tid) is None:
            # A first attempt that stopped between the two writes: nothing ran yet.
            raise FailedPreconditionError(
                f"head-to-head test {tid} was not completely created; start a new test with "
                "another client request id"
            )
        self.store.set_tournament_status(tid, TournamentStatus.RUNNING, [TournamentStatus.CREATED])
        self.schedule(tid)
        return self.status(tid)

    def status(self, tournament_id: str) -> TestStatus:
        """The test's evaluation now."""
        v.identifier("test id", tournament_id)
        record = self.store.get_sprt(tournament_id)
        t = self.store.get_tournament(tournament_id)
        if record is None or t is None:
            raise NotFoundError(f"unknown head-to-head test {tournament_id!r}")
        bounds = sprt.Bounds(record.elo0, record.elo1, record.alpha, record.beta)
        state = sprt.evaluate(bounds, self._observations(self.store.list_matches(tournament_id)))
        names = list(t.bots)  # name@version: A and B may be two versions of one bot
        return TestStatus(
            tournament_id,
            t.game,
            names[0],
            names[1],
            tuple(names[2:]),
            bounds,
            bounds.expected_blocks(),
            state,
            sprt.Verdict(record.verdict),
            t.status.final,
        )

    def after_result(self, tournament_id: str) -> None:
        """A match became final: decide or schedule more, if this is a test."""
        record = self.store.get_sprt(tournament_id)
        if record is None or record.verdict != sprt.Verdict.CONTINUE.value:
            return
        with self._lock:
            now = self.status(tournament_id)
            if now.state.verdict is not sprt.Verdict.CONTINUE:
                self.store.save_sprt(replace(record, verdict=now.state.verdict.value))
                self.store.cancel_open_matches(tournament_id, self.now())
                self.store.set_tournament_status(
                    tournament_id, TournamentStatus.FINISHED, [TournamentStatus.RUNNING]
                )
                return
            self.schedule(tournament_id)

    def schedule(self, tournament_id: str) -> list[str]:
        """Keep :data:`PAIRS_IN_FLIGHT` pairs of blocks open."""
        t = self.store.get_tournament(tournament_id)
        if t is None or t.status is not TournamentStatus.RUNNING:
            return []
        while len(self.store.open_blocks(tournament_id)) < 2 * PAIRS_IN_FLIGHT:
            top = self.store.max_round(tournament_id)
            rnd = 0 if top is None else top + 1
            if rnd >= t.rounds:
                break
            field = list(combinations(range(2, len(t.bots)), t.players_per_table - 1))
            opponents = field[rnd % len(field)]
            matches = [
                *_block(tournament_id, t.entry_version_ids, rnd, 0, (0, *opponents), t.seed),
                *_block(tournament_id, t.entry_version_ids, rnd, 1, (1, *opponents), t.seed),
            ]
            runtimes = dict(zip(t.entry_version_ids, t.entry_runtimes, strict=True))
            matches = [
                replace(nm, queue=queue_for(runtimes[x] for x in nm.seat_version_ids))
                for nm in matches
            ]
            rules = self.store.list_matches(tournament_id)[:1]
            version = rules[0].rules_version if rules else v.game_spec(t.game).rules_version
            if not self.store.add_matches(tournament_id, version, matches):
                break
        return sent_of(self.dispatcher.refill(), tournament_id)

    def watch(self, tournament_id: str, stop: threading.Event) -> Iterator[TestStatus]:
        """The status now, then whenever a pair completes, until the test is over."""
        last = -1
        while not stop.is_set():
            now = self.status(tournament_id)
            if now.state.blocks != last or now.finished:
                last = now.state.blocks
                yield now
            if now.finished:
                return
            stop.wait(0.5)

    @staticmethod
    def _observations(matches: Sequence[MatchRecord]) -> list[float]:
        """One paired score per round whose two blocks are both completely finished."""
        by_block: dict[tuple[int, int], list[MatchRecord]] = {}
        for m in matches:
            by_block.setdefault((m.round, m.table), []).append(m)
        out = []
        for rnd in sorted({r for r, _ in by_block}):
            a, b = by_block.get((rnd, 0), []), by_block.get((rnd, 1), [])
            if a and b and all(m.status is MatchStatus.FINISHED for m in (*a, *b)):
                out.append(sprt.paired(_score(a), _score(b)))
        return out


def _block(
    tid: str, entries: Sequence[int], rnd: int, table: int, seats: tuple[int, ...], seed: int
) -> list[NewMatch]:
    """Every rotation of one table; both tables of a round replay the round's one seed."""
    planned = plan_round(tid, entries, rnd, seed, [seats], 1)
    return [
        replace(nm, match_id=nm.match_id.replace(".t0.", f".t{table}."), table=table)
        for nm in planned
    ]


def _score(block: Sequence[MatchRecord]) -> float:
    """The tested bot's (A in table 0, B in table 1) average normalized place over a block."""
    places, players = [], 0
    for m in block:
        players = len(m.seats)
        seat = next(s for s in m.seats if s.seat == _tested_seat(m))
        places.append(seat.rank if seat.rank is not None else players - 1)
    return sprt.block_score(places, players)


def _tested_seat(m: MatchRecord) -> int:
    # rotation r of a table (tested, o1, ...) puts the tested bot in seat (-r) mod players
    return (-m.rotation) % len(m.seats)
