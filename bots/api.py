"""The built-in bot interface.

A built-in bot runs inside the worker process and is handed the real
:class:`games.State` so it can search. It must treat that state as read-only and search
only on copies made with ``state.determinize(seat, rng)``: the real state holds hidden
information (other hands, bag order) a seat may not see, and a determinized copy is the
one view of it that is fair to play on.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from games import Action, State


@dataclass(frozen=True, slots=True)
class Decision:
    """What a bot is told about the decision besides the state and the legal actions."""

    game: str
    seat: int
    #: How many decisions this seat was asked before this one (its own count, not the match's).
    seat_decision_index: int
    #: This decision's deadline plus what is left of the seat's time bank, in seconds.
    time_left_s: float
    #: This decision's own deadline in seconds, the bank not included; ``None`` when the
    #: caller gives only ``time_left_s`` (then a time-budgeted bot takes that as the deadline).
    deadline_s: float | None = None


class Bot(Protocol):
    """A built-in bot: one method, answering an index into ``legal``."""

    def decide(self, state: State, legal: Sequence[Action], decision: Decision) -> int:
        """Choose one of ``legal`` (the state's legal actions, in order); return its index."""
        ...


#: Makes a bot for one seat of one match of ``game``; ``rng`` is the bot's only randomness.
BotFactory = Callable[[str, random.Random], Bot]


class UnsupportedGameError(LookupError):
    """A bot was asked to play a game it cannot play (e.g. no heuristic for it yet)."""
