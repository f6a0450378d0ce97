"""Seat traces and seat views: a ranked match as one seat met it, for its bot's owner.

A worker traces its uploaded and remote seats and reports, per seat, what the log does not
hold: the bot's raw answers, its times, its stderr and faults. The server checks those traces
against the log it has just verified and stores them bounded (:func:`check_traces`); a trace
that does not fit is refused with INVALID_ARGUMENT, and so is its whole report (fail closed:
an honest worker never sends one).

What a seat *saw* is never taken from a worker: :func:`seat_view` recomputes each observation
and legal list by replaying (game, seed, log), so no worker can forge what a seat "saw", and
nothing hidden from a seat reaches the view but its own observation. The view obeys the same
withholding as the log: nothing before the match is finished and its block is final.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import games
from server.services import validation as v
from server.services.errors import FailedPreconditionError, InvalidArgumentError
from server.services.hygiene import strip_nul
from server.storage import (
    DecisionRecord,
    MatchRecord,
    MatchStatus,
    Outcome,
    SeatTraceRecord,
    Store,
)

#: Bounds of a reported trace (``workers/trace.py`` keeps the same numbers).
MAX_TRACED_DECISIONS = 2_000
MAX_STDERR_PER_DECISION = 2_000
MAX_STDERR_PER_SEAT = 64 << 10
MAX_STDERR_TAIL = 8_000
MAX_FAULT = 500
#: Bytes of serialised traces one report may carry (checked on the wire message).
MAX_TRACE_BYTES = 1 << 20
#: The longest a traced call may claim to have taken (a day).
MAX_MILLISECONDS = 86_400_000


@dataclass(frozen=True, slots=True)
class SeatStep:
    """One decision of one seat: what it was asked (recomputed) and what it did."""

    number: int  # 1-based, the seat's own count
    index: int  # in the match's log
    observation: dict[str, Any]
    legal: tuple[games.Action, ...]
    chosen: int
    by_fallback: bool
    seconds: float
    time_left_ms: int
    traced: bool = False
    answer: int = -1
    stderr: str = ""
    fault: str = ""


@dataclass(frozen=True, slots=True)
class SeatView:
    """A finished match from one seat."""

    match: MatchRecord
    seat: int
    steps: tuple[SeatStep, ...]
    traced: bool
    stderr_tail: str = ""
    dropped: int = 0


@dataclass(frozen=True, slots=True)
class _Asked:
    """One of a seat's decisions replayed from the log."""

    index: int
    #: The live state before the decision: read it before the iterator moves on.
    state_before: games.State
    legal: tuple[games.Action, ...]
    chosen: int


def check_traces(match: MatchRecord, outcome: Outcome) -> Outcome:
    """``outcome`` with its traces cleaned (NUL stripped), or InvalidArgumentError when one
    does not fit the (already verified) log: an unknown or repeated seat, decisions out of
    order or beyond the seat's, an answer that is not the logged action, a fault anywhere but
    at the seat's forfeit, or any bound exceeded."""
    if not outcome.traces:
        return outcome
    seats = {t.seat for t in outcome.traces}
    if len(seats) != len(outcome.traces) or not seats <= set(range(len(match.seats))):
        raise InvalidArgumentError("seat traces name an unknown seat, or a seat twice")
    chosen = _chosen_by_seat(match, outcome.decisions)
    cleaned = []
    for trace in outcome.traces:
        _check_one(trace, outcome, chosen.get(trace.seat, []))
        steps = tuple(
            replace(x, stderr=strip_nul(x.stderr), fault=strip_nul(x.fault)) for x in trace.steps
        )
        cleaned.append(replace(trace, steps=steps, stderr_tail=strip_nul(trace.stderr_tail)))
    return replace(outcome, traces=tuple(cleaned))


