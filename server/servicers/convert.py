"""Storage/service values -> protobuf messages (the servicers' translation layer).

The ranked-play messages (leaderboards, SPRT status, the ladder) are built in
:mod:`server.servicers.convert_ranked` and re-exported here: callers use ``convert.*``.
"""

from __future__ import annotations

import json
from datetime import datetime

import games
from hamlet import codec
from hamlet.v1 import arena_pb2, common_pb2
from server.ratings.intervals import Line
from server.servicers.convert_consent import invitation as invitation
from server.servicers.convert_consent import permission as permission
from server.servicers.convert_consent import permission_from as permission_from
from server.servicers.convert_consent import time_control as time_control
from server.servicers.convert_ranked import ladder as ladder
from server.servicers.convert_ranked import leaderboard as leaderboard
from server.servicers.convert_ranked import sprt_status as sprt_status
from server.services.forfeits import public_detail
from server.services.history import History
from server.services.quotas import QuotaReport
from server.services.replays import ReplayStep
from server.services.seattraces import SeatStep, SeatView
from server.services.standings import StandingsPage
from server.services.timecontrol import TimeControl
from server.storage import (
    BotRecord,
    BotVersionRecord,
    DecisionRecord,
    MatchRecord,
    MatchStatus,
    TokenRecord,
    TournamentRecord,
    UserRecord,
)

_MATCH_STATUS = {
    MatchStatus.PENDING: common_pb2.MATCH_STATUS_PENDING,
    MatchStatus.QUEUED: common_pb2.MATCH_STATUS_QUEUED,
    MatchStatus.RUNNING: common_pb2.MATCH_STATUS_RUNNING,
    MatchStatus.FINISHED: common_pb2.MATCH_STATUS_FINISHED,
    MatchStatus.CANCELLED: common_pb2.MATCH_STATUS_CANCELLED,
    MatchStatus.FAILED: common_pb2.MATCH_STATUS_FAILED,
}


_FORMAT = {
    "round_robin": common_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN,
    "gauntlet": common_pb2.TOURNAMENT_FORMAT_GAUNTLET,
    "swiss": common_pb2.TOURNAMENT_FORMAT_SWISS,
    "ladder": common_pb2.TOURNAMENT_FORMAT_LADDER,
    "sprt": common_pb2.TOURNAMENT_FORMAT_SPRT,
}


def iso(when: datetime | None) -> str:
    """ISO 8601 UTC, empty for ``None``."""
    return "" if when is None else when.isoformat(timespec="seconds") + "Z"


def game(spec: games.GameSpec, rated: TimeControl | None = None) -> common_pb2.Game:
    """A game's public facts (and its rated time control, when given)."""
    return common_pb2.Game(
        name=spec.name,
        display_name=spec.display_name,
        min_players=spec.min_players,
        max_players=spec.max_players,
        rules_version=spec.rules_version,
        max_decisions=spec.max_decisions,
        rated_time_control=time_control(rated) if rated else None,
    )


def bot(record: BotRecord) -> arena_pb2.BotInfo:
    """A bot line."""
    return arena_pb2.BotInfo(
        name=record.name,
        origin=_origin(record.origin),
        games=list(record.games),
        description=record.description,
        latest_version=record.latest_version,
        retired=record.retired,
        code_sha256=record.code_sha256,
        created_at=iso(record.created_at),
        owner=record.owner,
        endpoint=record.endpoint,
        permission=permission(record.permission),
    )


_ORIGINS = {
    "builtin": arena_pb2.BOT_ORIGIN_BUILTIN,
    "uploaded": arena_pb2.BOT_ORIGIN_UPLOADED,
    "remote": arena_pb2.BOT_ORIGIN_REMOTE,
}


def _origin(origin: str) -> arena_pb2.BotOrigin.ValueType:
    return _ORIGINS.get(origin, arena_pb2.BOT_ORIGIN_UNSPECIFIED)


