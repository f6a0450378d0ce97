"""Tournaments: planning (round robin with seat rotations and duplicate seeds), start,
cancel, status, standings and watching.

``Standing`` (re-exported here) is one entry's line; pages of them are
:mod:`server.services.standings`."""

from __future__ import annotations

import math
import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from itertools import combinations

from games import derive_seed
from hamlet.queues import MATCH_QUEUE, queue_for
from server.services import commitments, consent, request_ids, swiss
from server.services import entries as entries_mod
from server.services import standings as standings_mod
from server.services import validation as v
from server.services.caller import SYSTEM, Caller
from server.services.dispatch import Dispatcher, sent_of
from server.services.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    UnavailableError,
)
from server.services.feed import TournamentFeed
from server.services.hygiene import round_robin_matches
from server.services.matchtime import DEFAULT_MAX_MATCH_SECONDS, check_time_control
from server.services.quotas import Quota, QuotaService
from server.services.scheduling import Enqueuer
from server.services.timecontrol import RatedTimeControls
from server.storage import (
    MatchRecord,
    MatchStatus,
    NewMatch,
    NewTournament,
    Store,
    TournamentRecord,
    TournamentStatus,
)
from server.storage.base import Standing as Standing
from server.storage.base import utcnow

ROUND_ROBIN = "round_robin"
#: One bot (the first named) against a field: every table is the bot and per_table - 1 others.
GAUNTLET = "gauntlet"
#: Bots of similar score meet, round after round: each round is paired when the last ends.
SWISS = "swiss"
FORMATS = (ROUND_ROBIN, GAUNTLET, SWISS)
MAX_BOTS = 64
MAX_ROUNDS = 1000
MAX_MATCHES = 20_000
MAX_DECISION_MS = 60_000
#: Each seat's time bank for overruns, as a multiple of the per-decision limit.
TIME_BANK_FACTOR = 10


@dataclass(frozen=True, slots=True)
class TournamentRequest:
    """What a user asks for; zero values mean "the default"."""

    game: str
    bots: tuple[str, ...]
    format: str = ROUND_ROBIN
    players_per_table: int = 0
    rounds: int = 0
    seed: int = 0
    decision_time_ms: int = 0
    rated: bool = True
    owner_id: int | None = None  # the creating user
    caller: Caller = SYSTEM  # who asks (consent and quotas apply to users, not the server)
    #: Makes a retry return the tournament its first attempt created (services.request_ids).
    client_request_id: str = ""


def format_tables(fmt: str, entries: int, per_table: int) -> list[tuple[int, ...]]:
    """The tables (entry indices, seat order of rotation 0) a format plays each round."""
    if fmt == GAUNTLET:
        return [(0, *rest) for rest in combinations(range(1, entries), per_table - 1)]
    return list(combinations(range(entries), per_table))


def plan_round_robin(
    tournament_id: str,
    entries: Sequence[int],
    per_table: int,
    rounds: int,
    seed: int,
    tables: Sequence[tuple[int, ...]] | None = None,
    queues: Sequence[str] | None = None,
) -> list[NewMatch]:
    """Every table (by default every ``per_table``-combination of entries), in every cyclic
    seat rotation, ``rounds`` times. All rotations of one table in one round share a seed (a
    duplicate block), so every bot meets the same shuffles and dice from every seat.
    ``queues``: each table's worker queue (by default the default queue)."""
    if tables is None:
        tables = format_tables(ROUND_ROBIN, len(entries), per_table)
    out = []
    for rnd in range(rounds):
        out += plan_round(tournament_id, entries, rnd, seed, tables, len(tables), queues)
    return out


def plan_round(
    tournament_id: str,
    entries: Sequence[int],
    rnd: int,
    seed: int,
    tables: Sequence[tuple[int, ...]],
    tables_per_round: int,
    queues: Sequence[str] | None = None,
) -> list[NewMatch]:
    """One round: each table in every cyclic seat rotation, one seed per table (and, given
    ``queues``, each table's worker queue)."""
    out = []
    for t, combo in enumerate(tables):
        table_seed = commitments.table_seed(seed, rnd, tables_per_round, t)
        queue = queues[t] if queues is not None else MATCH_QUEUE
        for rot in range(len(combo)):
            order = combo[rot:] + combo[:rot]
            out.append(
                NewMatch(
                    match_id=f"{tournament_id}.r{rnd}.t{t}.s{rot}",
                    round=rnd,
                    table=t,
                    rotation=rot,
                    seed=table_seed,
                    seat_version_ids=tuple(entries[i] for i in order),
                    queue=queue,
                )
            )
    return out


