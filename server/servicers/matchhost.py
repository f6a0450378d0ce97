"""The internal ``MatchHost`` service workers call: claim, report, fetch code, announce."""

from __future__ import annotations

from collections.abc import Mapping

import grpc

from hamlet.v1 import worker_pb2, worker_pb2_grpc
from server.metrics import ServerMetrics
from server.servicers.errors import unary
from server.services import validation as v
from server.services.bots import BotService, BuiltinBot
from server.services.claims import MAX_BLOCK, Claim
from server.services.dispatch import Dispatcher
from server.services.errors import InvalidArgumentError, ServiceError
from server.services.hygiene import strip_nul
from server.services.matches import MatchService, Report
from server.services.remote_bots import Pin, RemoteBotService
from server.services.seattraces import MAX_TRACE_BYTES
from server.storage import (
    DecisionRecord,
    MatchRecord,
    MatchStatus,
    Outcome,
    SeatOutcome,
    SeatRecord,
    SeatTraceRecord,
    TracedStep,
)

_FORFEIT = {
    worker_pb2.FORFEIT_REASON_UNSPECIFIED: "",
    worker_pb2.FORFEIT_REASON_CRASH: "crash",
    worker_pb2.FORFEIT_REASON_TIMEOUT: "timeout",
    worker_pb2.FORFEIT_REASON_ILLEGAL_ACTION: "illegal_action",
    worker_pb2.FORFEIT_REASON_BAD_OUTPUT: "bad_output",
    worker_pb2.FORFEIT_REASON_UNREACHABLE: "unreachable",
}
_KIND = {
    "builtin": worker_pb2.BOT_KIND_BUILTIN,
    "uploaded": worker_pb2.BOT_KIND_UPLOADED,
    "remote": worker_pb2.BOT_KIND_REMOTE,
}
MAX_VOID_REASON = 2000


def match_spec(match: MatchRecord, pins: Mapping[int, Pin] | None = None) -> worker_pb2.MatchSpec:
    """What a worker needs to play a match; ``pins``: by seat, where its remote bot is."""
    pins = pins or {}
    return worker_pb2.MatchSpec(
        match_id=match.match_id,
        game=match.game,
        rules_version=match.rules_version,
        seed=match.seed,
        seats=[_seat_spec(s, pins.get(s.seat)) for s in match.seats],
        decision_time_ms=match.decision_time_ms,
        time_bank_ms=match.time_bank_ms,
    )


def _seat_spec(seat: SeatRecord, pin: Pin | None) -> worker_pb2.SeatSpec:
    spec = worker_pb2.SeatSpec(
        seat=seat.seat,
        bot_name=seat.bot_name,
        bot_version=seat.bot_version,
        kind=_KIND.get(seat.origin, worker_pb2.BOT_KIND_UNSPECIFIED),
        code_sha256=seat.code_sha256,
    )
    if pin is not None:
        spec.endpoint = pin.address
        spec.tls = pin.tls
        spec.ca_cert_pem = seat.ca_pem
        spec.tls_server_name = pin.server_name
        spec.endpoint_url = seat.endpoint
        spec.unreachable = pin.unreachable
    return spec


def outcome_from_proto(msg: worker_pb2.MatchOutcome) -> Outcome:
    """A worker's outcome as a storage value (checked against the match by the service)."""
    n = len(msg.scores)
    if len(msg.ranks) != n:
        raise InvalidArgumentError(f"{n} scores but {len(msg.ranks)} ranks")
    forfeits = {}
    for f in msg.forfeits:
        if not 0 <= f.seat < n:
            raise InvalidArgumentError(f"forfeit for seat {f.seat}, which is not a seat")
        reason = _FORFEIT.get(f.reason)
        if not reason:
            raise InvalidArgumentError(f"forfeit of seat {f.seat} has no valid reason")
        forfeits[f.seat] = SeatOutcome(0, 0, reason, f.detail[:2000], f.at_decision)
    seats = tuple(
        SeatOutcome(
            score=msg.scores[i],
            rank=msg.ranks[i],
            forfeit_reason=forfeits[i].forfeit_reason if i in forfeits else "",
            forfeit_detail=forfeits[i].forfeit_detail if i in forfeits else "",
            forfeit_at=forfeits[i].forfeit_at if i in forfeits else None,
        )
        for i in range(n)
    )
    decisions = tuple(
        DecisionRecord(
            index=i,
            player=d.player,
            legal_count=d.legal_count,
            action_json=d.action_json,
            action_text=d.action_text[:500],
            seconds=d.seconds,
            by_fallback=d.by_fallback,
        )
        for i, d in enumerate(msg.decisions)
    )
    size = sum(t.ByteSize() for t in msg.seat_traces)
    if size > MAX_TRACE_BYTES:
        raise InvalidArgumentError(
            f"seat traces of {size} bytes; a report carries at most {MAX_TRACE_BYTES}"
        )
    return Outcome(
        seats=seats,
        decisions=decisions,
        duration_seconds=msg.duration_seconds,
        unrated=msg.unrated,
        sandbox_tier=strip_nul(msg.sandbox_tier)[:32],
        traces=tuple(_trace(t) for t in msg.seat_traces),
    )


