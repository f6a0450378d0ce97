"""What the public may read of a forfeit: what happened, never what the bot wrote.

A worker reports each forfeit with a reason and a detail, and the detail of a crash carries
the last lines of the bot's stderr (``the bot exited with status 1: <its last lines>``), a
remote bot's own error message, or the first bytes a bot printed to stdout. Those are the
bot's output: its owner's to read (they reach the owner in the seat trace, whose faults and
stderr only the owner's seat view shows), not the public's: a bot's stderr may hold what it
saw.

So the server never publishes a worker's detail as it came. :func:`public_detail` rebuilds
the public text from the detail's known shapes (exit status, signal, deadline, index, frame
size, gRPC status code), taking only numbers and status names from it; anything else becomes
a plain word per reason. It is applied when an outcome is recorded (the stored detail is the
public one) and again when a match is read (for matches recorded before).
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: The words for a detail of no known shape, by forfeit reason.
PLAIN = {
    "crash": "crashed",
    "timeout": "no answer in time",
    "illegal_action": "illegal action",
    "bad_output": "unreadable answer",
    "unreachable": "unreachable",
}

_NUM = r"(-?\d+(?:\.\d+)?)"
_CODE = r"([A-Z][A-Z_]{1,30})"
_GRPC_CODES = frozenset(
    [
        "OK",
        "CANCELLED",
        "UNKNOWN",
        "INVALID_ARGUMENT",
        "DEADLINE_EXCEEDED",
        "NOT_FOUND",
        "ALREADY_EXISTS",
        "PERMISSION_DENIED",
        "RESOURCE_EXHAUSTED",
        "FAILED_PRECONDITION",
        "ABORTED",
        "OUT_OF_RANGE",
        "UNIMPLEMENTED",
        "INTERNAL",
        "UNAVAILABLE",
        "DATA_LOSS",
        "UNAUTHENTICATED",
    ]
)
_NOT_DIALLED = "the remote bot's endpoint was not dialled (it no longer passes the server's checks)"
_MEMORY = " (the memory limit of its process tree was reached)"


def _remote(m: re.Match[str]) -> str | None:
    code = m.group(1)
    return f"the call to the remote bot ended with {code}" if code in _GRPC_CODES else None


def _exit(m: re.Match[str]) -> str:
    how = (
        f"exited with status {int(m.group(2))}"
        if m.group(2)
        else f"killed by signal {int(m.group(3))}"
    )
    return f"the bot {how}" + (_MEMORY if m.group(4) else "")


#: (reasons, pattern matched at the start of the detail, the public text built from it).
_SHAPES: tuple[
    tuple[frozenset[str], re.Pattern[str], Callable[[re.Match[str]], str | None]], ...
] = (
    (
        frozenset({"crash"}),
        re.compile(
            r"the bot (exited with status (-?\d{1,4})|killed by signal (\d{1,3}))"
            r"( \(the memory limit of its process tree was reached\))?(?::|$)"
        ),
        _exit,
    ),
    (
        frozenset({"crash"}),
        re.compile(r"the bot exited with status 0 before answering"),
        lambda m: (
            "the bot exited with status 0 before answering (does the file call "
            "bots.sdk.run(decide)?)"
        ),
    ),
    (
        frozenset({"crash"}),
        re.compile(r"the bot (closed its output|process is not running)$"),
        lambda m: f"the bot {m.group(1)}",
    ),
    (
        frozenset({"crash"}),
        re.compile(r"the submission cannot run"),
        lambda m: "the submission cannot run",
    ),
    (
        frozenset({"timeout"}),
        re.compile(rf"no answer within {_NUM}s$"),
        lambda m: f"no answer within {float(m.group(1)):.3f}s",
    ),
    (
        frozenset({"timeout"}),
        re.compile(rf"took {_NUM}s with {_NUM}s left \(deadline plus bank\)$"),
        lambda m: (
            f"took {float(m.group(1)):.3f}s with {float(m.group(2)):.3f}s left (deadline plus bank)"
        ),
    ),
    (
        frozenset({"timeout"}),
        re.compile(rf"used {_NUM} CPU seconds \(whole process tree\); the budget is {_NUM}$"),
        lambda m: (
            f"used {float(m.group(1)):.1f} CPU seconds (whole process tree); the budget "
            f"is {float(m.group(2)):.0f}"
        ),
    ),
    (
        frozenset({"illegal_action"}),
        re.compile(r"answered index (-?\d{1,20}); legal indices are 0\.\.(-?\d{1,9})$"),
        lambda m: f"answered index {int(m.group(1))}; legal indices are 0..{int(m.group(2))}",
    ),
    (
        frozenset({"bad_output"}),
        re.compile(r"wrote text to stdout \(print\?\)"),
        lambda m: (
            "wrote text to stdout (print?): stdout carries the protocol's frames, so "
            "print to stderr instead"
        ),
    ),
    (
        frozenset({"bad_output"}),
        re.compile(r"answer frame of (\d{1,20}) bytes exceeds (\d{1,20})$"),
        lambda m: f"answer frame of {int(m.group(1))} bytes exceeds {int(m.group(2))}",
    ),
    (
        frozenset({"bad_output"}),
        re.compile(r"answer is not a DecisionResponse"),
        lambda m: "answer is not a DecisionResponse",
    ),
    (
        frozenset({"crash", "bad_output", "unreachable"}),
        re.compile(rf"(?:grpcs?://)?(?:\[[0-9A-Fa-f:.]+\]|[^\s:/]+)(?::\d+)?: {_CODE}(?::|$)"),
        _remote,
    ),
    (  # the public texts below, read back (the rule is applied on reads too)
        frozenset({"crash", "bad_output", "unreachable"}),
        re.compile(rf"the call to the remote bot ended with {_CODE}$"),
        _remote,
    ),
    (
        frozenset({"unreachable"}),
        re.compile(r"the remote bot's endpoint was not dialled"),
        lambda m: _NOT_DIALLED,
    ),
    (
        frozenset({"unreachable"}),
        re.compile(r"\S+ not dialled: "),
        lambda m: (
            "the remote bot's endpoint was not dialled (it no longer passes the server's checks)"
        ),
    ),
)


def public_detail(reason: str, detail: str) -> str:
    """The public text of a forfeit with ``reason`` and the worker's ``detail``: what
    happened, without anything the bot wrote ("" when there was no forfeit)."""
    if not reason:
        return ""
    for reasons, pattern, build in _SHAPES:
        if reason in reasons:
            found = pattern.match(detail)
            if found is not None:
                text = build(found)
                if text is not None:
                    return text
    return PLAIN.get(reason, "forfeited")