def swiss_order(seed: int, round_no: int, points: Sequence[float]) -> list[int]:
    """Entries best first by points, ties broken by the tournament's seed (fixed in advance)."""
    rng = random.Random(derive_seed(seed, "swiss", round_no))
    tiebreak = [rng.random() for _ in points]
    return sorted(range(len(points)), key=lambda i: (-points[i], tiebreak[i]))


def planned_matches(fmt: str, entries: int, per_table: int, rounds: int) -> int:
    """How many matches a format plans (before leaving out same-owner tables), computed
    without planning: tables per round x seat rotations x rounds."""
    if fmt == GAUNTLET:
        return math.comb(entries - 1, per_table - 1) * per_table * rounds
    if fmt == SWISS:
        return entries // per_table * per_table * rounds
    return round_robin_matches(entries, per_table, rounds)


def _seats(nm: NewMatch, t: TournamentRecord) -> list[int]:
    return [t.entry_version_ids.index(v) for v in nm.seat_version_ids]


class TournamentService:
    """Creating, running and following tournaments."""

    def __init__(
        self,
        store: Store,
        enqueuer: Enqueuer,
        default_decision_time_ms: int = 1000,
        now: Callable[[], datetime] | None = None,
        feed: TournamentFeed | None = None,
        dispatcher: Dispatcher | None = None,
        rated_time_controls: RatedTimeControls | None = None,
        quotas: QuotaService | None = None,
        max_match_seconds: float = DEFAULT_MAX_MATCH_SECONDS,
    ) -> None:
        self.store = store
        self.enqueuer = enqueuer
        self.default_decision_time_ms = default_decision_time_ms
        #: The longest a legal match may take: a time control needing more is refused.
        self.max_match_seconds = max_match_seconds
        #: What rated tournaments are played at (each game's published time control).
        self.rated_time_controls = rated_time_controls or RatedTimeControls()
        self.now = now or utcnow
        #: What sends started events' blocks to the queue (a window at a time, fairly).
        self.dispatcher = dispatcher or Dispatcher(store, enqueuer, now=self.now)
        #: Where status changes and cancelled matches are announced to watchers.
        self.feed = feed or TournamentFeed(store)
        self.quotas = quotas or QuotaService(store)

    def create(self, req: TournamentRequest) -> TournamentRecord:
        """Validate everything, then write the tournament and its matches (PENDING).

        With a client request id, a tournament the same caller already created with it is
        returned as it is (before any check: a retry is not refused for the quota the first
        attempt used)."""
        if not req.client_request_id:
            return self._create(req, "t" + secrets.token_hex(5))
        tournament_id = request_ids.event_id("t", req.owner_id, req.client_request_id)
        with request_ids.creating(tournament_id):  # concurrent retries: one creates
            existing = self.store.get_tournament(tournament_id)
            if existing is not None:
                return existing
            return self._create(req, tournament_id)

    def _create(self, req: TournamentRequest, tournament_id: str) -> TournamentRecord:
        spec = v.game_spec(req.game)
        rated_tc = self.rated_time_controls.for_game(req.game)
        if req.rated and req.decision_time_ms not in (0, rated_tc.decision_ms):
            raise InvalidArgumentError(
                f"rated play uses {req.game}'s published time control ({rated_tc.describe()}), "
                f"not decision_time_ms {req.decision_time_ms}: leave decision_time_ms at 0 (or "
                f"{rated_tc.decision_ms}), or make the tournament --unrated to choose your own"
            )
        if req.format not in FORMATS:
            raise InvalidArgumentError(
                f"unknown format {req.format!r}; supported: {', '.join(FORMATS)}"
            )
        if not req.bots:
            raise InvalidArgumentError("name at least two bots")
        if len(req.bots) > MAX_BOTS:
            raise InvalidArgumentError(
                f"at most {MAX_BOTS} bots per tournament, not {len(req.bots)}"
            )
        entries_mod.check_syntax(req.bots)
        # Every field is checked, and the size of the plan computed, before any lookup and
        # before planning: a refused request costs no more than this arithmetic.
        per_table = req.players_per_table or min(len(req.bots), spec.max_players)
        if not spec.min_players <= per_table <= spec.max_players:
            raise InvalidArgumentError(
                f"{req.game} is played by {spec.min_players} to {spec.max_players} players, "
                f"not {per_table}"
            )
        if per_table > len(req.bots):
            raise InvalidArgumentError(
                f"{per_table} players per table need at least {per_table} bots, got {len(req.bots)}"
            )
        default_rounds = 1
        if req.format == SWISS:  # enough rounds to separate the field
            default_rounds = max(1, math.ceil(math.log2(len(req.bots))))
        rounds = v.bounded("rounds", req.rounds or default_rounds, 1, MAX_ROUNDS)
        decision_ms = v.bounded(
            "decision_time_ms",
            req.decision_time_ms or self.default_decision_time_ms,
            1,
            MAX_DECISION_MS,
        )
        bank_ms = decision_ms * TIME_BANK_FACTOR
        if req.rated:
            decision_ms, bank_ms = rated_tc.decision_ms, rated_tc.bank_ms
        check_time_control(spec, per_table, decision_ms, bank_ms, self.max_match_seconds)
        seed = v.bounded("seed", req.seed, 0, v.MAX_SEED) or secrets.randbits(63)
        total = planned_matches(req.format, len(req.bots), per_table, rounds)
        if total > MAX_MATCHES:
            raise InvalidArgumentError(
                f"{len(req.bots)} bots at {per_table} per table for {rounds} rounds make "
                f"{total} matches; the limit is {MAX_MATCHES}: name fewer bots or rounds"
            )
        # The caller's quotas, before any lookup or planning (and again with the write).
        needs = {Quota.OPEN_EVENTS: 1, Quota.MATCHES_PER_DAY: total}
        self.quotas.check_all(req.caller, needs)
        resolved = entries_mod.resolve(self.store, req.game, req.bots)
        consent.check_entries(self.store, req.caller, resolved, req.rated, self.now())
        entries = [e.version_id for e in resolved]
        owners = [e.owner for e in resolved]
        runtimes = {e.version_id: e.runtime for e in resolved}
        tables = format_tables(req.format, len(entries), per_table)
        if req.format == SWISS:  # round 0 now, each next round when the last one ends
            first = swiss_order(seed, 0, [0.0] * len(entries))
            tables = swiss.pair(first, per_table, set(), owners if req.rated else None)
        if req.rated:
            # Ranked tables never seat two bots of one user (the system's built-ins aside).
            tables = [t for t in tables if not entries_mod.shares_owner(t, owners)]
            if not tables:
                raise InvalidArgumentError(
                    "every table would seat two bots of the same owner (two versions of one "
                    "bot count too); a rated tournament needs bots of different owners: make "
                    "it --unrated, or add other bots"
                )
        queues = [queue_for(runtimes[entries[i]] for i in table) for table in tables]
        matches = (
            plan_round(tournament_id, entries, 0, seed, tables, len(tables), queues)
            if req.format == SWISS
            else plan_round_robin(tournament_id, entries, per_table, rounds, seed, tables, queues)
        )
        salt = commitments.nonce()
        with self.quotas.guard(req.caller, needs):
            return self.store.create_tournament(
                NewTournament(
                    tournament_id=tournament_id,
                    game=req.game,
                    rules_version=spec.rules_version,
                    format=req.format,
                    players_per_table=per_table,
                    rounds=rounds,
                    seed=seed,
                    decision_time_ms=decision_ms,
                    time_bank_ms=bank_ms,
                    rated=req.rated,
                    entry_version_ids=tuple(entries),
                    matches=tuple(matches),
                    owner_id=req.owner_id,
                    seed_nonce=salt,
                    seed_commitment=commitments.commitment(tournament_id, salt, seed),
                    # Swiss plans a round at a time: it counts every round (tables x rounds).
                    planned_matches=total if req.format == SWISS else 0,
                )
            )

    def advance(self, tournament_id: str) -> list[str]:
        """Pair and queue a Swiss tournament's next round once every match of the last one is
        final (idempotent: called after each result, and by the reaper); the ids queued."""
        t = self.store.get_tournament(tournament_id)
        if t is None or t.format != SWISS or t.status is not TournamentStatus.RUNNING:
            return []
        matches = self.store.list_matches(tournament_id)
        if not matches or any(not m.status.final for m in matches):
            return []
        next_round = 1 + max(m.round for m in matches)
        if next_round >= t.rounds:
            return []
        # Entries by name@version: one bot may enter at several versions.
        names = list(t.bots)
        points = {s.bot: s.points for s in self.standings(tournament_id)}
        index = {name: i for i, name in enumerate(names)}
        played = {frozenset(index[entries_mod.seat_label(s)] for s in m.seats) for m in matches}
        rounds_in: dict[str, set[int]] = {}
        for m in matches:
            for seat in m.seats:
                rounds_in.setdefault(entries_mod.seat_label(seat), set()).add(m.round)
        byes = {i: next_round - len(rounds_in.get(n, ())) for n, i in index.items()}
        order = swiss_order(t.seed, next_round, [points.get(n, 0.0) for n in names])
        owners = list(t.entry_owners) if t.rated else None
        tables = swiss.pair(order, t.players_per_table, played, owners, byes)
        per_round = len(names) // t.players_per_table
        new = [
            replace(nm, queue=queue_for(t.entry_runtimes[i] for i in _seats(nm, t)))
            for nm in plan_round(
                tournament_id, t.entry_version_ids, next_round, t.seed, tables, per_round
            )
        ]
        if not self.store.add_matches(tournament_id, matches[0].rules_version, new):
            return []  # another call planned this round first
        return sent_of(self.dispatcher.refill(), tournament_id)

    def advance_all(self) -> None:
        """:meth:`advance` every running Swiss tournament (the reaper's safety net, should a
        server stop between a round's last result and the next round's pairing)."""
        for t in self.store.list_tournaments(1000):
            if t.format == SWISS and t.status is TournamentStatus.RUNNING:
                self.advance(t.tournament_id)

    def get(self, tournament_id: str) -> TournamentRecord:
        """A tournament, or NotFoundError."""
        v.identifier("tournament_id", tournament_id)
        found = self.store.get_tournament(tournament_id)
        if found is None:
            raise NotFoundError(f"unknown tournament {tournament_id!r}")
        return found

    def start(self, tournament_id: str) -> TournamentRecord:
        """Start a tournament: its matches wait PENDING and the dispatcher sends its blocks as
        the window has room, by fair share with everyone else's. Starting a running
        tournament changes nothing. If the broker does not answer, the tournament is left as
        it was (CREATED, startable again) and UnavailableError says so."""
        t = self.get(tournament_id)
        if t.status in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED):
            raise FailedPreconditionError(
                f"tournament {tournament_id} is {t.status.value}; create a new one"
            )
        if t.status is TournamentStatus.CREATED:
            if self.enqueuer.broker_epoch() is None:
                raise UnavailableError(
                    f"the queue's broker does not answer: tournament {tournament_id} was not "
                    "started; start it again when the broker is back"
                )
            if self.store.set_tournament_status(
                tournament_id, TournamentStatus.RUNNING, [TournamentStatus.CREATED]
            ):
                self.dispatcher.refill()
                self.feed.publish(tournament_id)
        return self.get(tournament_id)

    def start_created(self, created: TournamentRecord) -> TournamentRecord:
        """Start a tournament just created (CreateTournament with start). If the broker does
        not answer, the error says exactly what exists: the tournament, its id and status,
        and how to start it or retry without making another."""
        try:
            return self.start(created.tournament_id)
        except UnavailableError as exc:
            now = self.get(created.tournament_id)
            raise UnavailableError(
                f"tournament {now.tournament_id} was created (status {now.status.value}) but not "
                f"started: {exc}. Start it with `hamlet tournament start {now.tournament_id}`, "
                "or retry with the same client request id (that returns this tournament, not "
                "another)"
            ) from exc

    def cancel(self, tournament_id: str) -> TournamentRecord:
        """Cancel every match not yet final; played results stay."""
        t = self.get(tournament_id)
        if t.status is TournamentStatus.FINISHED:
            raise FailedPreconditionError(f"tournament {tournament_id} already finished")
        if t.status is not TournamentStatus.CANCELLED:
            with self.feed.recording(tournament_id):
                self.store.set_tournament_status(
                    tournament_id,
                    TournamentStatus.CANCELLED,
                    [TournamentStatus.CREATED, TournamentStatus.RUNNING],
                )
                if self.store.cancel_open_matches(tournament_id, self.now()):
                    cancelled = self.store.list_matches(tournament_id, [MatchStatus.CANCELLED])
                    self.feed.publish(tournament_id, cancelled)
                self.feed.publish(tournament_id)
            self.dispatcher.refill()  # its places in the window are free for others
        return self.get(tournament_id)

    def recent(self, limit: int = 50) -> list[TournamentRecord]:
        """Newest first."""
        return self.store.list_tournaments(v.bounded("limit", limit or 50, 1, 1000))

    def matches(self, tournament_id: str) -> list[MatchRecord]:
        """Every match of a tournament."""
        self.get(tournament_id)
        return self.store.list_matches(tournament_id)

    def standings(self, tournament_id: str) -> list[Standing]:
        """Every entry's (``name@version``) tally of finished matches, best first: points =
        players at the table - 1 - rank (kept as results are recorded)."""
        return standings_mod.every_line(self.store, tournament_id)

    def standings_page(
        self, tournament_id: str, page_size: int = 0, page_token: str = ""
    ) -> standings_mod.StandingsPage:
        """One page of a tournament's standings (see :mod:`server.services.standings`)."""
        return standings_mod.page(self.store, tournament_id, page_size, page_token)
