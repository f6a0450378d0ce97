"""The SQLAlchemy implementation of :class:`~server.storage.protocol.Store`.

SQLite (WAL, foreign keys, busy timeout) by default, PostgreSQL by URL. Finalizing a match is
one transaction guarded by ``UPDATE ... WHERE status NOT IN (final)``: of two reports for the
same match exactly one changes a row, so no match is ever recorded twice. The store is built
from one part per concern (accounts, bots and the ladder, tournaments, matches, ratings).
"""

from __future__ import annotations

from server.storage.migrate import upgrade
from server.storage.sql_accounts import AccountsPart
from server.storage.sql_consent import ConsentPart
from server.storage.sql_dispatch import DispatchPart
from server.storage.sql_ladder import LadderPart
from server.storage.sql_plant import PlantPart
from server.storage.sql_quotas import QuotasPart
from server.storage.sql_ratings import RatingsPart
from server.storage.sql_standings import StandingsPart
from server.storage.sql_tournaments import TournamentsPart
from server.storage.sql_traces import TracesPart
from server.storage.sqlbase import make_engine

__all__ = ["SqlStore", "make_engine", "open_store"]


class SqlStore(
    AccountsPart,
    LadderPart,
    TournamentsPart,
    PlantPart,
    RatingsPart,
    StandingsPart,
    TracesPart,
    DispatchPart,
    ConsentPart,
    QuotasPart,
):
    """:class:`~server.storage.protocol.Store` on a SQLAlchemy engine."""


def open_store(url: str, migrate: bool = True) -> SqlStore:
    """A store on ``url``, migrated to the latest schema first."""
    engine = make_engine(url)
    if migrate:
        upgrade(engine)
    return SqlStore(engine)
