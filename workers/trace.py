"""What one seat saw and did in a match: the data behind ``hamlet bot play --trace`` and the
owner's seat view of a ranked match.

:class:`TracingClient` wraps any :class:`~workers.model.SeatClient` and records, for every
decision the bot was asked, the observation it was sent (the seat's own view, never the
full state), the legal actions, its answer, how long it took and what it wrote to stderr
while deciding. The runner needs no change: fallback moves after a forfeit never reach the
client, so they are not in the trace (the match's decision log has them).

Bounds: a trace keeps at most ``max_decisions`` decisions and ``stderr_per_decision`` bytes of
stderr per decision, so a chatty or long-playing bot cannot make a record unbounded.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol, runtime_checkable

import games
from bots.api import Decision
from games import Action, State
from workers.model import BotError, BotKind, SeatClient, SeatTrace, TracedDecision

#: Defaults for the bounds (per seat, per match). The server refuses a reported trace beyond
#: them (``server/services/seattraces.py`` holds the same numbers; a test keeps them equal).
MAX_TRACED_DECISIONS = 2_000
MAX_STDERR_PER_DECISION = 2_000
MAX_STDERR_TAIL = 8_000
#: Characters of per-decision stderr kept for one seat in one match; later decisions keep none.
MAX_STDERR_PER_SEAT = 64 << 10
#: Characters of a fault's text (the runner keeps as much of a forfeit's detail).
MAX_FAULT = 500


@runtime_checkable
class StderrSource(Protocol):
    """A client that can say what its bot wrote to stderr (sandboxed bots)."""

    def stderr_mark(self) -> int:
        """Bytes of stderr read from the bot so far."""
        ...

    def stderr_tail(self) -> str:
        """The last of the bot's stderr, as text."""
        ...


class TracingClient:
    """A :class:`SeatClient` that records what its seat saw and answered."""

    def __init__(
        self,
        inner: SeatClient,
        seat: int,
        clock: Callable[[], float] = time.monotonic,
        max_decisions: int = MAX_TRACED_DECISIONS,
        stderr_per_decision: int = MAX_STDERR_PER_DECISION,
    ) -> None:
        self._inner = inner
        #: The wrapped client's kind.
        self.kind: BotKind = inner.kind
        self._seat = seat
        self._clock = clock
        self._max = max_decisions
        self._stderr_cap = stderr_per_decision
        self._steps: list[TracedDecision] = []
        self._dropped = 0

    def thaw(self) -> None:
        """Wake the wrapped seat if it is a frozen sandbox (see :mod:`workers.sandbox_freeze`)."""
        wake = getattr(self._inner, "thaw", None)
        if wake is not None:
            wake()

    def decide(
        self, state: State, legal: Sequence[Action], decision: Decision, timeout_s: float
    ) -> int:
        """Ask the wrapped client and remember the exchange."""
        observation = state.observation(decision.seat)
        mark = self._stderr_mark()
        began = self._clock()
        answer, fault = -1, ""
        try:
            answer = self._inner.decide(state, legal, decision, timeout_s)
            return answer
        except BotError as exc:
            fault = f"{exc.reason.value}: {exc.detail}"
            raise
        except Exception as exc:  # the runner turns this into a crash; the trace says so too
            fault = f"crash: {type(exc).__name__}: {exc}"
            raise
        finally:
            self._remember(
                TracedDecision(
                    seat_decision=decision.seat_decision_index,
                    observation=observation,
                    legal=tuple(games.action_to_dict(a) for a in legal),
                    answer=answer if isinstance(answer, int) else -1,
                    seconds=max(0.0, self._clock() - began),
                    stderr=self._stderr_since(mark),
                    fault=fault,
                )
            )

    def close(self) -> None:
        """Close the wrapped client."""
        self._inner.close()

    def trace(self) -> SeatTrace:
        """The trace so far."""
        tail = ""
        if isinstance(self._inner, StderrSource):
            tail = self._inner.stderr_tail()[-MAX_STDERR_TAIL:]
        return SeatTrace(self._seat, tuple(self._steps), tail, self._dropped)

    def _remember(self, step: TracedDecision) -> None:
        if len(self._steps) < self._max:
            self._steps.append(step)
        else:
            self._dropped += 1

    def _stderr_mark(self) -> int:
        return self._inner.stderr_mark() if isinstance(self._inner, StderrSource) else 0

    def _stderr_since(self, mark: int) -> str:
        if not isinstance(self._inner, StderrSource):
            return ""
        new = self._inner.stderr_mark() - mark
        if new <= 0:
            return ""
        text = self._inner.stderr_tail()[-new:]  # the tail holds at least the newest bytes
        return text[-self._stderr_cap :]


def bounded(trace: SeatTrace) -> SeatTrace:
    """``trace`` within the per-seat bounds a report must keep: stderr per decision, stderr per
    seat (later decisions lose theirs, marked), the fault's length and the tail's."""
    budget = MAX_STDERR_PER_SEAT
    steps = []
    for step in trace.decisions:
        stderr = step.stderr[-MAX_STDERR_PER_DECISION:]
        if len(stderr) > budget:
            stderr = "[stderr dropped: the per-match budget is spent]" if budget > 60 else ""
            budget = 0
        else:
            budget -= len(stderr)
        steps.append(replace(step, stderr=stderr, fault=step.fault[:MAX_FAULT]))
    return replace(trace, decisions=tuple(steps), stderr_tail=trace.stderr_tail[-MAX_STDERR_TAIL:])


def decision_indices(players: Sequence[int], seat: int) -> list[int]:
    """The positions in a match's decision log (by player) where ``seat`` decided, in order:
    maps a :class:`TracedDecision`'s ``seat_decision`` to the log's decision index."""
    return [i for i, p in enumerate(players) if p == seat]
