"""A worker's outcome before it is recorded: checked against its match, text cleaned."""

from __future__ import annotations

from dataclasses import replace

from server.services import validation as v
from server.services.errors import InvalidArgumentError
from server.services.forfeits import public_detail
from server.services.hygiene import finite_seconds, no_nul, strip_nul
from server.storage import MatchRecord, Outcome

FORFEIT_REASONS = ("crash", "timeout", "illegal_action", "bad_output", "unreachable")
MAX_DETAIL = 2000


def check_outcome(match: MatchRecord, outcome: Outcome) -> None:
    """Refuse an outcome that cannot be this match's (before it is replayed)."""
    n = len(match.seats)
    if len(outcome.seats) != n:
        raise InvalidArgumentError(
            f"match {match.match_id} has {n} seats; the report has {len(outcome.seats)}"
        )
    for i, seat in enumerate(outcome.seats):
        if not 0 <= seat.rank < n:
            raise InvalidArgumentError(f"seat {i}: rank {seat.rank} is outside 0..{n - 1}")
        if seat.forfeit_reason and seat.forfeit_reason not in FORFEIT_REASONS:
            raise InvalidArgumentError(f"seat {i}: unknown forfeit reason {seat.forfeit_reason!r}")
        if len(seat.forfeit_detail) > MAX_DETAIL:
            raise InvalidArgumentError(f"seat {i}: forfeit detail is longer than {MAX_DETAIL}")
    finite_seconds("duration_seconds", outcome.duration_seconds)
    if 0 not in [s.rank for s in outcome.seats]:
        raise InvalidArgumentError("no seat is ranked first (rank 0)")
    for d in outcome.decisions:
        if not 0 <= d.player < n:
            raise InvalidArgumentError(f"decision {d.index}: player {d.player} is not a seat")
        finite_seconds(f"decision {d.index}: seconds", d.seconds)
        no_nul(f"decision {d.index}: action_json", d.action_json)
    limit = v.game_spec(match.game).max_decisions
    if len(outcome.decisions) > limit:
        raise InvalidArgumentError(
            f"{len(outcome.decisions)} decisions; {match.game} never needs more than {limit}"
        )
    if [d.index for d in outcome.decisions] != list(range(len(outcome.decisions))):
        raise InvalidArgumentError("decision indexes must be 0, 1, 2, ... in order")


def clean_outcome(outcome: Outcome) -> Outcome:
    """The outcome with its forfeit details made public (what happened, never the bot's own
    output: see :mod:`server.services.forfeits`; the owner reads that in the seat trace) and
    NUL characters stripped from action texts. Structured fields are checked, not cleaned."""
    seats = tuple(
        replace(seat, forfeit_detail=public_detail(seat.forfeit_reason, seat.forfeit_detail))
        for seat in outcome.seats
    )
    # Copy only the decisions that need it: a match logs hundreds, almost never with a NUL.
    decisions = tuple(
        replace(d, action_text=strip_nul(d.action_text)) if "\x00" in d.action_text else d
        for d in outcome.decisions
    )
    return replace(outcome, seats=seats, decisions=decisions)
