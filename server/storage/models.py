"""SQLAlchemy ORM models: the relational system of record.

``results`` is an append-only log keyed by match id (one row per finished match, in the
order they were recorded); ``ratings`` is derived from it and can always be rebuilt.
Schema changes go through Alembic (``server/migrations``), never ``create_all``.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """Declarative base of every table."""


class User(Base):
    """An account: it owns bots and tournaments and holds API tokens."""

    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    admin: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    #: Set: every token of the user is refused (`hamlet user disable`); None: enabled.
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class ApiToken(Base):
    """An API token: public id, salted key-derivation hash of the secret, scopes, expiry."""

    __tablename__ = "api_tokens"
    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    scopes: Mapped[str] = mapped_column(String(64))  # comma-separated Scope values
    label: Mapped[str] = mapped_column(String(100), default="")
    salt: Mapped[str] = mapped_column(String(32))
    secret_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    expires_at: Mapped[datetime | None] = mapped_column(DateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime)
    #: The token that created this one; revoking it revokes this one (migration 0012).
    parent_id: Mapped[str | None] = mapped_column(String(16), index=True)


class Bot(Base):
    """A named bot; built-in (announced by workers) or uploaded (versions with code)."""

    __tablename__ = "bots"
    __table_args__ = (Index("ix_bots_owner", "owner_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    origin: Mapped[str] = mapped_column(String(16))  # builtin | uploaded | remote
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    #: Who may enter it in other users' events: private | challengeable | open.
    permission: Mapped[str] = mapped_column(String(16), default="private")
    games: Mapped[str] = mapped_column(Text)  # comma-separated game names
    description: Mapped[str] = mapped_column(Text, default="")
    retired: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class BotVersion(Base):
    """One version of a bot; uploaded versions point at their code by SHA-256."""

    __tablename__ = "bot_versions"
    __table_args__ = (UniqueConstraint("bot_id", "version"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), index=True)
    version: Mapped[int] = mapped_column(Integer)
    code_sha256: Mapped[str | None] = mapped_column(ForeignKey("bot_code.sha256"))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    runtime: Mapped[str] = mapped_column(String(16), default="python3")
    #: What the author said of this version when submitting it (or the one before it's).
    description: Mapped[str] = mapped_column(Text, default="")
    #: Remote bots: the registered ``grpc://host:port`` and the PEM roots for ``grpcs``.
    endpoint: Mapped[str] = mapped_column(String(300), default="")
    ca_pem: Mapped[str] = mapped_column(Text, default="")


class BotCode(Base):
    """Uploaded source, content-addressed."""

    __tablename__ = "bot_code"
    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    code: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class Tournament(Base):
    """A tournament: its parameters and status; its matches are rows of ``matches``."""

    __tablename__ = "tournaments"
    __table_args__ = (Index("ix_tournaments_owner_created", "owner_id", "created_at"),)
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(64))
    format: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(16), index=True)
    players_per_table: Mapped[int] = mapped_column(Integer)
    rounds: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    decision_time_ms: Mapped[int] = mapped_column(Integer)
    time_bank_ms: Mapped[int] = mapped_column(Integer)
    rated: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime)
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    seed_nonce: Mapped[str | None] = mapped_column(String(32))
    seed_commitment: Mapped[str | None] = mapped_column(String(64))
    #: Matches the event may play at most (its plan; for SPRT its pair limit): what counts
    #: against its owner's daily match quota.
    planned_matches: Mapped[int] = mapped_column(Integer, default=0)


class TournamentEntry(Base):
    """A bot version entered in a tournament."""

    __tablename__ = "tournament_entries"
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))


class Match(Base):
    """One match: scheduling state, lease and (once final) its outcome."""

    __tablename__ = "matches"
    __table_args__ = (
        Index("ix_matches_page", "tournament_id", "round", "table_index", "rotation"),
        Index("ix_matches_final", "tournament_id", "finished_at"),
        Index("ix_matches_status_queued", "status", "queued_at"),
        Index("ix_matches_pending", "tournament_id", "status", "round", "table_index"),
    )
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id"), index=True)
    game: Mapped[str] = mapped_column(String(64))
    rules_version: Mapped[str] = mapped_column(String(32))
    seed: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16), index=True)
    round: Mapped[int] = mapped_column(Integer)
    table_index: Mapped[int] = mapped_column(Integer)
    rotation: Mapped[int] = mapped_column(Integer)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    #: Attempts voided by the infrastructure (a worker's fault, never a bot's): not counted
    #: in ``attempts``, bounded by their own limit (HAMLET_MAX_INFRA_RETRIES).
    infra_retries: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    claimed_by: Mapped[str | None] = mapped_column(String(128))
    lease_until: Mapped[datetime | None] = mapped_column(DateTime)
    queued_at: Mapped[datetime | None] = mapped_column(DateTime)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime, index=True)
    duration_seconds: Mapped[float] = mapped_column(Float, default=0.0)
    void_reason: Mapped[str] = mapped_column(Text, default="")
    #: SHA-256 of the current claim's attempt token; a report must present the token.
    attempt_hash: Mapped[str | None] = mapped_column(String(64))
    #: The queue message (Celery task id) of the current claim: only a redelivery of that
    #: message may take a live claim over, never a re-sent copy.
    claim_task: Mapped[str | None] = mapped_column(String(64))
    #: The Celery queue: which workers can run it (hamlet.queues).
    queue: Mapped[str] = mapped_column(String(64), default="matches")
    #: How the reporting worker sandboxed its uploaded bots ("insecure" matches are unrated).
    sandbox_tier: Mapped[str] = mapped_column(String(32), default="")


class MatchSeat(Base):
    """A seat of a match: who plays it and, once final, how it ended."""

    __tablename__ = "match_seats"
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    score: Mapped[int | None] = mapped_column(Integer)
    rank: Mapped[int | None] = mapped_column(Integer)
    forfeit_reason: Mapped[str] = mapped_column(String(32), default="")
    forfeit_detail: Mapped[str] = mapped_column(Text, default="")
    forfeit_at: Mapped[int | None] = mapped_column(Integer)


class Decision(Base):
    """One logged decision of a finished match (the action log)."""

    __tablename__ = "decisions"
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    idx: Mapped[int] = mapped_column(Integer, primary_key=True)
    player: Mapped[int] = mapped_column(Integer)
    legal_count: Mapped[int] = mapped_column(Integer)
    action_json: Mapped[str] = mapped_column(Text)
    action_text: Mapped[str] = mapped_column(Text)
    seconds: Mapped[float] = mapped_column(Float)
    by_fallback: Mapped[bool] = mapped_column(Boolean)


class SeatTrace(Base):
    """What a traced seat (an uploaded or remote bot) did in a finished match beyond the log:
    its answers, times, stderr and faults (``steps_json``, bounded by the service), and its
    stderr tail. Written with the result, in the same transaction; kept as long as the match."""

    __tablename__ = "seat_traces"
    match_id: Mapped[str] = mapped_column(
        ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    steps_json: Mapped[str] = mapped_column(Text)
    stderr_tail: Mapped[str] = mapped_column(Text, default="")
    dropped: Mapped[int] = mapped_column(Integer, default=0)


class SprtTest(Base):
    """A head-to-head test: its hypotheses, error rates and verdict (its matches are the
    tournament's)."""

    __tablename__ = "sprt_tests"
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
    elo0: Mapped[float] = mapped_column(Float)
    elo1: Mapped[float] = mapped_column(Float)
    alpha: Mapped[float] = mapped_column(Float)
    beta: Mapped[float] = mapped_column(Float)
    max_pairs: Mapped[int] = mapped_column(Integer)
    verdict: Mapped[str] = mapped_column(String(16), default="continue")


class LadderEntry(Base):
    """A bot that opted in to a game's continuous ladder."""

    __tablename__ = "ladder_entries"
    game: Mapped[str] = mapped_column(String(64), primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), primary_key=True)
    joined_at: Mapped[datetime] = mapped_column(DateTime)


