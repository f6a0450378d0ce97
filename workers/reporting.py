"""The worker's client of the server's ``MatchHost`` service (claim, report, fetch, announce).

Every call has a deadline. Transient failures (server down, overloaded, deadline passed)
are retried a few times with exponential backoff and jitter; if the server still does
not answer, :class:`HostUnavailableError` tells the Celery task to retry later (the match
is replayed from its seed then: the worker keeps nothing between attempts). This module is
also the worker's protobuf boundary: it converts :mod:`workers.model` values to and from
the ``hamlet.v1`` worker messages.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import grpc

from hamlet.channels import open_channel
from hamlet.v1 import worker_pb2, worker_pb2_grpc
from workers.model import BotKind, ForfeitReason, MatchPlan, MatchRecord, SeatPlan, SeatTrace

#: Status codes worth retrying: the server may answer on a later attempt.
RETRYABLE = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
    }
)

_KINDS = {
    worker_pb2.BOT_KIND_BUILTIN: BotKind.BUILTIN,
    worker_pb2.BOT_KIND_UPLOADED: BotKind.UPLOADED,
    worker_pb2.BOT_KIND_REMOTE: BotKind.REMOTE,
}
_REASONS = {
    ForfeitReason.CRASH: worker_pb2.FORFEIT_REASON_CRASH,
    ForfeitReason.TIMEOUT: worker_pb2.FORFEIT_REASON_TIMEOUT,
    ForfeitReason.ILLEGAL_ACTION: worker_pb2.FORFEIT_REASON_ILLEGAL_ACTION,
    ForfeitReason.BAD_OUTPUT: worker_pb2.FORFEIT_REASON_BAD_OUTPUT,
    ForfeitReason.UNREACHABLE: worker_pb2.FORFEIT_REASON_UNREACHABLE,
}

T = TypeVar("T")


class HostUnavailableError(RuntimeError):
    """The server did not answer after every attempt (an infrastructure fault)."""


class MatchGoneError(LookupError):
    """The server does not know the match, or it may not be played (cancelled)."""


class HostRejectedError(RuntimeError):
    """The server refused a call for a reason retrying cannot fix (a bug on one side)."""


class CredentialRefusedError(HostRejectedError):
    """The server refused the worker's credential (UNAUTHENTICATED or PERMISSION_DENIED):
    no call of this worker can succeed until it gets another token."""


#: Status codes that refuse the caller, not the call.
CREDENTIAL_REFUSED = frozenset({grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED})


@dataclass(frozen=True, slots=True)
class Claim:
    """The answer to a claim: the match to play, or that it is already final."""

    plan: MatchPlan | None
    already_final: bool


@dataclass(frozen=True, slots=True)
class BlockClaim:
    """One match of a claimed block: its plan to play, or why it is not this attempt's."""

    match_id: str
    plan: MatchPlan | None
    already_final: bool = False
    skipped: str = ""  # cancelled, unknown, or held by a live attempt of another message
    #: How long the claim lasts without a renewal (0: the server did not say).
    lease_s: float = 0.0


@dataclass(frozen=True, slots=True)
class Announced:
    """A built-in bot as announced to the server."""

    name: str
    games: tuple[str, ...]
    description: str


