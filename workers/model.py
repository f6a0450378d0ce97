"""The values a worker deals in: the match it plays, its seats, and what came of it.

Plain frozen dataclasses, free of protobuf and Celery; ``workers.reporting`` converts them
to and from the MatchHost messages.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bots.api import Decision
from games import Action, State


class BotKind(enum.Enum):
    """Where a seat's bot runs (mirrors ``hamlet.v1.BotKind``)."""

    BUILTIN = "builtin"
    UPLOADED = "uploaded"
    REMOTE = "remote"


class ForfeitReason(enum.Enum):
    """Why a seat forfeited (mirrors ``hamlet.v1.ForfeitReason``)."""

    CRASH = "crash"
    TIMEOUT = "timeout"
    ILLEGAL_ACTION = "illegal_action"
    BAD_OUTPUT = "bad_output"
    UNREACHABLE = "unreachable"


@dataclass(frozen=True, slots=True)
class SeatPlan:
    """Who plays one seat."""

    seat: int
    bot_name: str
    bot_version: int
    kind: BotKind
    code_sha256: str = ""
    #: Remote bots: the pinned ``ip:port`` to dial, never a name (``open_bot_channel``).
    endpoint: str = ""
    tls: bool = False
    ca_pem: str = ""
    tls_server_name: str = ""
    endpoint_url: str = ""  # as registered, for messages
    #: Non-empty: the server refused the endpoint at claim time; the seat forfeits.
    unreachable: str = ""


@dataclass(frozen=True, slots=True)
class MatchPlan:
    """Everything needed to play one match, as claimed from the server."""

    match_id: str
    game: str
    rules_version: str
    seed: int
    seats: tuple[SeatPlan, ...]
    decision_time_s: float
    time_bank_s: float


@dataclass(frozen=True, slots=True)
class Forfeit:
    """A seat that lost by fault at decision ``at_decision``."""

    seat: int
    reason: ForfeitReason
    detail: str
    at_decision: int


@dataclass(frozen=True, slots=True)
class LoggedDecision:
    """One decision as played; with the seed, the log replays the match exactly."""

    player: int
    legal_count: int
    action: dict[str, Any]
    action_text: str
    seconds: float
    by_fallback: bool


@dataclass(frozen=True, slots=True)
class TracedDecision:
    """One decision as the seat met it."""

    #: The seat's own decision counter (0, 1, 2, ... for this seat), as the bot was told.
    seat_decision: int
    #: The seat's observation as sent to the bot (JSON-like).
    observation: dict[str, Any]
    #: The legal actions as dicts, in the order the bot was given them.
    legal: tuple[dict[str, Any], ...]
    #: The index the bot answered; -1 when it faulted instead (see ``fault``).
    answer: int
    seconds: float
    #: What the bot wrote to stderr while deciding (bounded; "" for built-in bots).
    stderr: str = ""
    #: The fault's text when the bot failed to answer, else "". (A fault the runner finds in
    #: an answer, an illegal index or an exhausted bank, is in the match's forfeit record.)
    fault: str = ""


@dataclass(frozen=True, slots=True)
class SeatTrace:
    """Everything one seat saw and did in one match."""

    seat: int
    decisions: tuple[TracedDecision, ...]
    #: The last of the bot's stderr at the end of the match (bounded).
    stderr_tail: str = ""
    #: Decisions not kept because the trace was full.
    dropped: int = 0


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """The outcome of a played match."""

    match_id: str
    game: str
    seed: int
    scores: tuple[int, ...]
    #: By seat, 0 = best; forfeited seats share the last rank.
    ranks: tuple[int, ...]
    forfeits: tuple[Forfeit, ...]
    decisions: tuple[LoggedDecision, ...]
    duration_s: float
    #: An uploaded bot ran without the full sandbox (``HAMLET_SANDBOX=insecure``).
    unrated: bool = False
    #: The sandbox tier uploaded bots ran in ("" when the match had none).
    sandbox_tier: str = ""
    #: What the traced seats (uploaded and remote bots) did, for their owners' view.
    traces: tuple[SeatTrace, ...] = ()


class InfrastructureError(RuntimeError):
    """A fault that is no bot's: the engine, the sandbox, the server, a missing bot.

    The worker voids the attempt (the server re-queues the match) instead of blaming a seat.
    """


class BotError(Exception):
    """A seat's bot failed to answer properly: a result (forfeit), never a retry."""

    def __init__(self, reason: ForfeitReason, detail: str) -> None:
        super().__init__(f"{reason.value}: {detail}")
        self.reason = reason
        self.detail = detail


class SeatClient(Protocol):
    """How the runner asks one seat's bot; built-in, sandboxed and remote bots alike."""

    kind: BotKind

    def decide(
        self, state: State, legal: Sequence[Action], decision: Decision, timeout_s: float
    ) -> int:
        """An index into ``legal`` within ``timeout_s``; :class:`BotError` otherwise.

        Out-of-range indices are returned as they are: the runner judges legality.
        """
        ...

    def close(self) -> None:
        """Release the bot (kill its process, close its channel). Idempotent."""
        ...