class Invitation(Base):
    """A user asking a bot's owner to let them enter the bot in their events; once accepted,
    a grant until ``expires_at``."""

    __tablename__ = "invitations"
    __table_args__ = (
        Index("ix_invitations_bot", "bot_id", "challenger_id"),
        Index("ix_invitations_challenger", "challenger_id"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    challenger_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    rated: Mapped[bool] = mapped_column(Boolean)
    message: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(16))  # pending | accepted | declined
    created_at: Mapped[datetime] = mapped_column(DateTime)
    answered_at: Mapped[datetime | None] = mapped_column(DateTime)
    expires_at: Mapped[datetime] = mapped_column(DateTime)


class ResultLog(Base):
    """Append-only: one row per finished match, in recording order (ratings rebuild from it)."""

    __tablename__ = "results"
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id"), unique=True)
    game: Mapped[str] = mapped_column(String(64), index=True)
    rated: Mapped[bool] = mapped_column(Boolean)
    bots: Mapped[str] = mapped_column(Text)  # bot names by seat, comma-separated
    ranks: Mapped[str] = mapped_column(Text)  # ranks by seat, comma-separated
    recorded_at: Mapped[datetime] = mapped_column(DateTime)


class Rating(Base):
    """Elo per (game, bot): derived from ``results``."""

    __tablename__ = "ratings"
    game: Mapped[str] = mapped_column(String(64), primary_key=True)
    bot_name: Mapped[str] = mapped_column(String(64), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    draws: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)


class StandingRow(Base):
    """One entry's tally in a tournament (``name@version``), updated in the transaction that
    records each of its results: a tournament's standings are read a page at a time, never
    recomputed from its matches (migration 0013_standings backfills it)."""

    __tablename__ = "standings"
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id"), primary_key=True)
    bot: Mapped[str] = mapped_column(String(80), primary_key=True)  # name@version
    matches: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    draws: Mapped[int] = mapped_column(Integer, default=0)
    losses: Mapped[int] = mapped_column(Integer, default=0)
    points: Mapped[float] = mapped_column(Float, default=0.0)
    forfeits: Mapped[int] = mapped_column(Integer, default=0)


# Best first, the order pages are read in: points, then wins, down; then the name up.
Index(
    "ix_standings_order",
    StandingRow.tournament_id,
    StandingRow.points.desc(),
    StandingRow.wins.desc(),
    StandingRow.bot,
)