class MatchHostClient:
    """A channel to ``MatchHost`` with deadlines and retries, carrying the worker token.

    It remembers the attempt token of each claim it made, and presents it when that match is
    reported or voided (the server refuses a report without the current attempt's token).
    """

    def __init__(
        self,
        target: str,
        *,
        token: str | Callable[[], str] = "",
        ca_file: Path | None = None,
        timeout_s: float = 10.0,
        attempts: int = 3,
        backoff_s: float = 0.25,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
    ) -> None:
        self._channel = open_channel(target, token=token or None, ca_file=ca_file)
        self._stub = worker_pb2_grpc.MatchHostStub(self._channel)  # type: ignore[no-untyped-call]
        self._attempt: dict[str, str] = {}
        self._timeout = timeout_s
        self._attempts = attempts
        self._backoff = backoff_s
        self._sleep = sleep
        self._rng = rng or random.Random()

    def close(self) -> None:
        """Close the channel."""
        self._channel.close()

    def __enter__(self) -> MatchHostClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def claim(self, match_id: str, worker_id: str, task_id: str = "") -> Claim:
        """Claim ``match_id``; :class:`MatchGoneError` if unknown or cancelled (or held by a
        live attempt of another queue message than ``task_id``)."""
        request = worker_pb2.ClaimMatchRequest(
            match_id=match_id, worker_id=worker_id, task_id=task_id
        )
        response: worker_pb2.ClaimMatchResponse = self._call(self._stub.ClaimMatch, request)
        if response.already_final:
            return Claim(None, True)
        self._attempt[match_id] = response.attempt_token
        return Claim(plan_from_proto(response.match), False)

    def report(self, record: MatchRecord, worker_id: str) -> worker_pb2.ReportMatchResponse:
        """Report a played match (a duplicate report is harmless)."""
        request = worker_pb2.ReportMatchRequest(
            match_id=record.match_id,
            worker_id=worker_id,
            outcome=outcome_to_proto(record),
            attempt_token=self._attempt.get(record.match_id, ""),
        )
        response: worker_pb2.ReportMatchResponse = self._call(self._stub.ReportMatch, request)
        self._attempt.pop(record.match_id, None)
        return response

    def void(self, match_id: str, worker_id: str, reason: str) -> worker_pb2.ReportMatchResponse:
        """Report an infrastructure fault: the server voids this attempt and re-queues."""
        request = worker_pb2.ReportMatchRequest(
            match_id=match_id,
            worker_id=worker_id,
            void_reason=reason[:500] or "void",
            attempt_token=self._attempt.get(match_id, ""),
        )
        response: worker_pb2.ReportMatchResponse = self._call(self._stub.ReportMatch, request)
        self._attempt.pop(match_id, None)
        return response

    def claim_block(
        self, match_ids: Sequence[str], worker_id: str, task_id: str = ""
    ) -> list[BlockClaim]:
        """Claim a duplicate block's matches in one call, one answer per id in order."""
        request = worker_pb2.ClaimBlockRequest(
            match_ids=list(match_ids), worker_id=worker_id, task_id=task_id
        )
        response: worker_pb2.ClaimBlockResponse = self._call(self._stub.ClaimBlock, request)
        out = []
        for c in response.claims:
            if c.skipped:
                out.append(BlockClaim(c.match_id, None, skipped=c.skipped))
            elif c.claim.already_final:
                out.append(BlockClaim(c.match_id, None, already_final=True))
            else:
                self._attempt[c.match_id] = c.claim.attempt_token
                out.append(
                    BlockClaim(
                        c.match_id,
                        plan_from_proto(c.claim.match),
                        lease_s=response.lease_seconds,
                    )
                )
        return out

    def renew(self, match_ids: Sequence[str], worker_id: str) -> dict[str, bool]:
        """Renew this worker's claims of ``match_ids`` (one match's lease each, from now);
        whether each was (False: the claim expired or another attempt holds it)."""
        held = [m for m in match_ids if m in self._attempt]
        if not held:
            return {}
        request = worker_pb2.RenewClaimsRequest(
            worker_id=worker_id,
            leases=[
                worker_pb2.ClaimLease(match_id=m, attempt_token=self._attempt[m]) for m in held
            ],
        )
        response: worker_pb2.RenewClaimsResponse = self._call(self._stub.RenewClaims, request)
        return dict(zip(held, response.renewed, strict=True))

    def report_block(
        self, records: Sequence[MatchRecord], voids: Sequence[tuple[str, str]], worker_id: str
    ) -> dict[str, worker_pb2.ReportMatchResponse]:
        """Report a block's played matches (and voided ones: (match id, reason)) in one
        call; the server's answer by match id (``refused`` says why one was not taken)."""
        reports = [
            worker_pb2.ReportMatchRequest(
                match_id=r.match_id,
                worker_id=worker_id,
                outcome=outcome_to_proto(r),
                attempt_token=self._attempt.get(r.match_id, ""),
            )
            for r in records
        ] + [
            worker_pb2.ReportMatchRequest(
                match_id=match_id,
                worker_id=worker_id,
                void_reason=reason[:500] or "void",
                attempt_token=self._attempt.get(match_id, ""),
            )
            for match_id, reason in voids
        ]
        request = worker_pb2.ReportBlockRequest(worker_id=worker_id, reports=reports)
        response: worker_pb2.ReportBlockResponse = self._call(self._stub.ReportBlock, request)
        for r in reports:
            self._attempt.pop(r.match_id, None)
        return {r.match_id: a for r, a in zip(reports, response.results, strict=True)}

    def fetch_code(self, code_sha256: str) -> bytes:
        """The code of an uploaded bot version."""
        request = worker_pb2.FetchBotCodeRequest(code_sha256=code_sha256)
        response: worker_pb2.FetchBotCodeResponse = self._call(self._stub.FetchBotCode, request)
        return bytes(response.code)

    def announce(
        self,
        worker_id: str,
        bots: Sequence[Announced],
        runtimes: Sequence[str] = (),
        sandbox_tier: str = "",
        process: str = "",
    ) -> None:
        """Tell the server this worker is up, which built-in bots it plays and which
        runtimes it can run uploaded bots in (none when its sandbox refuses them), from which
        pool process (``host:pid``)."""
        request = worker_pb2.AnnounceWorkerRequest(
            process=process,
            runtimes=list(runtimes),
            sandbox_tier=sandbox_tier,
            worker_id=worker_id,
            builtin_bots=[
                worker_pb2.BuiltinBot(name=b.name, games=list(b.games), description=b.description)
                for b in bots
            ],
        )
        self._call(self._stub.AnnounceWorker, request)

    def _call(self, method: Callable[..., T], request: Any) -> T:
        delay = self._backoff
        last: grpc.RpcError | None = None
        last_text = ""
        for attempt in range(self._attempts):
            if attempt:
                self._sleep(delay * self._rng.uniform(0.5, 1.5))
                delay *= 2
            try:
                return method(request, timeout=self._timeout)
            except grpc.RpcError as exc:
                code = exc.code() if isinstance(exc, grpc.Call) else grpc.StatusCode.UNKNOWN
                detail = exc.details() if isinstance(exc, grpc.Call) else str(exc)
                if code in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION):
                    raise MatchGoneError(f"{code.name}: {detail}") from exc
                if code in CREDENTIAL_REFUSED:
                    raise CredentialRefusedError(f"{code.name}: {detail}") from exc
                if code not in RETRYABLE:
                    raise HostRejectedError(f"{code.name}: {detail}") from exc
                last, last_text = exc, f"{code.name}: {detail}"
        raise HostUnavailableError(
            f"the server did not answer after {self._attempts} attempt(s): {last_text}"
        ) from last


