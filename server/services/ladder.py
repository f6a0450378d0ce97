"""The continuous ladder: blocks keep being scheduled for the bots that opted in.

Each game has one running ladder season, a tournament of format ``ladder`` that goes on until an
admin ends it (``hamlet ladder end GAME``): its seed and nonce are then revealed, like any
tournament's, and the next season starts for the bots on the ladder. Whenever a result arrives
(and on the reaper's beat) the server tops the running season up to
:data:`BLOCKS_IN_FLIGHT` open blocks. Each new block is the table of :data:`PLAYERS` opted-in
bots whose outcome is most uncertain under the live Elo (expected score nearest 1/2), never two
bots of one owner, no owner in more than :data:`OWNER_IN_FLIGHT` open blocks (the rate limit),
and not a table already being played. A block is every seat rotation with one seed, and its
seed derives from the season's committed seed like any tournament's.
"""

from __future__ import annotations

import random
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from itertools import combinations

from games import derive_seed
from hamlet.queues import queue_for
from server import elo
from server.services import commitments, consent
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
PLAYERS = 2
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
            tuple(b.name for b in self.store.ladder_entries(game)),
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
        entries = self.store.ladder_entries(game)
        ratings = {r.bot: r.rating for r in self.store.leaderboard(game)}
        busy: dict[str, int] = {}
        for _, names in open_blocks:
            for owner in {self._owner(entries, n) for n in names} - {""}:
                busy[owner] = busy.get(owner, 0) + 1
        playing = {frozenset(names) for _, names in open_blocks}
        rng = random.Random(derive_seed(season.seed, "ladder", len(open_blocks)))
        best: tuple[float, float, tuple[BotRecord, ...]] | None = None
        for table in combinations(entries, PLAYERS):
            owners = [b.owner for b in table if b.owner]
            if len(owners) != len(set(owners)) or any(
                busy.get(o, 0) >= OWNER_IN_FLIGHT for o in owners
            ):
                continue
            if frozenset(b.name for b in table) in playing:
                continue
            a, b = (ratings.get(x.name, elo.INITIAL_RATING) for x in table)
            uncertainty = abs(elo.expected_score(a, b) - 0.5)
            key = (uncertainty, rng.random(), table)
            if best is None or key[:2] < best[:2]:
                best = key
        return None if best is None else best[2]

    @staticmethod
    def _owner(entries: list[BotRecord], name: str) -> str:
        return next((b.owner for b in entries if b.name == name), "")

    def _games(self) -> list[str]:
        import games

        return [g for g in games.names() if self._seasons(g)]

    def _seasons(self, game: str) -> list[TournamentRecord]:
        """A game's ladder seasons, newest first."""
        return [
            t for t in self.store.list_tournaments(1000) if t.format == LADDER and t.game == game
        ]

    def _current(self, game: str) -> TournamentRecord | None:
        return next((t for t in self._seasons(game) if t.status is TournamentStatus.RUNNING), None)

    def _season(self, game: str) -> TournamentRecord:
        found = self._current(game)
        if found is not None:
            return found
        spec = v.game_spec(game)
        clock = self.rated_time_controls.for_game(game)
        seed, salt = secrets.randbits(63), commitments.nonce()
        tid = season_id(game, len(self._seasons(game)) + 1)
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
