"""The values the storage interface speaks (no SQLAlchemy here); the interface itself is
:mod:`server.storage.protocol`."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import UTC, datetime


def utcnow() -> datetime:
    """Naive UTC: both SQLite and PostgreSQL columns are ``timestamp without time zone``."""
    return datetime.now(UTC).replace(tzinfo=None)


class MatchStatus(enum.Enum):
    """Life of a match; the last three are final."""

    PENDING = "pending"
    QUEUED = "queued"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"
    FAILED = "failed"

    @property
    def final(self) -> bool:
        """True once nothing can change the match."""
        return self in (MatchStatus.FINISHED, MatchStatus.CANCELLED, MatchStatus.FAILED)


class TournamentStatus(enum.Enum):
    """Life of a tournament."""

    CREATED = "created"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"

    @property
    def final(self) -> bool:
        """True once no match of the tournament will be played."""
        return self in (TournamentStatus.FINISHED, TournamentStatus.CANCELLED)


class StoreConflictError(Exception):
    """The write contradicts what is stored (e.g. a bot name taken by a built-in bot)."""


@dataclass(frozen=True, slots=True)
class UserRecord:
    """An account."""

    user_id: int
    name: str
    admin: bool
    created_at: datetime
    #: When the user was disabled (every token refused); None while enabled.
    disabled_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class TokenRecord:
    """An API token as stored: the secret only as a salted digest."""

    token_id: str
    user: UserRecord
    scopes: tuple[str, ...]
    label: str
    salt: str
    secret_hash: str
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    #: The token that created this one (None for a root: a bootstrap or a first token).
    parent_id: str | None = None


@dataclass(frozen=True, slots=True)
class BotRecord:
    """A bot and its latest version."""

    name: str
    origin: str  # builtin | uploaded | remote
    games: tuple[str, ...]
    description: str
    latest_version: int
    version_id: int
    retired: bool
    code_sha256: str
    created_at: datetime
    owner: str = ""  # the submitting user's name; empty for built-in bots (the system)
    runtime: str = ""  # of the latest version: builtin, python3, node, native or remote
    endpoint: str = ""  # remote bots: the version's grpc:// or grpcs:// URL
    ca_pem: str = ""  # remote bots over grpcs: the PEM roots ("" = the system's)
    permission: str = "private"  # who may enter it in others' events (services.consent)


@dataclass(frozen=True, slots=True)
class BotVersionRecord:
    """One version of a bot, with how many matches it has finished."""

    name: str
    version: int
    version_id: int
    origin: str  # builtin | uploaded
    games: tuple[str, ...]
    created_at: datetime
    runtime: str  # builtin, python3, node or native
    code_sha256: str  # empty for built-in bots
    description: str
    owner: str  # "" for built-in bots (the system)
    retired: bool  # the bot's: a retired bot's versions enter no new tournament
    latest: bool
    matches: int = 0  # finished matches this version played

    @property
    def label(self) -> str:
        """``name@version``."""
        return f"{self.name}@{self.version}"


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """A seat of a match."""

    seat: int
    bot_name: str
    bot_version: int
    origin: str
    code_sha256: str
    endpoint: str = ""  # remote bots (see BotRecord)
    ca_pem: str = ""
    score: int | None = None
    rank: int | None = None
    forfeit_reason: str = ""
    forfeit_detail: str = ""
    forfeit_at: int | None = None


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A match as stored."""

    match_id: str
    tournament_id: str
    game: str
    rules_version: str
    seed: int
    status: MatchStatus
    round: int
    table: int
    rotation: int
    attempts: int
    decision_time_ms: int
    time_bank_ms: int
    seats: tuple[SeatRecord, ...]
    decision_count: int = 0
    duration_seconds: float = 0.0
    finished_at: datetime | None = None
    void_reason: str = ""
    claimed_by: str = ""
    queued_at: datetime | None = None  # when its message was last sent


@dataclass(frozen=True, slots=True)
class TournamentRecord:
    """A tournament with its match counts by status."""

    tournament_id: str
    game: str
    format: str
    status: TournamentStatus
    bots: tuple[str, ...]  # name@version, entry order
    players_per_table: int
    rounds: int
    seed: int
    decision_time_ms: int
    time_bank_ms: int
    rated: bool
    created_at: datetime
    finished_at: datetime | None
    counts: dict[MatchStatus, int] = field(default_factory=dict)
    owner: str = ""
    seed_nonce: str = ""
    seed_commitment: str = ""
    #: By entry (the order of ``bots``): version ids, owners ("" = system), runtimes.
    entry_version_ids: tuple[int, ...] = ()
    entry_owners: tuple[str, ...] = ()
    entry_runtimes: tuple[str, ...] = ()
    owner_id: int | None = None
    planned_matches: int = 0

    @property
    def matches_total(self) -> int:
        """All matches of the tournament."""
        return sum(self.counts.values())


@dataclass(frozen=True, slots=True)
class Standing:
    """One entry's tally in a tournament: finished matches, and points = players at the
    table - 1 - rank (a seat without a rank counts as last)."""

    bot: str  # name@version
    matches: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    forfeits: int = 0