def plan_from_proto(msg: worker_pb2.MatchSpec) -> MatchPlan:
    """A :class:`MatchPlan` from the server's ``MatchSpec``."""
    seats = tuple(
        SeatPlan(
            seat=s.seat,
            bot_name=s.bot_name,
            bot_version=s.bot_version,
            kind=_KINDS.get(s.kind, BotKind.BUILTIN),
            code_sha256=s.code_sha256,
            endpoint=s.endpoint,
            tls=s.tls,
            ca_pem=s.ca_cert_pem,
            tls_server_name=s.tls_server_name,
            endpoint_url=s.endpoint_url,
            unreachable=s.unreachable,
        )
        for s in sorted(msg.seats, key=lambda s: s.seat)
    )
    return MatchPlan(
        match_id=msg.match_id,
        game=msg.game,
        rules_version=msg.rules_version,
        seed=msg.seed,
        seats=seats,
        decision_time_s=max(msg.decision_time_ms, 1) / 1000.0,
        time_bank_s=max(msg.time_bank_ms, 0) / 1000.0,
    )


def outcome_to_proto(record: MatchRecord) -> worker_pb2.MatchOutcome:
    """The ``MatchOutcome`` message of a played match."""
    return worker_pb2.MatchOutcome(
        scores=list(record.scores),
        ranks=list(record.ranks),
        forfeits=[
            worker_pb2.Forfeit(
                seat=f.seat, reason=_REASONS[f.reason], detail=f.detail, at_decision=f.at_decision
            )
            for f in record.forfeits
        ],
        decisions=[
            worker_pb2.LoggedDecision(
                player=d.player,
                legal_count=d.legal_count,
                action_json=json.dumps(d.action, separators=(",", ":"), sort_keys=True),
                action_text=d.action_text,
                seconds=d.seconds,
                by_fallback=d.by_fallback,
            )
            for d in record.decisions
        ],
        duration_seconds=record.duration_s,
        unrated=record.unrated,
        sandbox_tier=record.sandbox_tier,
        seat_traces=[trace_to_proto(t) for t in record.traces],
    )


def trace_to_proto(trace: SeatTrace) -> worker_pb2.SeatTrace:
    """The ``SeatTrace`` message of one seat's trace (already :func:`~workers.trace.bounded`);
    the observations stay behind: the server recomputes them from the log."""
    return worker_pb2.SeatTrace(
        seat=trace.seat,
        decisions=[
            worker_pb2.TracedDecision(
                seat_decision=d.seat_decision,
                answer=d.answer if -(2**31) <= d.answer < 2**31 else -1,
                milliseconds=min(int(d.seconds * 1000), 2**31 - 1),
                stderr=d.stderr,
                fault=d.fault,
            )
            for d in trace.decisions
        ],
        stderr_tail=trace.stderr_tail,
        dropped=trace.dropped,
    )
