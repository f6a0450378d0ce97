"""The public ``Arena`` service: translate, delegate, translate back."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import grpc

import games
from hamlet.v1 import arena_pb2, arena_pb2_grpc, common_pb2
from server.auth import caller, current_principal, policy
from server.servicers import convert
from server.servicers.arena_accounts import AccountRpcs
from server.servicers.arena_consent import ConsentRpcs
from server.servicers.arena_quota import QuotaRpcs
from server.servicers.arena_ranked import RankedRpcs
from server.servicers.errors import stream, unary
from server.servicers.gate import StreamClient, StreamGate
from server.servicers.replay_pages import DEFAULT_REPLAY_CACHE_BYTES, ReplayPages
from server.services import seattraces
from server.services import validation as v
from server.services.accounts import AccountService
from server.services.bots import BotService
from server.services.errors import InvalidArgumentError
from server.services.feed import MatchEvent, follow
from server.services.headtohead import HeadToHeadService
from server.services.history import HistoryService
from server.services.invitations import InvitationService
from server.services.ladder import LadderService
from server.services.leaderboards import LeaderboardService
from server.services.listing import MatchListing
from server.services.matches import MatchService
from server.services.quotas import QuotaService
from server.services.remote_bots import RemoteBotService
from server.services.tournaments import (
    GAUNTLET,
    ROUND_ROBIN,
    SWISS,
    TournamentRequest,
    TournamentService,
)
from server.storage import MatchRecord, Store, TournamentRecord

_FORMATS = {
    common_pb2.TOURNAMENT_FORMAT_UNSPECIFIED: ROUND_ROBIN,
    common_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN: ROUND_ROBIN,
    common_pb2.TOURNAMENT_FORMAT_GAUNTLET: GAUNTLET,
    common_pb2.TOURNAMENT_FORMAT_SWISS: SWISS,
}


class ArenaServicer(AccountRpcs, RankedRpcs, ConsentRpcs, QuotaRpcs, arena_pb2_grpc.ArenaServicer):
    """Games, bots, tournaments, matches, replays and leaderboards."""

    def __init__(
        self,
        store: Store,
        bots: BotService,
        tournaments: TournamentService,
        matches: MatchService,
        accounts: AccountService,
        leaderboards: LeaderboardService,
        history: HistoryService,
        ladder: LadderService,
        tests: HeadToHeadService,
        remote: RemoteBotService,
        streams: StreamGate | None = None,
        invitations: InvitationService | None = None,
        quotas: QuotaService | None = None,
        replays: ReplayPages | None = None,
    ) -> None:
        self.store = store
        self.bots = bots
        self.tournaments = tournaments
        self.matches = matches
        self.accounts = accounts
        self.leaderboards = leaderboards
        self.history = history
        self.ladder = ladder
        self.tests = tests
        self.remote = remote
        self.invitations = invitations or InvitationService(store)
        self.listing = MatchListing(store)
        self.streams = streams or StreamGate(16)
        self.quotas = quotas or bots.quotas
        #: GetReplay's pages, from replays cached by match id once final.
        self.replays = replays or ReplayPages(DEFAULT_REPLAY_CACHE_BYTES)
        self._event_lock = threading.Lock()
        self._events: dict[
            tuple[int, int],
            tuple[TournamentRecord, MatchEvent | None, arena_pb2.TournamentEvent],
        ] = {}

    @unary
    def ListGames(
        self, request: arena_pb2.ListGamesRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ListGamesResponse:
        clocks = self.tournaments.rated_time_controls
        return arena_pb2.ListGamesResponse(
            games=[convert.game(games.get(n), clocks.for_game(n)) for n in games.names()]
        )

    @unary
    def ListBots(
        self, request: arena_pb2.ListBotsRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ListBotsResponse:
        found = self.bots.find(request.game, request.include_retired)
        return arena_pb2.ListBotsResponse(bots=[convert.bot(b) for b in found])

    @unary
    def SubmitBot(
        self, request: arena_pb2.SubmitBotRequest, context: grpc.ServicerContext
    ) -> arena_pb2.SubmitBotResponse:
        owner_id = self._may_add_version(request.name)
        done = self.bots.submit(
            request.name,
            request.game,
            request.source,
            request.description,
            owner_id,
            request.archive,
            caller(),
        )
        return arena_pb2.SubmitBotResponse(
            bot=convert.bot(done.bot),
            version=done.bot.latest_version,
            code_sha256=done.bot.code_sha256,
            created=done.created,
        )

    @unary
    def RegisterRemoteBot(
        self, request: arena_pb2.RegisterRemoteBotRequest, context: grpc.ServicerContext
    ) -> arena_pb2.RegisterRemoteBotResponse:
        owner_id = self._may_add_version(request.name)
        done = self.remote.register(
            request.name,
            request.game,
            request.endpoint,
            request.description,
            request.ca_cert_pem,
            owner_id,
            caller(),
        )
        return arena_pb2.RegisterRemoteBotResponse(
            bot=convert.bot(done.bot),
            version=done.bot.latest_version,
            created=done.created,
            checked_address=done.checked_address,
        )

    @unary
    def RetireBot(
        self, request: arena_pb2.RetireBotRequest, context: grpc.ServicerContext
    ) -> arena_pb2.BotInfo:
        bot = self.bots.get(request.name)
        policy.check_bot_change(current_principal(), bot.name, bot.origin, bot.owner, "retire")
        return convert.bot(self.bots.retire(request.name))

    @unary
    def ListBotVersions(
        self, request: arena_pb2.ListBotVersionsRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ListBotVersionsResponse:
        found = self.bots.versions(request.name)
        bot = self.bots.get(request.name)
        lines = self.leaderboards.lines_of(bot.name, bot.games)
        return arena_pb2.ListBotVersionsResponse(
            bot=convert.bot(bot), versions=[convert.bot_version(r, lines) for r in found]
        )

    @unary
    def GetBotVersion(
        self, request: arena_pb2.GetBotVersionRequest, context: grpc.ServicerContext
    ) -> arena_pb2.BotVersion:
        found = self.bots.version(request.bot)
        return convert.bot_version(found, self.leaderboards.lines_of(found.name, found.games))

    @unary
    def RestoreBot(
        self, request: arena_pb2.RetireBotRequest, context: grpc.ServicerContext
    ) -> arena_pb2.BotInfo:
        bot = self.bots.get(request.name)
        policy.check_bot_change(current_principal(), bot.name, bot.origin, bot.owner, "restore")
        return convert.bot(self.bots.retire(request.name, retired=False, caller=caller()))

    @unary
    def CreateTournament(
        self, request: arena_pb2.CreateTournamentRequest, context: grpc.ServicerContext
    ) -> arena_pb2.Tournament:
        fmt = _FORMATS.get(request.format)
        if fmt is None:
            raise InvalidArgumentError(f"unsupported tournament format {request.format}")
        created = self.tournaments.create(
            TournamentRequest(
                game=request.game,
                bots=tuple(request.bots),
                format=fmt,
                players_per_table=request.players_per_table,
                rounds=request.rounds,
                seed=request.seed,
                decision_time_ms=request.decision_time_ms,
                rated=request.rated,
                owner_id=current_principal().user_id,
                caller=caller(),
                client_request_id=request.client_request_id,
            )
        )
        if request.start:
            created = self.tournaments.start_created(created)
        return convert.tournament(created)

    @unary
    def StartTournament(
        self, request: arena_pb2.TournamentRef, context: grpc.ServicerContext
    ) -> arena_pb2.Tournament:
        self._may_change(request.tournament_id, "start")
        return self._with_standings(self.tournaments.start(request.tournament_id).tournament_id)

    @unary
    def CancelTournament(
        self, request: arena_pb2.TournamentRef, context: grpc.ServicerContext
    ) -> arena_pb2.Tournament:
        self._may_change(request.tournament_id, "cancel")
        return self._with_standings(self.tournaments.cancel(request.tournament_id).tournament_id)

    @unary
    def GetTournament(
        self, request: arena_pb2.TournamentRef, context: grpc.ServicerContext
    ) -> arena_pb2.Tournament:
        return self._with_standings(
            request.tournament_id, request.standings_page_size, request.standings_page_token
        )

    @unary
    def ListTournaments(
        self, request: arena_pb2.ListTournamentsRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ListTournamentsResponse:
        if request.limit < 0:
            raise InvalidArgumentError("limit must not be negative")
        found = self.tournaments.recent(request.limit)
        return arena_pb2.ListTournamentsResponse(tournaments=[convert.tournament(t) for t in found])

    @unary
    def ListMatches(
        self, request: arena_pb2.ListMatchesRequest, context: grpc.ServicerContext
    ) -> arena_pb2.ListMatchesResponse:
        page = self.listing.page(request.tournament_id, request.page_size, request.page_token)
        return arena_pb2.ListMatchesResponse(
            matches=[convert.match(m, published) for m, published in page.matches],
            next_page_token=page.next_page_token,
            total=page.total,
        )

    @stream
    def WatchTournament(
        self, request: arena_pb2.WatchTournamentRequest, context: grpc.ServicerContext
    ) -> Iterator[arena_pb2.TournamentEvent]:
        self.tournaments.get(request.tournament_id)  # NOT_FOUND before taking a place
        stop = threading.Event()
        context.add_callback(stop.set)
        with self.streams.hold(StreamClient.of_call(context), stop) as place:
            feed = self.matches.feed
            events = follow(feed, request.tournament_id, request.include_finished, stop)
            for record, match in events:
                place.touch()
                yield self._event(record, match)

    @unary
    def GetMatch(
        self, request: arena_pb2.MatchRef, context: grpc.ServicerContext
    ) -> arena_pb2.MatchDetail:
        match, decisions = self.matches.detail(request.match_id)
        detail = arena_pb2.MatchDetail(
            match=convert.match(match, self.matches.published(match)),
            decisions=[convert.decision(d) for d in decisions],
        )
        if request.HasField("seat"):
            detail.seat_view.CopyFrom(self._seat_view(match, request.seat))
        return detail

    @unary
    def GetReplay(
        self, request: arena_pb2.MatchRef, context: grpc.ServicerContext
    ) -> common_pb2.Replay:
        match = self.matches.get(request.match_id)
        if request.HasField("seat"):  # who may see it, before any replaying
            view = self._seat_view(match, request.seat)
        replay = self.replays.page(
            match,
            self.matches.published(match),
            lambda: self.matches.replay(request.match_id),
            request.first_step,
            request.max_steps,
        )
        if request.HasField("seat"):
            replay.seat_view.CopyFrom(view)
        return replay

    def _seat_view(self, match: MatchRecord, seat: int) -> common_pb2.SeatView:
        """A seat's own view, for its bot's owner or an admin only."""
        if not 0 <= seat < len(match.seats):
            raise InvalidArgumentError(
                f"match {match.match_id} has seats 0..{len(match.seats) - 1}, not {seat}"
            )
        bot = self.bots.get(match.seats[seat].bot_name)
        policy.check_seat_view(current_principal(), seat, bot.name, bot.origin, bot.owner)
        published = self.matches.published(match)
        return convert.seat_view(seattraces.seat_view(self.store, match, seat, published))

    @unary
    def GetLeaderboard(
        self, request: arena_pb2.GetLeaderboardRequest, context: grpc.ServicerContext
    ) -> arena_pb2.Leaderboard:
        published = self.leaderboards.published(request.game, request.rules_version)
        return convert.leaderboard(
            request.game,
            self.store.leaderboard(request.game),
            published,
            request.version_lines,
            self.tournaments.rated_time_controls.for_game(request.game),
        )

    @unary
    def GetBotHistory(
        self, request: arena_pb2.BotHistoryRequest, context: grpc.ServicerContext
    ) -> arena_pb2.BotHistory:
        return convert.history(self.history.history(request.name, request.game))

    def _event(
        self, record: TournamentRecord, match: MatchEvent | None
    ) -> arena_pb2.TournamentEvent:
        """An event as sent: converted once, however many streams send it (the feed hands
        every stream the same snapshot and event objects)."""
        key = (id(record), id(match))
        with self._event_lock:
            cached = self._events.get(key)
            if cached is not None and cached[0] is record and cached[1] is match:
                return cached[2]
        event = arena_pb2.TournamentEvent(tournament=convert.tournament(record))
        if match is not None:
            event.match.CopyFrom(convert.match(match.match, match.published))
        with self._event_lock:
            self._events[key] = (record, match, event)
            while len(self._events) > 1024:
                self._events.pop(next(iter(self._events)))
        return event

    def _may_add_version(self, name: str) -> int:
        """The caller's user id, if they may add a version of bot ``name`` (a new name is
        theirs to take; an existing bot only its owner's or an admin's)."""
        who = current_principal()
        v.bot_name(name)
        existing = self.store.get_bot(name)
        if existing is not None:
            policy.check_bot_change(
                who, existing.name, existing.origin, existing.owner, "add versions to"
            )
        assert who.user_id is not None  # the method table requires a user's token
        return who.user_id

    def _may_change(self, tournament_id: str, what: str) -> None:
        record = self.tournaments.get(tournament_id)
        policy.check_tournament_change(current_principal(), tournament_id, record.owner, what)

    def _with_standings(
        self, tournament_id: str, page_size: int = 0, page_token: str = ""
    ) -> arena_pb2.Tournament:
        """A tournament with a page of its standings (the first unless a token is given)."""
        record = self.tournaments.get(tournament_id)
        page = self.tournaments.standings_page(tournament_id, page_size, page_token)
        return convert.tournament(record, page)
