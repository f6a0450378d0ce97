"""Persistence behind a small interface: :class:`~server.storage.protocol.Store`.

``server.storage.sql.SqlStore`` implements it with SQLAlchemy 2 (SQLite by default, PostgreSQL
by URL); migrations live in ``server/migrations`` and run at start-up.
"""

from server.storage.base import (
    BotRecord,
    BotVersionRecord,
    DecisionRecord,
    InvitationRecord,
    MatchRecord,
    MatchStatus,
    NewMatch,
    NewTournament,
    Outcome,
    RatedResult,
    RatedTail,
    SeatOutcome,
    SeatRecord,
    SeatTraceRecord,
    SprtRecord,
    StoreConflictError,
    TokenRecord,
    TournamentRecord,
    TournamentStatus,
    TracedStep,
    UserRecord,
)
from server.storage.protocol import Store
from server.storage.sql import SqlStore, open_store

__all__ = [
    "BotRecord",
    "BotVersionRecord",
    "DecisionRecord",
    "InvitationRecord",
    "MatchRecord",
    "MatchStatus",
    "NewMatch",
    "NewTournament",
    "Outcome",
    "RatedResult",
    "RatedTail",
    "SeatOutcome",
    "SeatRecord",
    "SeatTraceRecord",
    "SprtRecord",
    "SqlStore",
    "Store",
    "StoreConflictError",
    "TokenRecord",
    "TournamentRecord",
    "TournamentStatus",
    "TracedStep",
    "UserRecord",
    "open_store",
]
