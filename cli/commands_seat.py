"""The CLI's seat view: ``hamlet match replay M --seat N`` and the forfeits of ``match show``.

A seat's view is its bot's owner's (or an admin's) debug view of a finished match: per
decision what the seat saw, its legal actions with the chosen one marked, its time and its
stderr. What it saw is rendered compactly as what the seat saw *beyond the public state* at
that point (its hand, its draws); ``--states`` prints each whole observation as JSON.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from typing import Any

import grpc

from cli import console
from cli.console import out, print_json, to_dict
from hamlet import codec
from hamlet.paging import whole_replay
from hamlet.v1 import arena_pb2, common_pb2

EXIT_OK, EXIT_FAILED = 0, 1
#: The longest rendering of one value of an observation in the compact form.
MAX_VALUE_CHARS = 160


def seat_number(text: str) -> int:
    """A ``--seat`` argument: the seat as ``match show`` numbers it, 1 for the first."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"not a seat: {text!r} (1 is the first seat)")
    return int(text)


def replay_seat(args: argparse.Namespace, stub: Any) -> int:
    """``hamlet match replay ID --seat N``."""
    # N is the seat as people read it (1 is the first); the API counts from 0.
    seat = args.seat - 1
    replay = whole_replay(stub, args.match_id, seat=seat, timeout=max(args.timeout, 60))
    if args.json:
        print_json(to_dict(replay.seat_view))
        return EXIT_OK
    view = replay.seat_view
    out.print(console.match_table(replay.match))
    how = "traced by its worker" if view.traced else "not traced (a built-in bot): from the log"
    out.print(f"Seat {view.seat + 1} ({view.bot_name}): {len(view.decisions)} decisions, {how}")
    before = _public_before(replay)
    for d in view.decisions:
        for line in decision_lines(d, before.get(d.index, {}), args.states):
            out.print(line, markup=False)
    if view.dropped:
        out.print(f"({view.dropped} later decisions were not traced: the trace was full)")
    if view.stderr_tail:
        out.print("stderr at the end of the match:")
        for line in view.stderr_tail.rstrip("\n").splitlines():
            out.print(f"  | {line}", markup=False)
    return EXIT_OK if replay.matches_record else EXIT_FAILED


def decision_lines(
    d: common_pb2.SeatDecision, public: dict[str, Any], full: bool = False
) -> Iterator[str]:
    """The lines of one decision: number, time, what the seat saw, legal actions, stderr."""
    fallback = " (played by the fallback)" if d.by_fallback else ""
    left = d.request.time_left_ms / 1000 if d.HasField("request") else 0.0
    yield (
        f"decision {d.number} (log #{d.index + 1}), {d.seconds:.3f}s of {left:.3f}s left{fallback}"
    )
    observation = codec.struct_to_dict(d.observation)
    if full:
        yield "  saw " + json.dumps(observation, sort_keys=True)
    else:
        seen = [f"{path}={_short(value)}" for path, value in private(observation, public)]
        yield "  saw " + ("  ".join(seen) if seen else "(nothing beyond the public state)")
    for i, text in enumerate(d.legal_text):
        mark = "*" if i == d.chosen else " "
        note = ""
        if d.traced and i == d.answer and d.answer != d.chosen:
            note = "  <- answered"
        yield f"  {mark} {i:>3}  {text}{note}"
    if d.fault:
        yield f"  no answer: {d.fault}"
    elif d.traced and not 0 <= d.answer < len(d.legal_text):
        yield f"  answered {d.answer}: not a legal index"
    for line in d.stderr.rstrip("\n").splitlines():
        yield f"  stderr | {line}"


def private(seen: Any, public: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """The parts of an observation that differ from the public state, as (path, value)."""
    if seen == public:
        return
    if isinstance(seen, dict) and isinstance(public, dict):
        for key, value in seen.items():
            where = f"{path}.{key}" if path else str(key)
            if key in public:
                yield from private(value, public[key], where)
            else:
                yield where, value
    elif isinstance(seen, list) and isinstance(public, list) and len(seen) == len(public):
        for i, (a, b) in enumerate(zip(seen, public, strict=True)):
            yield from private(a, b, f"{path}[{i}]")
    else:
        yield path or "observation", seen


def _short(value: Any) -> str:
    text = json.dumps(value, separators=(",", ":"), sort_keys=True)
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 3] + "..."


def _public_before(replay: common_pb2.Replay) -> dict[int, dict[str, Any]]:
    """The public state before each decision of the log, by log index."""
    states = {0: codec.struct_to_dict(replay.initial_state)}
    for step in replay.steps:
        states[step.index + 1] = codec.struct_to_dict(step.public_state)
    return states


def forfeit_lines(stub: Any, detail: arena_pb2.MatchDetail, timeout: float) -> Iterator[str]:
    """For every forfeit of a match: where it happened, the legal actions then (with the
    answer, for a caller who may see that seat) and the full detail."""
    for seat in detail.match.seats:
        if not seat.forfeit_reason:
            continue
        yield f"seat {seat.seat + 1} ({seat.bot_name}) forfeited: {seat.forfeit_reason}"
        if not seat.forfeit_decision:
            yield "  at a decision withheld until the match's block is final"
        else:
            index = seat.forfeit_decision - 1
            logged = [d for d in detail.decisions if d.index == index]
            step = _seat_step(stub, detail.match.match_id, seat.seat, index, timeout)
            if step is not None:
                yield f"  at decision {seat.forfeit_decision} of the log (its own {step.number}):"
                for i, text in enumerate(step.legal_text):
                    mark = "  <- answered" if step.traced and i == step.answer else ""
                    yield f"    {i:>3}  {text}{mark}"
                if step.fault:
                    yield "    it gave no answer (see the detail)"
                elif step.traced and not 0 <= step.answer < len(step.legal_text):
                    yield f"    answered {step.answer}: not a legal index"
            elif logged:
                yield (
                    f"  at decision {seat.forfeit_decision} of the log, with "
                    f"{logged[0].legal_count} legal actions (listed for the bot's owner only)"
                )
        yield "  detail:"
        # the sandbox joins the last lines of a bot's stderr with " | ": one a line again
        for line in seat.forfeit_detail.replace(" | ", "\n").splitlines() or [""]:
            yield f"    {line}"


def _seat_step(
    stub: Any, match_id: str, seat: int, index: int, timeout: float
) -> common_pb2.SeatDecision | None:
    """The seat's own decision at log ``index``, when the caller may see that seat."""
    try:
        found: arena_pb2.MatchDetail = stub.GetMatch(
            arena_pb2.MatchRef(match_id=match_id, seat=seat), timeout=timeout
        )
    except grpc.RpcError as exc:
        if isinstance(exc, grpc.Call) and exc.code() in (
            grpc.StatusCode.PERMISSION_DENIED,
            grpc.StatusCode.UNAUTHENTICATED,
            grpc.StatusCode.FAILED_PRECONDITION,
        ):
            return None
        raise
    return next((d for d in found.seat_view.decisions if d.index == index), None)
