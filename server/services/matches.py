"""Matches: the workers' reports (idempotent by match id) and voids, lease re-queueing,
reading matches back and replaying them through the engine; claims are
:mod:`server.services.claims`."""

from __future__ import annotations

import contextlib
import hmac
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from server.services import publication
from server.services import validation as v
from server.services.claims import ClaimsPart, attempt_digest
from server.services.errors import (
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


class MatchService(ClaimsPart):
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