def bot_version(
    record: BotVersionRecord, lines: dict[tuple[str, int], Line] | None = None
) -> arena_pb2.BotVersion:
    """One version of a bot, with its published lines (by (game, version)) when given."""
    return arena_pb2.BotVersion(
        bot_name=record.name,
        version=record.version,
        created_at=iso(record.created_at),
        runtime=record.runtime,
        code_sha256=record.code_sha256,
        description=record.description,
        owner=record.owner,
        origin=_origin(record.origin),
        games=list(record.games),
        latest=record.latest,
        retired=record.retired,
        matches=record.matches,
        ratings=[
            arena_pb2.VersionRating(
                game=game,
                rating=line.rating,
                low=line.low,
                high=line.high,
                games=line.games,
                provisional=line.provisional,
            )
            for (game, version), line in sorted((lines or {}).items())
            if version == record.version
        ],
    )


def user(record: UserRecord) -> arena_pb2.User:
    """A user."""
    return arena_pb2.User(name=record.name, admin=record.admin, created_at=iso(record.created_at))


def token_info(record: TokenRecord) -> arena_pb2.TokenInfo:
    """A token as listed (never its secret)."""
    return arena_pb2.TokenInfo(
        token_id=record.token_id,
        user=record.user.name,
        scopes=list(record.scopes),
        label=record.label,
        created_at=iso(record.created_at),
        expires_at=iso(record.expires_at),
        revoked_at=iso(record.revoked_at),
        parent_token_id=record.parent_id or "",
    )


def match(record: MatchRecord, reveal_seed: bool = True) -> common_pb2.Match:
    """A match with its seats (seed 0 while it is not published)."""
    return common_pb2.Match(
        match_id=record.match_id,
        tournament_id=record.tournament_id,
        game=record.game,
        rules_version=record.rules_version,
        seed=record.seed if reveal_seed else 0,
        status=_MATCH_STATUS[record.status],
        seats=[
            common_pb2.Seat(
                seat=s.seat,
                bot_name=s.bot_name,
                bot_version=s.bot_version,
                score=s.score or 0,
                rank=s.rank or 0,
                forfeit_reason=s.forfeit_reason,
                # never the bot's own output, even of a match recorded before that rule
                forfeit_detail=public_detail(s.forfeit_reason, s.forfeit_detail),
                # where it happened is part of the log: withheld with it
                forfeit_decision=(s.forfeit_at + 1)
                if reveal_seed and s.forfeit_reason and s.forfeit_at is not None
                else 0,
            )
            for s in record.seats
        ],
        round=record.round,
        table=record.table,
        rotation=record.rotation,
        attempts=record.attempts,
        decision_count=record.decision_count,
        duration_seconds=record.duration_seconds,
        finished_at=iso(record.finished_at),
        void_reason=record.void_reason,
    )


def decision(record: DecisionRecord) -> common_pb2.Decision:
    """One logged decision."""
    return common_pb2.Decision(
        index=record.index,
        player=record.player,
        legal_count=record.legal_count,
        action_json=record.action_json,
        action_text=record.action_text,
        seconds=record.seconds,
        by_fallback=record.by_fallback,
    )


def tournament(
    record: TournamentRecord, standings: StandingsPage | None = None
) -> arena_pb2.Tournament:
    """A tournament with its progress (and a page of its standings when given)."""
    c = record.counts
    lines = standings.lines if standings is not None else ()
    return arena_pb2.Tournament(
        tournament_id=record.tournament_id,
        game=record.game,
        format=_FORMAT.get(record.format, common_pb2.TOURNAMENT_FORMAT_UNSPECIFIED),
        status=common_pb2.TournamentStatus.Value(f"TOURNAMENT_STATUS_{record.status.name}"),
        bots=list(record.bots),
        players_per_table=record.players_per_table,
        rounds=record.rounds,
        # the seed and the commitment's nonce are revealed when the tournament is over
        seed=record.seed if record.status.final else 0,
        seed_commitment=record.seed_commitment,
        seed_nonce=record.seed_nonce if record.status.final else "",
        decision_time_ms=record.decision_time_ms,
        rated=record.rated,
        matches_total=record.matches_total,
        matches_finished=c.get(MatchStatus.FINISHED, 0),
        matches_running=c.get(MatchStatus.RUNNING, 0),
        matches_cancelled=c.get(MatchStatus.CANCELLED, 0),
        matches_failed=c.get(MatchStatus.FAILED, 0),
        created_at=iso(record.created_at),
        finished_at=iso(record.finished_at),
        owner=record.owner,
        standings=[
            arena_pb2.Standing(
                bot_name=s.bot,
                matches=s.matches,
                wins=s.wins,
                draws=s.draws,
                losses=s.losses,
                points=s.points,
                forfeits=s.forfeits,
            )
            for s in lines
        ],
        standings_total=standings.total if standings is not None else 0,
        standings_next_page_token=standings.next_page_token if standings is not None else "",
    )


