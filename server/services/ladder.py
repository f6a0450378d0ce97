"""The continuous ladder: blocks keep being scheduled for the bots that opted in.

Each game has one running ladder season, a tournament of format ``ladder`` that goes on until an
admin ends it (``hamlet ladder end GAME``): its seed and nonce are then revealed, like any
tournament's, and the next season starts for the bots on the ladder. Whenever a result arrives
(and on the reaper's beat) the server tops the running season up to
:data:`BLOCKS_IN_FLIGHT` open blocks. Each new block is the table of :data:`PLAYERS` opted-in
bots whose outcome is most uncertain under the live Elo (expected score nearest 1/2), never two
bots of one owner, no owner in more than :data:`OWNER_IN_FLIGHT` open blocks (the rate limit),
and not a table already being played (ties broken by seeded draws; the pick sorts by rating, see
:mod:`server.services.pairing`, so it stays cheap with thousands of bots on the ladder). A block
is every seat rotation with one seed, and its seed derives from the season's committed seed
like any tournament's.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np

from games import derive_seed
from hamlet.queues import queue_for
from server.services import commitments, consent, pairing
from server.services import validation as v
from server.services.caller import SYSTEM, Caller
from server.services.dispatch import Dispatcher, sent_of
from server.services.errors import InvalidArgumentError, NotFoundError
from server.services.quotas import Quota, QuotaService
from server.services.scheduling import Enqueuer
from server.services.timecontrol import RatedTimeControls
from server.services.tournaments import plan_round
from server.storage import BotRecord, NewTournament, Store, TournamentRecord, TournamentStatus
from server.storage.base import utcnow

LADDER = "ladder"
PLAYERS = 2  # the pick (server.services.pairing) makes pairs
BLOCKS_IN_FLIGHT = 4
OWNER_IN_FLIGHT = 2
SEASON_ROUNDS = 2**31 - 1  # never over: a round is one block


@dataclass(frozen=True, slots=True)
class LadderStatus:
    """A game's ladder: who is on it and how many blocks are open."""

    game: str
    tournament_id: str
    bots: tuple[str, ...]
    open_blocks: int
    blocks: int  # scheduled so far


def season_id(game: str, number: int) -> str:
    """The id of a game's ``number``-th ladder season."""
    return f"ladder-{game}-{number}"[:32]


