"""The storage interface and the values it speaks (no SQLAlchemy here)."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from server.elo import BotRating


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


@dataclass(frozen=True, slots=True)
class BotRecord:
    """A bot and its latest version."""

    name: str
    origin: str  # builtin | uploaded
    games: tuple[str, ...]
    description: str
    latest_version: int
    version_id: int
    retired: bool
    code_sha256: str
    created_at: datetime
    owner: str = ""  # the submitting user's name; empty for built-in bots (the system)
    runtime: str = ""  # of the latest version: builtin, python3, node or native


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """A seat of a match."""

    seat: int
    bot_name: str
    bot_version: int
    origin: str
    code_sha256: str
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

    @property
    def matches_total(self) -> int:
        """All matches of the tournament."""
        return sum(self.counts.values())


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
class RatedResult:
    """One rated, finished match as the rating fit reads it."""

    match_id: str
    block: str  # tournament, round and table: the matches that share a seed
    seats: tuple[tuple[str, int, int], ...]  # (bot name, version, rank) by seat


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


@dataclass(frozen=True, slots=True)
class SeatOutcome:
    """How one seat ended."""

    score: int
    rank: int
    forfeit_reason: str = ""
    forfeit_detail: str = ""
    forfeit_at: int | None = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """A played match as reported by a worker (validated by the service)."""

    seats: tuple[SeatOutcome, ...]
    decisions: tuple[DecisionRecord, ...]
    duration_seconds: float
    #: The worker ran uploaded bots without the full sandbox: recorded, never rated.
    unrated: bool = False
    sandbox_tier: str = ""


class Store(Protocol):
    """What the services need from persistence. Every method is one transaction."""

    def create_user(self, name: str, admin: bool, now: datetime) -> UserRecord:
        """A new user; :class:`StoreConflictError` if the name is taken."""
        ...

    def get_user(self, name: str) -> UserRecord | None:
        """A user by name."""
        ...

    def has_admin(self) -> bool:
        """Whether any admin user exists."""
        ...

    def add_token(
        self,
        user_id: int,
        token_id: str,
        scopes: Sequence[str],
        label: str,
        salt: str,
        secret_hash: str,
        now: datetime,
        expires_at: datetime | None,
    ) -> TokenRecord:
        """Store a new token."""
        ...

    def get_token(self, token_id: str) -> TokenRecord | None:
        """A token by its public id."""
        ...

    def list_tokens(self, user_id: int) -> list[TokenRecord]:
        """A user's tokens, oldest first."""
        ...

    def revoke_token(self, token_id: str, now: datetime) -> TokenRecord | None:
        """Mark a token revoked (idempotent); None if unknown."""
        ...

    def upsert_builtin_bot(self, name: str, games: Sequence[str], description: str) -> BotRecord:
        """Register (or refresh) a built-in bot."""
        ...

    def upsert_builtin_bots(
        self, bots: Sequence[tuple[str, Sequence[str], str]]
    ) -> list[BotRecord]:
        """Register several built-in bots ``(name, games, description)`` in one transaction:
        all or none (a :class:`StoreConflictError` on one writes nothing)."""
        ...

    def add_bot_version(
        self,
        name: str,
        game: str,
        code: bytes,
        sha256: str,
        description: str,
        owner_id: int,
        runtime: str = "python3",
    ) -> tuple[BotRecord, bool]:
        """Store code and a new version unless this code is already one; (bot, created).
        A new bot belongs to ``owner_id``; an existing one keeps its owner."""
        ...

    def get_bot(self, name: str) -> BotRecord | None:
        """A bot by name."""
        ...

    def list_bots(self, game: str = "", include_retired: bool = False) -> list[BotRecord]:
        """Bots, by name."""
        ...

    def retire_bot(self, name: str, retired: bool = True) -> BotRecord | None:
        """Mark a bot retired (or restore it with ``retired=False``); ``None`` if unknown."""
        ...

    def get_code(self, sha256: str) -> bytes | None:
        """Uploaded code by hash."""
        ...

    def create_tournament(self, spec: NewTournament) -> TournamentRecord:
        """Create a tournament and all its matches (PENDING)."""
        ...

    def get_tournament(self, tournament_id: str) -> TournamentRecord | None:
        """A tournament with its counts."""
        ...

    def list_tournaments(self, limit: int) -> list[TournamentRecord]:
        """Newest first."""
        ...

    def tournament_counts(self) -> dict[TournamentStatus, int]:
        """How many tournaments are in each status (every status, zeros included)."""
        ...

    def set_tournament_status(
        self, tournament_id: str, status: TournamentStatus, only_from: Sequence[TournamentStatus]
    ) -> bool:
        """Change status if the current one is in ``only_from``; True if changed."""
        ...

    def list_matches(
        self, tournament_id: str, statuses: Sequence[MatchStatus] = ()
    ) -> list[MatchRecord]:
        """A tournament's matches (optionally only some statuses), in creation order."""
        ...

    def finished_matches(self, tournament_id: str) -> list[MatchRecord]:
        """A tournament's final matches in the order they became final."""
        ...

    def get_match(self, match_id: str) -> MatchRecord | None:
        """A match with its seats."""
        ...

    def get_decisions(self, match_id: str) -> list[DecisionRecord]:
        """A match's action log."""
        ...

    def match_queues(self, match_ids: Sequence[str]) -> dict[str, str]:
        """The queue of each match."""
        ...

    def block_open(self, tournament_id: str, round: int, table: int) -> bool:
        """Whether a match of this duplicate block (the rotations sharing a seed) is not final."""
        ...

    def mark_queued(self, match_ids: Sequence[str], now: datetime) -> list[str]:
        """PENDING/QUEUED/RUNNING (non-final) -> QUEUED with attempts + 1; ids changed."""
        ...

    def claim_match(
        self, match_id: str, worker_id: str, lease_until: datetime, attempt_hash: str
    ) -> MatchRecord | None:
        """Lease a QUEUED or RUNNING match of a RUNNING tournament to a new attempt; None if
        the match may not be claimed (final, pending, or its tournament is not running)."""
        ...

    def attempt_hash(self, match_id: str) -> str | None:
        """The digest of the current claim's attempt token (None before any claim)."""
        ...

    def finalize_match(
        self, match_id: str, outcome: Outcome, now: datetime, attempt_hash: str
    ) -> bool:
        """Record a result if the match is RUNNING under this attempt with its lease not expired
        (and update ratings); True if recorded."""
        ...

    def void_attempt(
        self,
        match_id: str,
        reason: str,
        max_attempts: int,
        lease_expired_by: datetime | None = None,
        attempt_hash: str | None = None,
    ) -> MatchStatus | None:
        """An attempt failed for infrastructure reasons: QUEUED again, or FAILED when out of
        attempts; ``None`` if the match is unknown or already final (or, with
        ``lease_expired_by``, if its lease was renewed past that time meanwhile; or, with
        ``attempt_hash``, if that is not the current RUNNING attempt)."""
        ...

    def cancel_open_matches(self, tournament_id: str, now: datetime) -> int:
        """Cancel every non-final match of a tournament; how many."""
        ...

    def stale_matches(self, now: datetime, queued_before: datetime) -> list[str]:
        """RUNNING matches whose lease expired and QUEUED ones queued before ``queued_before``."""
        ...

    def leaderboard(self, game: str) -> list[BotRating]:
        """Ratings of a game, best first."""
        ...

    def rated_results(self, game: str, rules_version: str) -> list[RatedResult]:
        """Every rated finished match of a game under one rules version, in match-id order."""
        ...

    def rated_result_count(self, game: str) -> int:
        """How many rated results a game has (changes when a result is recorded)."""
        ...

    def rebuild_ratings(self, game: str) -> list[BotRating]:
        """Recompute a game's ratings from the result log; best first."""
        ...
