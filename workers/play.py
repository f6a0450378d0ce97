"""One execution of a match task: claim, play, report. No Celery here (``workers.tasks`` wraps it).

The worker holds nothing but the match it plays. A claim that says the match is already
final makes the execution a no-op (a redelivered or duplicate task); an unknown or
cancelled match is dropped; a fault of ours (engine, sandbox, missing bot) is reported
as a void so the server re-queues the match; a bot's fault is part of the result. If the
server cannot be reached, :class:`~workers.reporting.HostUnavailableError` propagates and
the task retries later.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from workers.metrics import MatchOutcome, WorkerMetrics
from workers.model import BotKind, InfrastructureError, MatchPlan, MatchRecord, SeatClient
from workers.pause import watch
from workers.reporting import Claim, MatchGoneError
from workers.runner import Clock, run_match
from workers.trace import TracingClient, bounded

log = logging.getLogger(__name__)


class Host(Protocol):
    """The part of :class:`~workers.reporting.MatchHostClient` a match execution uses."""

    def claim(self, match_id: str, worker_id: str, task_id: str = "") -> Claim:
        """Claim the match."""
        ...

    def report(self, record: MatchRecord, worker_id: str) -> _Reported:
        """Report the played match."""
        ...

    def void(self, match_id: str, worker_id: str, reason: str) -> _Reported:
        """Report an infrastructure fault."""
        ...


class _Reported(Protocol):
    recorded: bool
    duplicate: bool


class Seats(Protocol):
    """Builds seat clients (:class:`~workers.clients.SeatClients`)."""

    def open(self, plan: MatchPlan) -> list[SeatClient]:
        """One client per seat."""
        ...


@runtime_checkable
class SandboxedSeats(Protocol):
    """Seats that know how their uploaded bots were run (set by ``open``)."""

    unrated: bool
    sandbox_tier: str


def execute(
    match_id: str,
    host: Host,
    seats: Seats,
    worker_id: str,
    metrics: WorkerMetrics,
    clock: Clock | None = None,
    reraise: tuple[type[BaseException], ...] = (),
    task_id: str = "",
) -> MatchOutcome:
    """Claim ``match_id``, play it and report it; what became of it.

    ``reraise``: exception types that must pass through bots' code (see ``run_match``);
    ``task_id``: the queue message's id (a re-sent copy never takes a live claim over).
    """
    try:
        claim = host.claim(match_id, worker_id, task_id)
    except MatchGoneError as exc:
        log.info("match %s not played: %s", match_id, exc)
        metrics.outcome("", MatchOutcome.GONE)
        return MatchOutcome.GONE
    if claim.already_final or claim.plan is None:
        log.info("match %s is already final: nothing to do", match_id)
        metrics.outcome("", MatchOutcome.ALREADY_FINAL)
        return MatchOutcome.ALREADY_FINAL
    plan = claim.plan
    try:
        record = play_plan(plan, seats, clock, reraise)
    except InfrastructureError as exc:
        log.warning("match %s voided: %s", match_id, exc)
        try:
            host.void(match_id, worker_id, f"{type(exc).__name__}: {exc}")
        except MatchGoneError as gone:  # another attempt holds the match now
            log.info("match %s: void not taken: %s", match_id, gone)
        metrics.outcome(plan.game, MatchOutcome.VOIDED)
        return MatchOutcome.VOIDED
    try:
        reported = host.report(record, worker_id)
    except MatchGoneError as exc:
        # Our claim expired or another worker claimed the match since: the server keeps
        # the current attempt's result, not ours.
        log.warning("match %s: report refused: %s", match_id, exc)
        metrics.outcome(plan.game, MatchOutcome.GONE)
        return MatchOutcome.GONE
    outcome = MatchOutcome.DUPLICATE if reported.duplicate else MatchOutcome.RECORDED
    metrics.played(plan, record)
    metrics.outcome(plan.game, outcome)
    log.info(
        "match %s %s: ranks %s, %d decisions, %d forfeits",
        match_id,
        outcome.value,
        list(record.ranks),
        len(record.decisions),
        len(record.forfeits),
    )
    return outcome


def play_plan(
    plan: MatchPlan,
    seats: Seats,
    clock: Clock | None = None,
    reraise: tuple[type[BaseException], ...] = (),
) -> MatchRecord:
    """Open the seats' clients, run the match, close them all (whatever happens).

    Uploaded and remote seats are traced (:mod:`workers.trace`) and their traces go with the
    record: their owners can read what their bot answered, took and wrote to stderr. Built-in
    bots are not: the system owns them, they write no stderr, and the log already holds their
    answers and times (the server recomputes what any seat saw from the log).
    """
    clients: Sequence[SeatClient] = [
        c if c.kind is BotKind.BUILTIN or isinstance(c, TracingClient) else TracingClient(c, seat)
        for seat, c in enumerate(seats.open(plan))
    ]
    try:
        # The worker's own progress clock, with the real clock only: a pause of the worker
        # voids the match instead of forfeiting the bot it was waiting for.
        pauses = watch() if clock is None else None
        record = run_match(plan, clients, clock or time.monotonic, reraise, pauses)
        if isinstance(seats, SandboxedSeats) and seats.sandbox_tier:
            record = dataclasses.replace(
                record, unrated=seats.unrated, sandbox_tier=seats.sandbox_tier
            )
        traces = tuple(bounded(c.trace()) for c in clients if isinstance(c, TracingClient))
        return dataclasses.replace(record, traces=traces) if traces else record
    finally:
        for client in clients:
            with contextlib.suppress(Exception):
                client.close()
