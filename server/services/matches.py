"""Matches: the workers' claims and reports (idempotent by match id), lease re-queueing,
reading matches back and replaying them through the engine."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from server.services import publication
from server.services import validation as v
from server.services.errors import (
    DeadlineExceededError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    ServiceError,
)
from server.services.feed import TournamentFeed
from server.services.hygiene import strip_nul
from server.services.outcomes import check_outcome, clean_outcome
from server.services.replays import Replay, replay_match
from server.services.scheduling import Enqueuer, send_quietly
from server.services.seattraces import check_traces
from server.services.verify import verify_outcome
from server.storage import DecisionRecord, MatchRecord, MatchStatus, Outcome, Store
from server.storage.base import utcnow

log = logging.getLogger(__name__)

#: Matches in one block at most (a table of up to 4 seats: 4 rotations; room to spare).
MAX_BLOCK = 64


@dataclass(frozen=True, slots=True)
class Claim:
    """What a worker gets when it claims a match."""

    match: MatchRecord
    already_final: bool
    attempt_token: str = ""


def attempt_digest(token: str) -> str:
    """How an attempt token is stored (the token itself is only ever with the worker)."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Report:
    """What a report changed."""

    recorded: bool
    duplicate: bool
    match: MatchRecord


@dataclass(frozen=True, slots=True)
class Reaped:
    """What one beat of the reaper sent again."""

    requeued: tuple[str, ...]  # leases expired: the attempt is over
    resent: tuple[str, ...]  # queued, message presumed lost: no attempt counted