def _check_one(trace: SeatTraceRecord, outcome: Outcome, asked: Sequence[tuple[int, int]]) -> None:
    """``asked``: (log index, chosen legal index) of each of the seat's decisions."""
    where = f"seat {trace.seat}'s trace"
    if len(trace.steps) > MAX_TRACED_DECISIONS:
        raise InvalidArgumentError(f"{where}: more than {MAX_TRACED_DECISIONS} decisions")
    if trace.dropped < 0 or len(trace.steps) + trace.dropped > len(asked):
        raise InvalidArgumentError(
            f"{where}: {len(trace.steps)} decisions and {trace.dropped} dropped; the log has "
            f"{len(asked)} for that seat"
        )
    if len(trace.stderr_tail) > MAX_STDERR_TAIL:
        raise InvalidArgumentError(f"{where}: stderr tail longer than {MAX_STDERR_TAIL}")
    if sum(len(x.stderr) for x in trace.steps) > MAX_STDERR_PER_SEAT:
        raise InvalidArgumentError(f"{where}: more than {MAX_STDERR_PER_SEAT} of stderr")
    forfeit_at = outcome.seats[trace.seat].forfeit_at
    for i, step in enumerate(trace.steps):
        log_index, chosen = asked[i]
        at = f"{where}, decision {i}"
        if len(step.stderr) > MAX_STDERR_PER_DECISION or len(step.fault) > MAX_FAULT:
            raise InvalidArgumentError(f"{at}: stderr or fault beyond its bound")
        if not 0 <= step.milliseconds <= MAX_MILLISECONDS:
            raise InvalidArgumentError(f"{at}: {step.milliseconds} ms is not a time")
        fallback = outcome.decisions[log_index].by_fallback
        if fallback or step.fault:
            # Only the forfeiting decision was asked and then played by the fallback; the
            # seat was never asked again after it.
            if log_index != forfeit_at or i != len(trace.steps) - 1:
                raise InvalidArgumentError(f"{at}: a fault or fallback move but no forfeit here")
        elif step.answer != chosen:
            raise InvalidArgumentError(
                f"{at}: answered {step.answer}, the log applied legal action {chosen}"
            )


def _replayed(match: MatchRecord, decisions: Sequence[DecisionRecord]) -> Iterator[_Asked]:
    """Every decision of the log replayed: the state before it (live, not a copy: cheap), its
    legal actions, and the index of the logged action among them."""
    spec = v.game_spec(match.game)
    state = spec.new_game(num_players=len(match.seats), seed=match.seed)
    for d in decisions:
        legal = tuple(state.legal_actions())
        try:
            action = spec.action_from_dict(json.loads(d.action_json))
            chosen = legal.index(action)
        except Exception:  # a verified log replays; a stored one may have been edited
            raise FailedPreconditionError(
                f"the log of match {match.match_id} does not replay at decision {d.index}"
            ) from None
        yield _Asked(d.index, state, legal, chosen)
        state.apply(action)


def _chosen_by_seat(
    match: MatchRecord, decisions: Sequence[DecisionRecord]
) -> dict[int, list[tuple[int, int]]]:
    out: dict[int, list[tuple[int, int]]] = {}
    for asked, d in zip(_replayed(match, decisions), decisions, strict=True):
        out.setdefault(d.player, []).append((asked.index, asked.chosen))
    return out


def seat_view(store: Store, match: MatchRecord, seat: int, published: bool) -> SeatView:
    """``seat``'s view of a finished, published match (the caller has checked who may see
    it); FAILED_PRECONDITION before, INVALID_ARGUMENT for a seat the match does not have."""
    if not 0 <= seat < len(match.seats):
        raise InvalidArgumentError(
            f"match {match.match_id} has seats 0..{len(match.seats) - 1}, not {seat}"
        )
    if match.status is not MatchStatus.FINISHED or not published:
        raise FailedPreconditionError(
            f"match {match.match_id} is {match.status.value} or shares its seed with matches "
            "still being played: a seat's view is shown with its log, once the block is final"
        )
    decisions = store.get_decisions(match.match_id)
    trace = store.get_seat_trace(match.match_id, seat)
    traced = trace.steps if trace is not None else ()
    steps: list[SeatStep] = []
    bank = match.time_bank_ms / 1000
    deadline = match.decision_time_ms / 1000
    for asked in _replayed(match, decisions):
        d = decisions[asked.index]
        if d.player != seat:
            continue
        number = len(steps)
        extra = traced[number] if number < len(traced) else None
        steps.append(
            SeatStep(
                number=number + 1,
                index=asked.index,
                observation=asked.state_before.observation(seat),
                legal=asked.legal,
                chosen=asked.chosen,
                by_fallback=d.by_fallback,
                seconds=d.seconds,
                time_left_ms=int((deadline + max(0.0, bank)) * 1000),
                traced=extra is not None,
                answer=extra.answer if extra is not None else asked.chosen,
                stderr=extra.stderr if extra is not None else "",
                fault=extra.fault if extra is not None else "",
            )
        )
        bank -= max(0.0, d.seconds - deadline)  # the runner's time bank, from the log
    return SeatView(
        match=match,
        seat=seat,
        steps=tuple(steps),
        traced=trace is not None,
        stderr_tail=trace.stderr_tail if trace is not None else "",
        dropped=trace.dropped if trace is not None else 0,
    )