class LadderService:
    """Joining, leaving and scheduling the ladder."""

    def __init__(
        self,
        store: Store,
        enqueuer: Enqueuer,
        rated_time_controls: RatedTimeControls | None = None,
        now: Callable[[], datetime] | None = None,
        on_block: Callable[[str], object] | None = None,
        dispatcher: Dispatcher | None = None,
        quotas: QuotaService | None = None,
    ) -> None:
        self.store = store
        self.enqueuer = enqueuer
        #: The ladder is rated play: each season plays its game's published time control.
        self.rated_time_controls = rated_time_controls or RatedTimeControls()
        self.now = now or utcnow
        #: Sends the season's blocks in the ladder's own fair share of the window.
        self.dispatcher = dispatcher or Dispatcher(store, enqueuer, now=self.now)
        self.on_block = on_block  # told the game of each block scheduled (a metric)
        self._lock = threading.Lock()  # one scheduler at a time in this process
        self.quotas = quotas or QuotaService(store)
        #: What the picks of the running top-up read (see _pool).
        self._read: tuple[list[tuple[int, tuple[str, ...]]], str, pairing.Pool] | None = None

    def join(self, bot: BotRecord, game: str, caller: Caller = SYSTEM) -> LadderStatus:
        """Opt a bot in and schedule. The ladder is rated: ``caller`` may put on it their own
        bots, and others' whose owners allow rated play (built-ins: admins only). A new entry
        counts against the caller's ladder entries (across games); joining again is free."""
        consent.check_ladder_entry(self.store, caller, bot, self.now())
        v.game_spec(game)
        if game not in bot.games:
            raise InvalidArgumentError(f"bot {bot.name!r} does not play {game}")
        if bot.retired:
            raise InvalidArgumentError(f"bot {bot.name!r} is retired")
        new = int(not self.store.on_ladder(game, bot.name))
        self.quotas.check(caller, Quota.LADDER_ENTRIES, new)  # before a season is made
        self._season(game)
        with self.quotas.guard(caller, {Quota.LADDER_ENTRIES: new}):
            self.store.set_ladder_entry(game, bot.name, True, self.now())
        self.tick(game)
        return self.status(game)

    def leave(self, bot: BotRecord, game: str) -> LadderStatus:
        """Opt a bot out; its open blocks are still played."""
        v.game_spec(game)
        self.store.set_ladder_entry(game, bot.name, False, self.now())
        return self.status(game)

    def status(self, game: str) -> LadderStatus:
        """Who is on the ladder and how busy its running season is."""
        v.game_spec(game)
        season = self._current(game)
        tid = season.tournament_id if season is not None else ""
        top = self.store.max_round(tid) if tid else None
        return LadderStatus(
            game,
            tid,
            tuple(self.store.ladder_names(game)),
            len(self.store.open_blocks(tid)) if tid else 0,
            0 if top is None else top + 1,
        )

    def end_season(self, game: str) -> LadderStatus:
        """End the running season (its open blocks are cancelled, its seed revealed) and start
        the next for the bots on the ladder."""
        v.game_spec(game)
        with self._lock:
            season = self._current(game)
            if season is not None:
                self.store.cancel_open_matches(season.tournament_id, self.now())
                self.store.set_tournament_status(
                    season.tournament_id, TournamentStatus.FINISHED, [TournamentStatus.RUNNING]
                )
            if self.store.ladder_entries(game):
                self._season(game)
        self.tick(game)
        return self.status(game)

    def after_result(self, tournament_id: str) -> None:
        """A match became final: top up that game's ladder if it is one."""
        if tournament_id.startswith("ladder-"):
            for game in self._games():
                season = self._current(game)
                if season is not None and season.tournament_id == tournament_id:
                    self.tick(game)

    def tick_all(self) -> None:
        """Top up every game's ladder."""
        for game in self._games():
            self.tick(game)

    def tick(self, game: str) -> list[str]:
        """Schedule blocks until :data:`BLOCKS_IN_FLIGHT` are open; the match ids queued."""
        with self._lock:
            return self._tick(game)

    def _tick(self, game: str) -> list[str]:
        season = self._current(game)
        if season is None:
            return []
        open_blocks = self.store.open_blocks(season.tournament_id)
        while len(open_blocks) < BLOCKS_IN_FLIGHT:
            table = self._pick(game, season, open_blocks)
            if table is None:
                break
            top = self.store.max_round(season.tournament_id)
            rnd = 0 if top is None else top + 1
            ids = tuple(b.version_id for b in table)
            runtimes = {b.version_id: b.runtime for b in table}
            matches = [
                replace(nm, queue=queue_for(runtimes[x] for x in nm.seat_version_ids))
                for nm in plan_round(
                    season.tournament_id, ids, rnd, season.seed, [tuple(range(len(ids)))], 1
                )
            ]
            rules = v.game_spec(game).rules_version
            if not self.store.add_matches(season.tournament_id, rules, matches):
                break  # another call scheduled this block number first
            open_blocks.append((rnd, tuple(b.name for b in table)))
            if self.on_block is not None:
                self.on_block(game)
        return sent_of(self.dispatcher.refill(), season.tournament_id)

    def _pick(
        self, game: str, season: TournamentRecord, open_blocks: list[tuple[int, tuple[str, ...]]]
    ) -> tuple[BotRecord, ...] | None:
        """The next table (see :mod:`server.services.pairing`): a few statements and
        O(n log n) work for n bots on the ladder."""
        pool = self._pool(game, open_blocks)
        busy: dict[str, int] = {}
        for _, names in open_blocks:
            for owner in {self._owner(pool, n) for n in names} - {""}:
                busy[owner] = busy.get(owner, 0) + 1
        playing = {frozenset(names) for _, names in open_blocks}
        # Ties are drawn afresh for each block, from the season's seed and the block's number.
        top = self.store.max_round(season.tournament_id)
        rng = np.random.default_rng(
            derive_seed(season.seed, "ladder", 0 if top is None else top + 1)
        )
        draws = rng.integers(0, 2**63, size=len(pool.bots), dtype=np.uint64)
        return pool.pick(draws, busy, playing, OWNER_IN_FLIGHT)

    @staticmethod
    def _owner(pool: pairing.Pool, name: str) -> str:
        """The owner of a bot on the ladder ("" for a built-in one or one no longer on it)."""
        k = pool.place.get(name)
        return "" if k is None else pool.bots[k].owner

    def _pool(self, game: str, open_blocks: list[tuple[int, tuple[str, ...]]]) -> pairing.Pool:
        """The bots on the ladder and their live ratings, read once per top-up: the picks of
        one top-up share its list of open blocks (the cache holds that very list, so a later
        top-up, with a list of its own, reads afresh)."""
        cached = self._read
        if cached is not None and cached[0] is open_blocks and cached[1] == game:
            return cached[2]
        entries = self.store.ladder_entries(game)
        pool = pairing.Pool(entries, {r.bot: r.rating for r in self.store.leaderboard(game)})
        self._read = (open_blocks, game, pool)
        return pool

    def _games(self) -> list[str]:
        import games

        return [g for g in games.names() if self._seasons(g)]

    def _seasons(self, game: str) -> int:
        """How many ladder seasons a game has had."""
        return self.store.count_tournaments(game, LADDER)

    def _current(self, game: str) -> TournamentRecord | None:
        return self.store.running_tournament(game, LADDER)

    def _season(self, game: str) -> TournamentRecord:
        found = self._current(game)
        if found is not None:
            return found
        spec = v.game_spec(game)
        clock = self.rated_time_controls.for_game(game)
        seed, salt = secrets.randbits(63), commitments.nonce()
        tid = season_id(game, self._seasons(game) + 1)
        self.store.create_tournament(
            NewTournament(
                tournament_id=tid,
                game=game,
                rules_version=spec.rules_version,
                format=LADDER,
                players_per_table=PLAYERS,
                rounds=SEASON_ROUNDS,
                seed=seed,
                decision_time_ms=clock.decision_ms,
                time_bank_ms=clock.bank_ms,
                rated=True,
                entry_version_ids=(),
                matches=(),
                seed_nonce=salt,
                seed_commitment=commitments.commitment(tid, salt, seed),
            )
        )
        self.store.set_tournament_status(tid, TournamentStatus.RUNNING, [TournamentStatus.CREATED])
        found = self.store.get_tournament(tid)
        if found is None:
            raise NotFoundError(f"the {game} ladder could not be created")
        return found
