"""A seat's own view in the replay viewer: what the seat saw, for its bot's owner only.

The web app never decides who may see a seat: it forwards the visitor's cookie token to the
server (:meth:`web.arena.ArenaReader.seat_view`), which answers only the bot's owner or an
admin. Each gRPC refusal becomes a plain message; nothing private is kept after the request.
What the seat saw at the decision nearest the scrubber's position is shown beside the public
board: its observation (the parts the public state lacks first), its legal actions with the
chosen one marked, its time, stderr and fault.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum

import grpc

from hamlet import codec
from hamlet.v1 import common_pb2
from web.arena import ArenaReader

#: The longest rendering of one value of an observation in the definition list.
MAX_VALUE_CHARS = 200


class SeatViewStatus(Enum):
    """What asking for a seat's own view gave."""

    SHOWN = "shown"
    LOG_IN = "log_in"
    NOT_YOURS = "not_yours"
    NOT_FINAL = "not_final"
    UNKNOWN_SEAT = "unknown_seat"


@dataclass(frozen=True)
class SeatViewResult:
    """A seat's view of a match, or why it cannot be shown (``view`` is None then)."""

    status: SeatViewStatus
    message: str
    view: common_pb2.SeatView | None = None


def fetch(reader: ArenaReader, match_id: str, seat: int, token: str | None) -> SeatViewResult:
    """What ``seat`` of ``match_id`` saw, asked for with the visitor's ``token``.

    Refusals become messages (log in / not your bot / not final yet / unknown seat); any other
    gRPC error is raised for the app's error page.
    """
    login = "log in with the token of this seat's bot's owner to see what the seat saw"
    if token is None:
        return SeatViewResult(SeatViewStatus.LOG_IN, login)
    try:
        view = reader.seat_view(match_id, seat, token)
    except grpc.RpcError as exc:
        code = exc.code()  # type: ignore[attr-defined]
        if code is grpc.StatusCode.UNAUTHENTICATED:
            return SeatViewResult(SeatViewStatus.LOG_IN, login)
        if code is grpc.StatusCode.PERMISSION_DENIED:
            return SeatViewResult(
                SeatViewStatus.NOT_YOURS,
                f"not your bot: only the owner of seat {seat + 1}'s bot (or an admin) may see "
                "what it saw",
            )
        if code is grpc.StatusCode.FAILED_PRECONDITION:
            return SeatViewResult(
                SeatViewStatus.NOT_FINAL,
                "not final yet: a seat's view is shown once the match and the other rotations "
                "of its block are final",
            )
        if code is grpc.StatusCode.INVALID_ARGUMENT:
            return SeatViewResult(
                SeatViewStatus.UNKNOWN_SEAT, f"unknown seat: this match has no seat {seat + 1}"
            )
        raise
    return SeatViewResult(
        SeatViewStatus.SHOWN, f"you are viewing seat {seat + 1}'s private view", view
    )


def nearest(view: common_pb2.SeatView, d: int) -> common_pb2.SeatDecision | None:
    """The seat's decision nearest viewer position ``d`` (its board is the state the seat
    answered at log index ``d``); on a tie the earlier one."""
    if not view.decisions:
        return None
    return min(view.decisions, key=lambda s: (abs(s.index - d), s.index))


@dataclass(frozen=True)
class SeenValue:
    """One leaf of an observation: its path, its value as JSON, and whether the public state
    at that point lacks it (what only this seat saw)."""

    path: str
    value: str
    private: bool


@dataclass(frozen=True)
class LegalRow:
    """One legal action with what the seat and the match did with it."""

    index: int
    text: str
    chosen: bool
    answered: bool


@dataclass(frozen=True)
class SeatPanel:
    """What the seat panel shows at one viewer position."""

    seat: int
    bot_name: str
    position: int
    step: common_pb2.SeatDecision | None
    seen: tuple[SeenValue, ...]
    observation_json: str
    legal: tuple[LegalRow, ...]
    stderr: tuple[str, ...]
    stderr_tail: tuple[str, ...]
    traced: bool
    dropped: int
    decisions: int
    time_left: float
    answer_note: str


def _leaves(value: object, path: str = "") -> Iterator[tuple[str, object]]:
    if isinstance(value, dict) and value:
        for key, inner in value.items():
            yield from _leaves(inner, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list) and value:
        for i, inner in enumerate(value):
            yield from _leaves(inner, f"{path}[{i}]")
    else:
        yield path or "observation", value


def _short(value: object) -> str:
    text = json.dumps(value, separators=(",", ":"), sort_keys=True)
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def _lines(text: str) -> tuple[str, ...]:
    return tuple(text.rstrip("\n").splitlines())


def panel(view: common_pb2.SeatView, d: int, states: Sequence[dict[str, object]]) -> SeatPanel:
    """The panel at viewer position ``d``; ``states`` are the public states (the initial one,
    then one after each decision), to tell what only the seat saw."""
    step = nearest(view, d)
    seen: tuple[SeenValue, ...] = ()
    observation_json = ""
    legal: tuple[LegalRow, ...] = ()
    note = ""
    if step is not None:
        observation = codec.struct_to_dict(step.observation)
        before = states[step.index] if step.index < len(states) else {}
        public = dict(_leaves(before))
        rows = [
            SeenValue(path, _short(value), public.get(path, object()) != value)
            for path, value in _leaves(observation)
        ]
        seen = tuple(sorted(rows, key=lambda r: not r.private))  # what only it saw first
        observation_json = json.dumps(observation, indent=2, sort_keys=True)
        legal = tuple(
            LegalRow(i, text, i == step.chosen, step.traced and i == step.answer)
            for i, text in enumerate(step.legal_text)
        )
        if step.fault:
            note = f"no answer: {step.fault}"
        elif step.traced and not 0 <= step.answer < len(step.legal_text):
            note = f"answered {step.answer}: not a legal index"
        elif step.by_fallback:
            note = "played by the fallback bot"
    return SeatPanel(
        seat=view.seat,
        bot_name=view.bot_name,
        position=d,
        step=step,
        seen=seen,
        observation_json=observation_json,
        legal=legal,
        stderr=_lines(step.stderr) if step is not None else (),
        stderr_tail=_lines(view.stderr_tail),
        traced=view.traced,
        dropped=view.dropped,
        decisions=len(view.decisions),
        time_left=(
            step.request.time_left_ms / 1000
            if step is not None and step.HasField("request")
            else 0.0
        ),
        answer_note=note,
    )