class MatchService:
    """The single writer of match results."""

    def __init__(
        self,
        store: Store,
        enqueuer: Enqueuer,
        lease_seconds: float = 900.0,
        queue_timeout_seconds: float = 300.0,
        max_attempts: int = 5,
        now: Callable[[], datetime] | None = None,
        max_infra_retries: int = 10,
        feed: TournamentFeed | None = None,
    ) -> None:
        self.store = store
        #: Where final matches are announced to watchers (shared with the tournaments).
        self.feed = feed or TournamentFeed(store)
        self.enqueuer = enqueuer
        self.lease = timedelta(seconds=lease_seconds)
        self.queue_timeout = timedelta(seconds=queue_timeout_seconds)
        self.max_attempts = max_attempts
        self.max_infra_retries = max_infra_retries
        self.now = now or utcnow
        #: Called with a tournament id when one of its matches became final (a Swiss
        #: tournament pairs its next round then).
        self.on_final: Callable[[str], object] | None = None
        #: Called with (worker id, match id) after each claim (the dispatcher counts workers).
        self.on_claimed: Callable[[str, str], object] | None = None
        #: Called with (stage, seconds): "dispatch" (sent -> claimed) at each claim, and
        #: "report" (report received -> final) at each report call.
        self.observers: list[Callable[[str, float], object]] = []

    def get(self, match_id: str) -> MatchRecord:
        """A match, or NotFoundError."""
        v.identifier("match_id", match_id)
        found = self.store.get_match(match_id)
        if found is None:
            raise NotFoundError(f"unknown match {match_id!r}")
        return found

    def detail(self, match_id: str) -> tuple[MatchRecord, list[DecisionRecord]]:
        """A match with its action log (empty until the match's block is published)."""
        match = self.get(match_id)
        if not self.published(match):
            return match, []
        return match, self.store.get_decisions(match_id)

    def published(self, match: MatchRecord) -> bool:
        """Whether a match's seed, log and replay may be shown: once every match sharing its
        seed is final (the rule is :mod:`server.services.publication`)."""
        return publication.published(self.store, match)

    def claim(self, match_id: str, worker_id: str, task_id: str = "") -> Claim:
        """Lease a match to a new attempt with a fresh attempt token (the attempt is counted
        here). A final match is handed back with ``already_final`` (the worker acks its task
        and stops); a redelivered running match is leased again (the earlier attempt's token
        stops working), unless ``task_id`` says the claim comes from a re-sent copy of the
        message while a live attempt holds the match (FAILED_PRECONDITION: drop the copy)."""
        v.worker_id(worker_id)
        if len(task_id) > 64:
            raise InvalidArgumentError("task_id is longer than 64 characters")
        match = self.get(match_id)
        if match.status is MatchStatus.CANCELLED:
            raise FailedPreconditionError(f"match {match_id} was cancelled")
        if match.status.final:
            return Claim(match, already_final=True)
        token = secrets.token_urlsafe(24)
        now = self.now()
        claimed = self.store.claim_match(
            match_id,
            worker_id[:128],
            now + self.lease,
            attempt_digest(token),
            task_id,
            now,
        )
        if claimed is not None:
            return self._claimed(claimed, worker_id, token, now)
        return self._not_claimed(match_id, task_id)

    def _claimed(self, claimed: MatchRecord, worker_id: str, token: str, now: datetime) -> Claim:
        if claimed.queued_at is not None:
            self._observe("dispatch", (now - claimed.queued_at).total_seconds())
        if self.on_claimed is not None and claimed.rotation == 0:  # once per block
            self.on_claimed(worker_id, claimed.match_id)
        return Claim(claimed, already_final=False, attempt_token=token)

    def _not_claimed(self, match_id: str, task_id: str) -> Claim:
        """Why a claim changed nothing: final (handed back), or FailedPreconditionError."""
        match = self.get(match_id)
        if match.status.final:
            return Claim(match, already_final=True)
        if match.status is MatchStatus.RUNNING and task_id:
            raise FailedPreconditionError(
                f"match {match_id} is being played by a live attempt of another queue "
                "message; this copy of the message is not needed"
            )
        raise FailedPreconditionError(
            f"match {match_id} is {match.status.value} and its tournament is not running: "
            "only queued matches of a started tournament can be claimed"
        )

    def report(self, match_id: str, attempt_token: str, outcome: Outcome) -> Report:
        """Record a played match once, from the attempt that holds the claim, after replaying
        its log; a retried report of the recorded attempt changes nothing."""
        (answer,) = self.report_many([(match_id, attempt_token, outcome)])
        if isinstance(answer, ServiceError):
            raise answer
        return answer

    def report_many(
        self, reports: Sequence[tuple[str, str, Outcome]]
    ) -> list[Report | ServiceError]:
        """Record (match id, attempt token, outcome) reports, a block's, in one transaction:
        each is checked and replayed first, and recorded at most once; a refused one (its
        error in its place) does not stop the others."""
        started = time.perf_counter()
        answers: list[Report | ServiceError | None] = []
        ready: list[tuple[int, MatchRecord, Outcome, str]] = []
        for match_id, token, outcome in reports:
            try:
                match = self.get(match_id)
                digest = self._attempt(match, token)
                if match.status.final:
                    answers.append(Report(recorded=False, duplicate=True, match=match))
                    continue
                outcome = clean_outcome(outcome)
                check_outcome(match, outcome)
                verify_outcome(match, outcome)
                outcome = check_traces(match, outcome)
            except ServiceError as exc:
                answers.append(exc)
                continue
            ready.append((len(answers), match, outcome, digest))
            answers.append(None)
        if ready:
            self._record(ready, answers)
            self._observe("report", time.perf_counter() - started)
        return [a for a in answers if a is not None]

    def _observe(self, stage: str, seconds: float) -> None:
        for observe in self.observers:
            observe(stage, max(seconds, 0.0))

    def _record(
        self,
        ready: Sequence[tuple[int, MatchRecord, Outcome, str]],
        answers: list[Report | ServiceError | None],
    ) -> None:
        tournaments = list(dict.fromkeys(m.tournament_id for _, m, _, _ in ready))
        with contextlib.ExitStack() as stack:
            for tournament_id in tournaments:
                stack.enter_context(self.feed.recording(tournament_id))
            done = self.store.finalize_matches(
                [(m.match_id, outcome, digest) for _, m, outcome, digest in ready], self.now()
            )
            recorded = [m.match_id for (_, m, _, _), ok in zip(ready, done, strict=True) if ok]
            final = {r.match_id: r for r in self.store.get_matches(recorded)}
            for tournament_id in tournaments:
                events = [r for r in final.values() if r.tournament_id == tournament_id]
                if events:
                    self.feed.publish(tournament_id, events)
        for (i, match, _, digest), ok in zip(ready, done, strict=True):
            if ok:
                answers[i] = Report(recorded=True, duplicate=False, match=final[match.match_id])
                continue
            again = self.get(match.match_id)
            if again.status.final and self._same_attempt(match.match_id, digest):
                answers[i] = Report(recorded=False, duplicate=True, match=again)
            else:
                answers[i] = FailedPreconditionError(
                    f"the claim of match {match.match_id} expired or was taken by another "
                    "worker; this report was not recorded"
                )
        if recorded and self.on_final is not None:
            for tournament_id in tournaments:
                self.on_final(tournament_id)

    def claim_block(
        self,
        match_ids: Sequence[str],
        worker_id: str,
        task_id: str = "",
        deadline: Callable[[], float | None] = lambda: None,
    ) -> list[tuple[str, Claim | None, str]]:
        """Claim a block's matches in one transaction: (id, claim, "") for each claimed or
        final one, (id, None, why) for one this attempt must not play (cancelled, held
        elsewhere, unknown). Each claim is leased for one lease (not one per match of the
        block); the worker renews its claims while it plays (:meth:`renew`).

        ``deadline``: seconds the caller still waits (None: no deadline), asked last inside
        the transaction: past it, the transaction is rolled back and DeadlineExceededError
        raised, so a claim nobody waits for any more counts no attempt and holds nothing."""
        if not 1 <= len(match_ids) <= MAX_BLOCK:
            raise InvalidArgumentError(f"a block has 1 to {MAX_BLOCK} matches")
        v.worker_id(worker_id)
        if len(task_id) > 64:
            raise InvalidArgumentError("task_id is longer than 64 characters")
        now = self.now()
        out: dict[str, tuple[Claim | None, str]] = {}
        wanted: list[tuple[str, datetime, str]] = []
        tokens: dict[str, str] = {}
        for match_id in dict.fromkeys(match_ids):
            try:
                match = self.get(match_id)
            except NotFoundError as exc:
                out[match_id] = (None, str(exc))
                continue
            if match.status is MatchStatus.CANCELLED:
                out[match_id] = (None, f"match {match_id} was cancelled")
            elif match.status.final:
                out[match_id] = (Claim(match, already_final=True), "")
            else:
                tokens[match_id] = secrets.token_urlsafe(24)
                wanted.append((match_id, now + self.lease, attempt_digest(tokens[match_id])))

        def still_wanted() -> None:
            left = deadline()
            if left is not None and left <= 0:
                raise DeadlineExceededError(
                    "the worker stopped waiting for this claim before it could be committed; "
                    "nothing was claimed (the match stays queued)"
                )

        claimed = self.store.claim_matches(wanted, worker_id[:128], task_id, now, still_wanted)
        for (match_id, _, _), record in zip(wanted, claimed, strict=True):
            if record is not None:
                out[match_id] = (self._claimed(record, worker_id, tokens[match_id], now), "")
                continue
            try:
                out[match_id] = (self._not_claimed(match_id, task_id), "")
            except (FailedPreconditionError, NotFoundError) as exc:
                out[match_id] = (None, str(exc))
        return [(match_id, *out[match_id]) for match_id in match_ids]

    def renew(self, leases: Sequence[tuple[str, str]], worker_id: str) -> list[tuple[str, bool]]:
        """Renew the leases of (match id, attempt token) a worker still holds, each to one
        lease from now (a worker renews its block's unreported matches every quarter lease
        while it plays); whether each was renewed (False: the claim expired or was taken
        over: the worker should not play it)."""
        v.worker_id(worker_id)
        if not 1 <= len(leases) <= MAX_BLOCK:
            raise InvalidArgumentError(f"a renewal names 1 to {MAX_BLOCK} matches")
        now = self.now()
        wanted = []
        for match_id, token in leases:
            v.identifier("match_id", match_id)
            if not token or len(token) > 128:
                raise InvalidArgumentError("each renewal carries its claim's attempt token")
            wanted.append((match_id, attempt_digest(token), now + self.lease))
        renewed = self.store.renew_leases(wanted, now)
        return [(match_id, ok) for (match_id, _), ok in zip(leases, renewed, strict=True)]

    def void(self, match_id: str, reason: str, attempt_token: str) -> MatchStatus | None:
        """An infrastructure fault: queue the match again (or fail it after too many tries).
        Only the attempt holding the claim may void it."""
        match = self.get(match_id)
        digest = self._attempt(match, attempt_token)
        if match.status.final:
            return None
        reason = strip_nul(reason) or "voided"
        with self.feed.recording(match.tournament_id):
            status = self.store.void_attempt(
                match_id,
                reason,
                self.max_attempts,
                attempt_hash=digest,
                infra_limit=self.max_infra_retries,
                failed_reason=(
                    f"failed: voided {self.max_infra_retries} times by infrastructure faults "
                    "of workers, never played to a result (HAMLET_MAX_INFRA_RETRIES); the "
                    f"last: {reason}"
                ),
            )
            if status is MatchStatus.FAILED:
                self.feed.publish(match.tournament_id, [self.get(match_id)])
        if status is None and not self.get(match_id).status.final:
            raise FailedPreconditionError(
                f"the claim of match {match_id} was taken by another worker; not voided"
            )
        self._log_void(match, reason, status)
        if status is MatchStatus.QUEUED:
            send_quietly(self.enqueuer, self.store.mark_queued([match_id], self.now()))
        elif status is MatchStatus.FAILED and self.on_final is not None:
            self.on_final(match.tournament_id)
        return status

    def _same_attempt(self, match_id: str, digest: str) -> bool:
        stored = self.store.attempt_hash(match_id)
        return stored is not None and hmac.compare_digest(stored, digest)

    def _attempt(self, match: MatchRecord, attempt_token: str) -> str:
        """The digest of ``attempt_token`` if it is the current attempt of ``match``."""
        if not attempt_token:
            raise FailedPreconditionError(
                "a report must carry the attempt token its ClaimMatch returned"
            )
        if len(attempt_token) > 128:
            raise InvalidArgumentError("attempt_token is longer than 128 characters")
        digest = attempt_digest(attempt_token)
        if not self._same_attempt(match.match_id, digest):
            raise FailedPreconditionError(
                f"this attempt does not hold match {match.match_id} (it was never claimed with "
                "this token, or was claimed again since); nothing was recorded"
            )
        if not match.status.final and match.status is not MatchStatus.RUNNING:
            raise FailedPreconditionError(
                f"match {match.match_id} is {match.status.value}, not running; nothing recorded"
            )
        return digest

    def _log_void(self, match: MatchRecord, reason: str, status: MatchStatus | None) -> None:
        if status is MatchStatus.FAILED:
            log.warning(
                "match %s failed after %d infrastructure voids: %s",
                match.match_id,
                self.max_infra_retries,
                reason[:200],
            )
        elif status is MatchStatus.QUEUED:
            log.info(
                "match %s voided by its worker (not counted as an attempt): %s; queued again",
                match.match_id,
                reason[:200],
            )

    def reap(self) -> Reaped:
        """Re-queue matches whose lease expired (their worker died; the attempt was counted
        at its claim), and send again, without penalty, queued matches whose message may be
        lost (sent longer than the queue timeout ago). Recording stays idempotent if a first
        attempt reports after all, and a re-sent copy never takes a live claim over."""
        now = self.now()
        requeued = []
        for match_id in self.store.expired_leases(now):
            tournament_id = self.get(match_id).tournament_id
            with self.feed.recording(tournament_id):
                status = self.store.void_attempt(
                    match_id, "lease expired", self.max_attempts, lease_expired_by=now
                )
                if status is MatchStatus.FAILED:
                    self.feed.publish(tournament_id, [self.get(match_id)])
            if status is MatchStatus.FAILED:
                log.warning("match %s failed: its lease expired on its last attempt", match_id)
                if self.on_final is not None:
                    self.on_final(tournament_id)
            if status is MatchStatus.QUEUED:
                requeued += self.store.mark_queued([match_id], now)
        if requeued:
            log.warning("re-queued %d matches with expired leases", len(requeued))
        stale = self.store.touch_queued(self.store.queued_matches(now - self.queue_timeout), now)
        if stale:
            log.info("sending %d queued matches again (queued over the queue timeout)", len(stale))
        send_quietly(self.enqueuer, requeued + stale)
        return Reaped(tuple(requeued), tuple(stale))

    def resend_queued(self) -> list[str]:
        """Send every queued match again, without penalty: the broker restarted (it may have
        lost every message), a send failed, or this server just started."""
        queued = self.store.touch_queued(self.store.queued_matches(), self.now())
        if queued:
            log.warning("sending all %d queued matches again (the broker changed)", len(queued))
            send_quietly(self.enqueuer, queued)
        return queued

    def replay(self, match_id: str) -> Replay:
        """Replay a stored match through the engine; FAILED_PRECONDITION unless finished and
        published (see :meth:`published`)."""
        match = self.get(match_id)
        if match.status is MatchStatus.FINISHED and not self.published(match):
            raise FailedPreconditionError(
                f"match {match_id} shares its seed with matches still being played; its "
                "replay is published when they are all final"
            )
        match, decisions = self.detail(match_id)
        if match.status is not MatchStatus.FINISHED:
            raise FailedPreconditionError(
                f"match {match_id} is {match.status.value}; replays need a finished match"
            )
        return replay_match(match, decisions)