def _trace(msg: worker_pb2.SeatTrace) -> SeatTraceRecord:
    """A reported seat trace (checked against the log by the service). Its decisions must be
    the seat's own, in order from its first: the runner asks a seat every time until it
    forfeits, so a gap is garbage."""
    for i, d in enumerate(msg.decisions):
        if d.seat_decision != i:
            raise InvalidArgumentError(
                f"seat {msg.seat}'s trace: decision {i} says it is the seat's {d.seat_decision}"
            )
    steps = tuple(TracedStep(d.answer, d.milliseconds, d.stderr, d.fault) for d in msg.decisions)
    return SeatTraceRecord(msg.seat, steps, msg.stderr_tail, msg.dropped)


class MatchHostServicer(worker_pb2_grpc.MatchHostServicer):
    """Workers' side door: the server stays the single writer."""

    def __init__(
        self,
        bots: BotService,
        matches: MatchService,
        metrics: ServerMetrics,
        remote: RemoteBotService,
        dispatcher: Dispatcher | None = None,
    ) -> None:
        self.bots = bots
        self.matches = matches
        self.metrics = metrics
        self.remote = remote
        self.dispatcher = dispatcher

    @unary
    def ClaimMatch(
        self, request: worker_pb2.ClaimMatchRequest, context: grpc.ServicerContext
    ) -> worker_pb2.ClaimMatchResponse:
        claim = self.matches.claim(
            request.match_id, request.worker_id, request.task_id, context.time_remaining
        )
        self.metrics.sightings.seen(request.worker_id)
        pins = self._pins(claim)
        return worker_pb2.ClaimMatchResponse(
            match=match_spec(claim.match, pins),
            already_final=claim.already_final,
            attempt_token=claim.attempt_token,
        )

    @unary
    def ReportMatch(
        self, request: worker_pb2.ReportMatchRequest, context: grpc.ServicerContext
    ) -> worker_pb2.ReportMatchResponse:
        kind = request.WhichOneof("report")
        if kind == "void_reason":
            return self._void(request)
        if kind != "outcome":
            raise InvalidArgumentError("a report carries an outcome or a void_reason")
        v.identifier("match_id", request.match_id)
        report = self.matches.report(
            request.match_id, request.attempt_token, outcome_from_proto(request.outcome)
        )
        self._count(report)
        return worker_pb2.ReportMatchResponse(recorded=report.recorded, duplicate=report.duplicate)

    @unary
    def ClaimBlock(
        self, request: worker_pb2.ClaimBlockRequest, context: grpc.ServicerContext
    ) -> worker_pb2.ClaimBlockResponse:
        # The worker's deadline travels with the call: a claim it no longer waits for is
        # rolled back inside the transaction rather than committed for nobody.
        claims = self.matches.claim_block(
            list(request.match_ids), request.worker_id, request.task_id, context.time_remaining
        )
        self.metrics.sightings.seen(request.worker_id)
        return worker_pb2.ClaimBlockResponse(
            claims=[
                worker_pb2.BlockClaim(match_id=match_id, skipped=why)
                if claim is None
                else worker_pb2.BlockClaim(
                    match_id=match_id,
                    claim=worker_pb2.ClaimMatchResponse(
                        match=match_spec(claim.match, self._pins(claim)),
                        already_final=claim.already_final,
                        attempt_token=claim.attempt_token,
                    ),
                )
                for match_id, claim, why in claims
            ],
            lease_seconds=self.matches.lease.total_seconds(),
        )

    @unary
    def RenewClaims(
        self, request: worker_pb2.RenewClaimsRequest, context: grpc.ServicerContext
    ) -> worker_pb2.RenewClaimsResponse:
        renewed = self.matches.renew(
            [(lease.match_id, lease.attempt_token) for lease in request.leases],
            request.worker_id,
        )
        self.metrics.sightings.seen(request.worker_id)
        return worker_pb2.RenewClaimsResponse(
            renewed=[ok for _, ok in renewed], lease_seconds=self.matches.lease.total_seconds()
        )

    @unary
    def ReportBlock(
        self, request: worker_pb2.ReportBlockRequest, context: grpc.ServicerContext
    ) -> worker_pb2.ReportBlockResponse:
        if not 1 <= len(request.reports) <= MAX_BLOCK:
            raise InvalidArgumentError(f"a block report has 1 to {MAX_BLOCK} reports")
        played = []
        answers: dict[int, worker_pb2.ReportMatchResponse] = {}
        for i, report in enumerate(request.reports):
            if report.WhichOneof("report") == "outcome":
                v.identifier("match_id", report.match_id)
                played.append((i, report))
            else:  # a void (rare): on its own
                try:
                    answers[i] = self._void(report)
                except ServiceError as exc:
                    answers[i] = worker_pb2.ReportMatchResponse(refused=str(exc))
        results = self.matches.report_many(
            [(r.match_id, r.attempt_token, outcome_from_proto(r.outcome)) for _, r in played]
        )
        for (i, _), result in zip(played, results, strict=True):
            if isinstance(result, ServiceError):
                answers[i] = worker_pb2.ReportMatchResponse(refused=str(result))
                continue
            self._count(result)
            answers[i] = worker_pb2.ReportMatchResponse(
                recorded=result.recorded, duplicate=result.duplicate
            )
        return worker_pb2.ReportBlockResponse(results=[answers[i] for i in sorted(answers)])

    def _void(self, request: worker_pb2.ReportMatchRequest) -> worker_pb2.ReportMatchResponse:
        if request.WhichOneof("report") != "void_reason":
            raise InvalidArgumentError("a report carries an outcome or a void_reason")
        if len(request.void_reason) > MAX_VOID_REASON:
            raise InvalidArgumentError(f"void_reason is longer than {MAX_VOID_REASON} characters")
        game = self.matches.get(request.match_id).game
        status = self.matches.void(request.match_id, request.void_reason, request.attempt_token)
        if status is MatchStatus.FAILED:
            self.metrics.matches_recorded.labels(game, "failed").inc()
        elif status is MatchStatus.QUEUED:
            self.metrics.matches_requeued.labels("void").inc()
        return worker_pb2.ReportMatchResponse(recorded=False, duplicate=status is None)

    def _pins(self, claim: Claim) -> dict[int, Pin]:
        """Where each remote seat's bot is, resolved and checked again at every claim (a name
        that now points outside the allow-list gets no address: the seat forfeits)."""
        if claim.already_final:
            return {}
        return {
            s.seat: self.remote.pin(s.endpoint) for s in claim.match.seats if s.origin == "remote"
        }

    def _count(self, report: Report) -> None:
        if report.recorded:
            forfeit = any(s.forfeit_reason for s in report.match.seats)
            self.metrics.matches_recorded.labels(
                report.match.game, "forfeit" if forfeit else "completed"
            ).inc()
        else:
            self.metrics.duplicate_reports.inc()

    @unary
    def FetchBotCode(
        self, request: worker_pb2.FetchBotCodeRequest, context: grpc.ServicerContext
    ) -> worker_pb2.FetchBotCodeResponse:
        return worker_pb2.FetchBotCodeResponse(code=self.bots.code(request.code_sha256))

    @unary
    def AnnounceWorker(
        self, request: worker_pb2.AnnounceWorkerRequest, context: grpc.ServicerContext
    ) -> worker_pb2.AnnounceWorkerResponse:
        self.bots.announce(
            [BuiltinBot(b.name, tuple(b.games), b.description) for b in request.builtin_bots],
            request.worker_id,
        )
        self.metrics.sightings.seen(request.worker_id)
        if self.dispatcher is not None:
            self.dispatcher.announced(request.process or request.worker_id, request.runtimes)
        return worker_pb2.AnnounceWorkerResponse()
