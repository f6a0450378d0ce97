"""Scripted seat clients for runner tests: behave well, then misbehave on cue."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from bots.api import Decision
from games import Action, State
from workers.model import BotError, BotKind, ForfeitReason


class FakeClock:
    """A monotonic clock that only moves when told to."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Scripted:
    """Plays random legal moves; from its ``fail_at``-th decision on, does ``behaviour``."""

    kind = BotKind.UPLOADED

    def __init__(
        self,
        behaviour: str = "ok",
        fail_at: int = 0,
        clock: FakeClock | None = None,
        seconds: float = 0.0,
        seed: int = 0,
    ) -> None:
        self.behaviour = behaviour
        self.fail_at = fail_at
        self.clock = clock
        self.seconds = seconds
        self.rng = random.Random(seed)
        self.asked = 0
        self.closed = False
        self.timeouts: list[float] = []

    def decide(
        self, state: State, legal: Sequence[Action], decision: Decision, timeout_s: float
    ) -> int:
        assert not self.closed, "asked after being closed"
        self.timeouts.append(timeout_s)
        self.asked += 1
        if self.clock is not None:
            self.clock.now += self.seconds
        if self.asked > self.fail_at:
            action: Callable[[], int] | None = {
                "crash": self._crash,
                "raise": self._raise,
                "illegal": lambda: len(legal) + 5,
                "negative": lambda: -1,
                "not_int": lambda: "0",  # type: ignore[return-value,dict-item]
                "garbage": self._garbage,
                "hang": self._hang,
            }.get(self.behaviour)
            if action is not None:
                return action()
        return self.rng.randrange(len(legal))

    def _crash(self) -> int:
        raise BotError(ForfeitReason.CRASH, "the bot exited with status 3")

    def _raise(self) -> int:
        raise ZeroDivisionError("division by zero")

    def _garbage(self) -> int:
        raise BotError(ForfeitReason.BAD_OUTPUT, "answer is not a DecisionResponse")

    def _hang(self) -> int:
        raise BotError(ForfeitReason.TIMEOUT, "no answer within 1.000s")

    def close(self) -> None:
        self.closed = True