def history(data: History) -> arena_pb2.BotHistory:
    """A bot's rating over time and its record per opponent."""
    return arena_pb2.BotHistory(
        name=data.bot,
        game=data.game,
        points=[
            arena_pb2.RatingPoint(
                match_id=p.match_id,
                recorded_at=iso(p.recorded_at),
                rating=p.rating,
                rank=p.rank,
                players=p.players,
            )
            for p in data.points
        ],
        opponents=[
            arena_pb2.OpponentRecord(
                bot_name=r.opponent, games=r.games, wins=r.wins, draws=r.draws, losses=r.losses
            )
            for r in data.opponents
        ],
    )


def replay_step(game_name: str, s: ReplayStep) -> common_pb2.ReplayStep:
    """One replayed decision: typed action (when the game has wire messages), its JSON, and
    the public state after it (GetReplay sends them a page at a time:
    :mod:`server.servicers.replay_pages`)."""
    return common_pb2.ReplayStep(
        index=s.index,
        player=s.player,
        legal_count=s.legal_count,
        action_text=s.action_text,
        action=_typed_action(game_name, s.action),
        by_fallback=s.by_fallback,
        public_state=codec.dict_to_struct(s.public_state),
        action_json=json.dumps(games.action_to_dict(s.action), sort_keys=True),
    )


def seat_view(view: SeatView) -> common_pb2.SeatView:
    """A seat's own view: per decision the request it was sent (typed when the game has wire
    messages, and always as JSON), its answer, time, stderr and fault."""
    seat = view.match.seats[view.seat]
    return common_pb2.SeatView(
        seat=view.seat,
        bot_name=seat.bot_name,
        decisions=[_seat_decision(view, s) for s in view.steps],
        stderr_tail=view.stderr_tail,
        traced=view.traced,
        dropped=view.dropped,
    )


def _seat_decision(view: SeatView, s: SeatStep) -> common_pb2.SeatDecision:
    g = view.match.game
    try:
        request: common_pb2.DecisionRequest | None = codec.decision_request(
            g,
            view.match.match_id,
            view.seat,
            s.number - 1,
            s.observation,
            list(s.legal),
            s.time_left_ms,
        )
    except codec.CodecError:
        request = None
    return common_pb2.SeatDecision(
        number=s.number,
        index=s.index,
        request=request,
        legal_text=[str(a) for a in s.legal],
        chosen=s.chosen,
        by_fallback=s.by_fallback,
        traced=s.traced,
        answer=s.answer,
        seconds=s.seconds,
        stderr=s.stderr,
        fault=s.fault,
        observation=codec.dict_to_struct(s.observation),
        legal_json=[json.dumps(games.action_to_dict(a), sort_keys=True) for a in s.legal],
    )


def _typed_action(game_name: str, action: games.Action) -> common_pb2.GameAction | None:
    try:
        return codec.game_action(game_name, action)
    except codec.CodecError:
        return None


def quota(report: QuotaReport) -> arena_pb2.Quota:
    """A user's quotas, one item per limit."""
    return arena_pb2.Quota(
        user=report.user,
        exempt=report.exempt,
        items=[
            arena_pb2.QuotaItem(
                name=q.name,
                description=q.description,
                limit=q.limit,
                used=q.used,
                unit=q.unit,
                resets=q.resets,
            )
            for q in report.lines
        ],
    )