@dataclass(frozen=True, slots=True)
class DecisionRecord:
    """One logged decision."""

    index: int
    player: int
    legal_count: int
    action_json: str
    action_text: str
    seconds: float
    by_fallback: bool


@dataclass(frozen=True, slots=True)
class SprtRecord:
    """A head-to-head test's settings and verdict."""

    tournament_id: str
    elo0: float
    elo1: float
    alpha: float
    beta: float
    max_pairs: int
    verdict: str


@dataclass(frozen=True, slots=True)
class InvitationRecord:
    """A user's request to enter another user's bot, as stored. ``status`` is what was
    decided (pending | accepted | declined); whether it has lapsed is a matter of
    ``expires_at`` against the clock (``services.consent``)."""

    invitation_id: int
    bot_name: str
    challenger: str  # who asked
    owner: str  # the bot's owner, who answers
    rated: bool
    message: str
    status: str
    created_at: datetime
    answered_at: datetime | None
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class RatedResult:
    """One rated, finished match as the rating fit reads it."""

    match_id: str
    block: str  # tournament, round and table: the matches that share a seed
    seats: tuple[tuple[str, int, int], ...]  # (bot name, version, rank) by seat


@dataclass(frozen=True, slots=True)
class RatedTail:
    """The rated results recorded after a point of the result log, and the new point.

    ``last_seq`` is the log's highest sequence number when the tail was read (whatever the
    game): the next read asks for what came after it."""

    results: tuple[RatedResult, ...]
    last_seq: int


@dataclass(frozen=True, slots=True)
class NewMatch:
    """A match to create: seats are bot version ids by seat."""

    match_id: str
    round: int
    table: int
    rotation: int
    seed: int
    seat_version_ids: tuple[int, ...]
    queue: str = "matches"  # hamlet.queues.queue_for(the seats' runtimes)


@dataclass(frozen=True, slots=True)
class NewTournament:
    """A tournament to create with its matches."""

    tournament_id: str
    game: str
    rules_version: str
    format: str
    players_per_table: int
    rounds: int
    seed: int
    decision_time_ms: int
    time_bank_ms: int
    rated: bool
    entry_version_ids: tuple[int, ...]
    matches: tuple[NewMatch, ...]
    owner_id: int | None = None
    seed_nonce: str = ""
    seed_commitment: str = ""
    #: Matches the event may play at most (0: the length of ``matches``).
    planned_matches: int = 0


@dataclass(frozen=True, slots=True)
class DispatchEvent:
    """A running event with matches waiting to be sent (its flow is its owner's)."""

    tournament_id: str
    owner_id: int | None
    format: str


@dataclass(frozen=True, slots=True)
class InFlight:
    """A duplicate block with a match QUEUED or RUNNING (``running``: one is claimed)."""

    tournament_id: str
    round: int
    table: int
    queue: str
    running: bool


@dataclass(frozen=True, slots=True)
class PendingBlock:
    """A duplicate block not yet sent: its matches in rotation order, and its queue."""

    tournament_id: str
    round: int
    table: int
    queue: str
    match_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SeatOutcome:
    """How one seat ended."""

    score: int
    rank: int
    forfeit_reason: str = ""
    forfeit_detail: str = ""
    forfeit_at: int | None = None


@dataclass(frozen=True, slots=True)
class TracedStep:
    """One traced decision of a seat, as stored: what the log does not hold."""

    #: The index the bot answered (-1: none, see ``fault``).
    answer: int
    milliseconds: int
    stderr: str = ""
    fault: str = ""


@dataclass(frozen=True, slots=True)
class SeatTraceRecord:
    """What a traced seat did in a match beyond the log; ``steps[i]`` is the seat's decision i
    (its observations are not stored: they are recomputed from the log)."""

    seat: int
    steps: tuple[TracedStep, ...]
    stderr_tail: str = ""
    dropped: int = 0


@dataclass(frozen=True, slots=True)
class Outcome:
    """A played match as reported by a worker (validated by the service)."""

    seats: tuple[SeatOutcome, ...]
    decisions: tuple[DecisionRecord, ...]
    duration_seconds: float
    #: The worker ran uploaded bots without the full sandbox: recorded, never rated.
    unrated: bool = False
    sandbox_tier: str = ""
    #: The traced seats' traces (checked against the log by the service).
    traces: tuple[SeatTraceRecord, ...] = ()


@dataclass(frozen=True, slots=True)
class QuotaUsage:
    """What one user uses now of each counted quota (see :mod:`server.services.quotas`)."""

    bots: int = 0  # bots owned, not retired
    versions_today: int = 0  # versions of their bots created since the day began
    stored_bytes: int = 0  # distinct code blobs of every version of their bots
    open_events: int = 0  # tournaments and SPRTs created or running (the ladder aside)
    matches_today: int = 0  # planned_matches of the events they created since the day began
    sprts: int = 0  # SPRTs created or running
    ladder_entries: int = 0  # (game, bot) ladder entries of their bots, across games
