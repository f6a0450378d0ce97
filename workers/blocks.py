"""One execution of a block task: claim a duplicate block, play its matches, report them.

A block is the seat rotations of one table with one seed, the fairness unit of the
tournament formats: one worker claims it in one call, plays the matches it was given
(already final ones are skipped, so a block half played by a dead worker is finished by
the next attempt), and reports every result in one call that the server records in one
transaction, each match at most once. A match voided by a fault of ours is reported at once
(the server queues it again while the rest of the block plays). The block's claims are
renewed as it goes (:mod:`workers.leases`).

Seat clients are opened per match, as :func:`workers.play.play_plan` does: an uploaded bot
gets a fresh sandboxed process for every rotation. Reusing the process across a block would
save its start-up, but the rotations share a seed, and a process cannot be made to forget
the shuffles it saw: a bot that ignored a "new match" message would know the next
rotation's chance. A built-in bot is rebuilt per match (it costs nothing); a remote bot is
the author's own service, which sees every match whatever the worker does, so its channel
(connection, TLS handshake) is kept for the whole block (:meth:`SeatClients.block`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from workers.clients import SeatClients
from workers.leases import ClaimKeeper, renew_interval
from workers.metrics import MatchOutcome, WorkerMetrics
from workers.model import InfrastructureError, MatchPlan, MatchRecord
from workers.pause import WorkerPausedError
from workers.play import Seats, play_plan
from workers.reporting import BlockClaim, HostUnavailableError, MatchGoneError
from workers.runner import Clock

log = logging.getLogger(__name__)


class _Answer(Protocol):
    recorded: bool
    duplicate: bool
    refused: str


class BlockHost(Protocol):
    """The part of :class:`~workers.reporting.MatchHostClient` a block execution uses."""

    def claim_block(
        self, match_ids: Sequence[str], worker_id: str, task_id: str = ""
    ) -> list[BlockClaim]:
        """Claim the block's matches."""
        ...

    def report_block(
        self, records: Sequence[MatchRecord], voids: Sequence[tuple[str, str]], worker_id: str
    ) -> Mapping[str, _Answer]:
        """Report the block's played and voided matches."""
        ...

    def renew(self, match_ids: Sequence[str], worker_id: str) -> Mapping[str, bool]:
        """Renew the claims of the block's unreported matches (one match's lease each)."""
        ...


def execute_block(
    match_ids: Sequence[str],
    host: BlockHost,
    seats: Seats,
    worker_id: str,
    metrics: WorkerMetrics,
    task_id: str = "",
    clock: Clock | None = None,
    reraise: tuple[type[BaseException], ...] = (),
    per_match: Callable[[MatchPlan], AbstractContextManager[None]] = (
        lambda _plan: contextlib.nullcontext()
    ),
) -> list[MatchOutcome]:
    """Claim, play and report a block; what became of each of its matches, in order.

    ``per_match``: entered around each match (its soft time limit, from its plan).
    ``reraise`` (the soft time limit): the matches played so far are reported, the rest
    voided (the server queues them again), and the exception goes on."""
    outcomes: dict[str, MatchOutcome] = {}
    plans: dict[str, MatchPlan] = {}
    records: list[MatchRecord] = []
    voids: list[tuple[str, str]] = []
    claims = host.claim_block(match_ids, worker_id, task_id)
    for c in claims:
        if c.skipped:
            log.info("match %s not played: %s", c.match_id, c.skipped)
            outcomes[c.match_id] = MatchOutcome.GONE
        elif c.already_final or c.plan is None:
            outcomes[c.match_id] = MatchOutcome.ALREADY_FINAL
        else:
            plans[c.match_id] = c.plan
    pool = seats.block() if isinstance(seats, SeatClients) else contextlib.nullcontext()
    lease_s = min((c.lease_s for c in claims if c.match_id in plans), default=0.0)
    keeper = ClaimKeeper(
        lambda ids: host.renew(ids, worker_id), list(plans), renew_interval(lease_s)
    )

    def void_now(match_id: str, reason: str) -> bool:
        # At once, not with the block's report: the server queues the match again while the
        # rest of the block plays (another worker may take it meanwhile).
        try:
            answers = host.report_block([], [(match_id, reason)], worker_id)
        except (HostUnavailableError, MatchGoneError) as exc:
            log.warning("match %s: void not reported yet (%s); with the block", match_id, exc)
            return False
        keeper.forget(match_id)
        if match_id in answers:
            outcomes[match_id] = MatchOutcome.VOIDED
            metrics.outcome(plans[match_id].game, MatchOutcome.VOIDED)
            _count_pause(metrics, reason)
        return True

    try:
        with pool, keeper.running():
            _play(plans, seats, clock, reraise, per_match, records, voids, keeper, void_now)
    except reraise:
        done = {r.match_id for r in records} | {m for m, _ in voids} | set(outcomes)
        voids += [
            (m, "the block exceeded the worker's soft time limit") for m in plans if m not in done
        ]
        _report(host, records, voids, plans, worker_id, metrics, outcomes)
        raise
    _report(host, records, voids, plans, worker_id, metrics, outcomes)
    for _, reason in voids:
        _count_pause(metrics, reason)
    for match_id in plans:
        if match_id not in outcomes:  # its claim was lost before it was played
            outcomes[match_id] = MatchOutcome.GONE
            metrics.outcome(plans[match_id].game, MatchOutcome.GONE)
    for match_id, outcome in outcomes.items():
        if outcome in (MatchOutcome.GONE, MatchOutcome.ALREADY_FINAL) and match_id not in plans:
            metrics.outcome("", outcome)
    return [outcomes[m] for m in match_ids if m in outcomes]


