"""The storage interface: what the services need from persistence (no SQLAlchemy here)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import Protocol

from server.elo import BotRating
from server.storage.base import (
    BotRecord,
    BotVersionRecord,
    DecisionRecord,
    DispatchEvent,
    InFlight,
    InvitationRecord,
    MatchRecord,
    MatchStatus,
    NewMatch,
    NewTournament,
    Outcome,
    PendingBlock,
    QuotaUsage,
    RatedResult,
    RatedTail,
    SeatTraceRecord,
    SprtRecord,
    Standing,
    TokenRecord,
    TournamentRecord,
    TournamentStatus,
    UserRecord,
)


class Store(Protocol):
    """What the services need from persistence. Every method is one transaction."""

    def create_user(self, name: str, admin: bool, now: datetime) -> UserRecord:
        """A new user; :class:`StoreConflictError` if the name is taken."""
        ...

    def get_user(self, name: str) -> UserRecord | None:
        """A user by name."""
        ...

    def set_user_disabled(self, name: str, when: datetime | None) -> UserRecord | None:
        """Disable a user from ``when`` (None: enable); the user after, None if unknown."""
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
        parent_id: str | None = None,
    ) -> TokenRecord:
        """Store a new token (``parent_id``: the token that created it)."""
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

    def revoke_token_tree(self, token_id: str, now: datetime) -> list[str]:
        """Revoke a token and every token it created, transitively (idempotent); the ids
        newly revoked."""
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

    def add_remote_version(
        self, name: str, game: str, endpoint: str, ca_pem: str, description: str, owner_id: int
    ) -> tuple[BotRecord, bool]:
        """A new version of a remote bot unless its latest already has this endpoint and CA;
        (bot, created). A new bot belongs to ``owner_id``; an existing one keeps its owner."""
        ...

    def get_bot(self, name: str) -> BotRecord | None:
        """A bot by name."""
        ...

    def get_bot_version(self, name: str, version: int) -> BotRecord | None:
        """A bot at one of its versions (``latest_version`` is then that version)."""
        ...

    def list_bots(self, game: str = "", include_retired: bool = False) -> list[BotRecord]:
        """Bots, by name."""
        ...

    def list_bot_versions(self, name: str) -> list[BotVersionRecord] | None:
        """Every version of a bot, oldest first; ``None`` if the bot is unknown."""
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

    def add_matches(
        self, tournament_id: str, rules_version: str, matches: Sequence[NewMatch]
    ) -> bool:
        """Add matches (PENDING) to a tournament, unless one of them exists already (another
        call added this round first): True if added."""
        ...

    def get_tournament(self, tournament_id: str) -> TournamentRecord | None:
        """A tournament with its counts."""
        ...

    def tournament_counts(self) -> dict[TournamentStatus, int]:
        """How many tournaments are in each status (every status, zeros included)."""
        ...

    def list_tournaments(self, limit: int) -> list[TournamentRecord]:
        """Newest first."""
        ...

    def running_tournament(self, game: str, fmt: str) -> TournamentRecord | None:
        """The newest RUNNING tournament of ``game`` in format ``fmt`` (a ladder's season),
        or None."""
        ...

    def count_tournaments(self, game: str, fmt: str) -> int:
        """How many tournaments of ``game`` in format ``fmt`` there are, in any status."""
        ...

    def set_tournament_status(
        self, tournament_id: str, status: TournamentStatus, only_from: Sequence[TournamentStatus]
    ) -> bool:
        """Change status if the current one is in ``only_from``; True if changed."""
        ...

    def standings_page(
        self, tournament_id: str, limit: int, after: Standing | None = None
    ) -> tuple[list[Standing], int]:
        """Up to ``limit`` standing lines best first, after ``after``; and how many there are."""
        ...

    def rebuild_standings(self, tournament_id: str) -> list[Standing]:
        """Recompute a tournament's standing lines from its finished matches."""
        ...

    def list_matches(
        self, tournament_id: str, statuses: Sequence[MatchStatus] = ()
    ) -> list[MatchRecord]:
        """A tournament's matches (optionally only some statuses), in creation order."""
        ...

    def match_page(
        self, tournament_id: str, after: tuple[int, int, int] | None, limit: int
    ) -> tuple[list[MatchRecord], int]:
        """Up to ``limit`` matches after (round, table, rotation) ``after``, in that order,
        and the tournament's match count; a constant number of queries."""
        ...

    def open_seeds(self, tournament_id: str, seeds: Collection[int]) -> set[int]:
        """Those of ``seeds`` dealt to a match of ``tournament_id`` that is not final (see
        :mod:`server.services.publication`)."""
        ...

    def finished_matches(self, tournament_id: str) -> list[MatchRecord]:
        """A tournament's final matches in the order they became final."""
        ...

    def final_after(
        self, tournament_id: str, after: tuple[str, str] | None, limit: int
    ) -> list[MatchRecord]:
        """Final matches after cursor ``after`` = (finished_at ISO text, match id), in the
        order they became final."""
        ...

    def get_matches(self, match_ids: Sequence[str]) -> list[MatchRecord]:
        """The known ones of ``match_ids``, in that order (one batch of queries)."""
        ...

    def get_match(self, match_id: str) -> MatchRecord | None:
        """A match with its seats."""
        ...

    def get_decisions(self, match_id: str) -> list[DecisionRecord]:
        """A match's action log."""
        ...

    def get_seat_trace(self, match_id: str, seat: int) -> SeatTraceRecord | None:
        """The stored trace of one seat of a finished match (None if it was not traced)."""
        ...

    def set_ladder_entry(self, game: str, bot_name: str, joined: bool, now: datetime) -> bool:
        """Opt a bot in to (or out of) a game's ladder; True if that changed anything."""
        ...

    def ladder_entries(self, game: str) -> list[BotRecord]:
        """The bots on a game's ladder (their latest versions), by name."""
        ...

    def set_bot_permission(self, name: str, permission: str) -> BotRecord | None:
        """Set who may enter a bot in others' events; ``None`` if the bot is unknown."""
        ...

    def add_invitation(
        self,
        bot_name: str,
        challenger_id: int,
        rated: bool,
        message: str,
        now: datetime,
        expires_at: datetime,
    ) -> InvitationRecord | None:
        """A new pending invitation to enter ``bot_name``; ``None`` if the bot is unknown."""
        ...

    def get_invitation(self, invitation_id: int) -> InvitationRecord | None:
        """An invitation by id."""
        ...

    def live_invitations(
        self, bot_name: str, challenger_id: int, now: datetime
    ) -> list[InvitationRecord]:
        """The challenger's pending or accepted invitations for a bot that have not expired
        by ``now``, newest first."""
        ...

    def pending_sent(self, challenger_id: int, now: datetime) -> int:
        """How many of a user's challenges wait for an answer (not yet lapsed)."""
        ...

    def answer_invitation(
        self,
        invitation_id: int,
        status: str,
        now: datetime,
        expires_at: datetime,
        only_from: Sequence[str],
    ) -> InvitationRecord | None:
        """Set an invitation's status (answered at ``now``, until ``expires_at``) if its
        status is in ``only_from``: the new record, or ``None`` if nothing changed."""
        ...

    def list_invitations(
        self, user_id: int, limit: int
    ) -> tuple[list[InvitationRecord], list[InvitationRecord]]:
        """(received: for the user's bots, sent: by the user), each newest first, at most
        ``limit`` each."""
        ...

    def consent_grants(
        self, user_id: int, bot_names: Sequence[str], now: datetime
    ) -> dict[str, bool]:
        """The bots among ``bot_names`` that an accepted invitation, unexpired at ``now``,
        lets ``user_id`` enter: bot name -> whether in rated events too. One query."""
        ...

    def ladder_names(self, game: str) -> list[str]:
        """The names of the bots on a game's ladder (as :meth:`ladder_entries`, names only)."""
        ...

    def save_sprt(self, record: SprtRecord) -> None:
        """Create or update a head-to-head test's record."""
        ...

    def get_sprt(self, tournament_id: str) -> SprtRecord | None:
        """A head-to-head test's record."""
        ...

    def max_round(self, tournament_id: str) -> int | None:
        """The highest round planned so far (None before the first)."""
        ...

    def open_blocks(self, tournament_id: str) -> list[tuple[int, tuple[str, ...]]]:
        """(round, bot names of rotation 0) of every block with a match not yet final."""
        ...

    def match_queues(self, match_ids: Sequence[str]) -> dict[str, str]:
        """The queue of each match."""
        ...

    def match_routes(self, match_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """The queue and the duplicate block (``tournament.rROUND.tTABLE``) of each match,
        in rotation order."""
        ...

    def mark_queued(self, match_ids: Sequence[str], now: datetime) -> list[str]:
        """PENDING/QUEUED/RUNNING (non-final) -> QUEUED, sent at ``now``; ids changed.
        Attempts are not counted here but at each claim."""
        ...

    def claim_match(
        self,
        match_id: str,
        worker_id: str,
        lease_until: datetime,
        attempt_hash: str,
        task_id: str = "",
        now: datetime | None = None,
    ) -> MatchRecord | None:
        """Lease a QUEUED or RUNNING match of a RUNNING tournament to a new attempt (attempts
        + 1); None if the match may not be claimed (final, pending, its tournament is not
        running, or, given ``task_id`` and ``now``, a live claim of another message holds it)."""
        ...

    def claim_matches(
        self,
        claims: Sequence[tuple[str, datetime, str]],
        worker_id: str,
        task_id: str,
        now: datetime,
        before_commit: Callable[[], None] = lambda: None,
    ) -> list[MatchRecord | None]:
        """:meth:`claim_match` for each (match id, lease until, attempt hash) of a block, in
        one transaction; ``before_commit`` runs last inside it and may raise to roll it back."""
        ...

    def renew_leases(
        self, leases: Sequence[tuple[str, str, datetime]], now: datetime
    ) -> list[bool]:
        """Move the lease of each (match id, attempt hash, lease until) still held by that
        attempt (RUNNING, lease not over at ``now``); whether each was."""
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

    def finalize_matches(
        self, reports: Sequence[tuple[str, Outcome, str]], now: datetime
    ) -> list[bool]:
        """Record (match id, outcome, attempt hash) reports in one transaction, each only if
        its attempt holds the match (as :meth:`finalize_match`); whether each was recorded."""
        ...

    def void_attempt(
        self,
        match_id: str,
        reason: str,
        max_attempts: int,
        lease_expired_by: datetime | None = None,
        attempt_hash: str | None = None,
        infra_limit: int | None = None,
        failed_reason: str = "",
    ) -> MatchStatus | None:
        """An attempt failed for infrastructure reasons: QUEUED again, or FAILED when out of
        attempts; ``None`` if the match is unknown or already final (or, with
        ``lease_expired_by``, if its lease was renewed past that time meanwhile; or, with
        ``attempt_hash``, if that is not the current RUNNING attempt). With ``infra_limit``
        the attempt is given back and counted as an infrastructure retry instead: FAILED
        (with ``failed_reason``, if given) at the ``infra_limit``-th."""
        ...

    def cancel_open_matches(self, tournament_id: str, now: datetime) -> int:
        """Cancel every non-final match of a tournament; how many."""
        ...

    def expired_leases(self, now: datetime) -> list[str]:
        """RUNNING matches whose lease ended before ``now``."""
        ...

    def queued_matches(self, queued_before: datetime | None = None) -> list[str]:
        """QUEUED matches (sent before ``queued_before``, if given), oldest first."""
        ...

    def touch_queued(self, match_ids: Sequence[str], now: datetime) -> list[str]:
        """Mark the QUEUED ones of ``match_ids`` as sent again at ``now``; those ids."""
        ...

    def unqueue(self, tournament_id: str) -> int:
        """QUEUED -> PENDING for a tournament whose start could not reach the queue."""
        ...

    def stale_matches(self, now: datetime, queued_before: datetime) -> list[str]:
        """RUNNING matches whose lease expired and QUEUED ones queued before ``queued_before``."""
        ...

    def blocks_in_flight(self) -> list[InFlight]:
        """Every block with a match QUEUED or RUNNING."""
        ...

    def dispatch_events(self) -> list[DispatchEvent]:
        """RUNNING events with PENDING matches, oldest first."""
        ...

    def pending_blocks(
        self, tournament_id: str, after: tuple[int, int] | None, limit: int
    ) -> list[PendingBlock]:
        """Up to ``limit`` blocks of an event whose matches are PENDING, in (round, table)
        order, after the block ``after`` = (round, table) if given."""
        ...

    def unqueue_matches(self, match_ids: Sequence[str]) -> int:
        """QUEUED -> PENDING for these matches (a send that did not happen); how many."""
        ...

    def leaderboard(self, game: str) -> list[BotRating]:
        """Ratings of a game, best first."""
        ...

    def rated_results(self, game: str, rules_version: str) -> list[RatedResult]:
        """Every rated finished match of a game under one rules version, in match-id order."""
        ...

    def rated_log(self, game: str) -> list[tuple[str, datetime, tuple[str, ...], tuple[int, ...]]]:
        """A game's rated results in recording order: (match id, when, bots, ranks)."""
        ...

    def rated_result_count(self, game: str) -> int:
        """How many rated results a game has (changes when a result is recorded)."""
        ...

    def rated_results_after(self, game: str, rules_version: str, after_seq: int) -> RatedTail:
        """The rated finished matches of a game under one rules version recorded after
        ``after_seq`` of the result log, in recording order, and the log's last sequence
        number (0 when empty): what an in-memory design appends."""
        ...

    def rebuild_ratings(self, game: str) -> list[BotRating]:
        """Recompute a game's ratings from the result log; best first."""
        ...

    def quota_usage(self, user_id: int, since: datetime) -> QuotaUsage:
        """What a user uses of each counted quota (daily counts from ``since`` on); one
        query."""
        ...

    def bot_has_code(self, name: str, sha256: str) -> bool:
        """Whether a version of bot ``name`` already has this code (a resubmission adds
        nothing)."""
        ...

    def on_ladder(self, game: str, bot_name: str) -> bool:
        """Whether the bot is on the game's ladder."""
        ...