def _play(
    plans: Mapping[str, MatchPlan],
    seats: Seats,
    clock: Clock | None,
    reraise: tuple[type[BaseException], ...],
    per_match: Callable[[MatchPlan], AbstractContextManager[None]],
    records: list[MatchRecord],
    voids: list[tuple[str, str]],
    keeper: ClaimKeeper,
    void_now: Callable[[str, str], bool] = lambda _m, _r: False,
) -> None:
    """Play the claimed matches in order, appending to ``records`` and ``voids``; the claims
    are renewed before each match but the first (and by ``keeper``'s thread meanwhile), and
    a match whose claim was lost is not played (:mod:`workers.leases`)."""
    for i, (match_id, plan) in enumerate(plans.items()):
        if i:
            keeper.renew_now()
        if match_id in keeper.lost:
            log.warning("match %s not played: its claim was lost", match_id)
            continue
        try:
            with per_match(plan):
                records.append(play_plan(plan, seats, clock, reraise))
        except InfrastructureError as exc:
            log.warning("match %s voided: %s", match_id, exc)
            reason = f"{type(exc).__name__}: {exc}"
            if not void_now(match_id, reason):
                voids.append((match_id, reason))


def _count_pause(metrics: WorkerMetrics, reason: str) -> None:
    if reason.startswith(WorkerPausedError.__name__):
        metrics.pauses.inc()


def _report(
    host: BlockHost,
    records: Sequence[MatchRecord],
    voids: Sequence[tuple[str, str]],
    plans: Mapping[str, MatchPlan],
    worker_id: str,
    metrics: WorkerMetrics,
    outcomes: dict[str, MatchOutcome],
) -> None:
    if not records and not voids:
        return
    answers = host.report_block(records, voids, worker_id)
    for record in records:
        answer = answers[record.match_id]
        plan = plans[record.match_id]
        if answer.refused:
            # Our claim expired or another attempt holds the match now: its result counts.
            log.warning("match %s: report refused: %s", record.match_id, answer.refused)
            outcome = MatchOutcome.GONE
        else:
            outcome = MatchOutcome.DUPLICATE if answer.duplicate else MatchOutcome.RECORDED
            metrics.played(plan, record)
        outcomes[record.match_id] = outcome
        metrics.outcome(plan.game, outcome)
    for match_id, _ in voids:
        outcomes[match_id] = MatchOutcome.VOIDED
        metrics.outcome(plans[match_id].game, MatchOutcome.VOIDED)
