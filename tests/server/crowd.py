"""A crowd of users, bots, versions, ladder entries and tournaments, seeded through the store's
own API, and a counter of the SQL statements a call runs (for the query-count tests and
``bench/reads.py``)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, event

from server.storage import (
    NewMatch,
    NewTournament,
    Outcome,
    SeatOutcome,
    SqlStore,
    TournamentStatus,
)

NOW = datetime(2026, 1, 1, 12, 0, 0)
SOURCE = "from bots.sdk import run\nrun(lambda observation, legal: 0)\n"


@dataclass
class Statements:
    """The SQL statements run while counting."""

    texts: list[str]

    @property
    def count(self) -> int:
        """How many, leaving out the caller's token lookup: the server re-verifies a token
        every few seconds, whatever the call (see ``AccountService.authenticate``)."""
        return sum(1 for t in self.texts if "FROM api_tokens" not in t)


@contextmanager
def counting(engine: Engine) -> Iterator[Statements]:
    """Count every statement ``engine`` sends to the database inside the block."""
    seen = Statements([])

    def _before(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        seen.texts.append(statement)

    event.listen(engine, "before_cursor_execute", _before)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", _before)


@dataclass(frozen=True)
class Crowd:
    """What :func:`seed` made."""

    game: str
    bots: tuple[str, ...]  # by name; bot i belongs to owners[i // per_owner]
    owners: tuple[str, ...]
    tournaments: int


def bot_name(i: int) -> str:
    """The name of the crowd's ``i``-th bot."""
    return f"b{i:05d}"


def seed(
    store: SqlStore,
    game: str,
    rules_version: str,
    bots: int,
    *,
    per_owner: int = 3,
    versions: int = 2,
    tournaments: int | None = None,
    ladder: bool = True,
    first: int = 0,
) -> Crowd:
    """``bots`` uploaded bots of ``game`` (``per_owner`` to a user, ``versions`` versions
    each), all on the ladder (without scheduling), and ``tournaments`` (default one per ten
    bots) rated two-bot tournaments of one match, every other one played (so bots have live
    ratings and rated results). With ``first``, bots ``first`` to ``bots - 1`` only (and
    tournaments from one per ten of ``first``): a crowd grows in steps."""
    names = tuple(bot_name(i) for i in range(first, bots))
    owners: list[str] = []
    owner_id = 0
    version_ids: list[int] = []
    for i, name in enumerate(names, start=first):
        if i % per_owner == 0 or not owners:
            owner = f"u{i // per_owner:05d}"
            user = store.get_user(owner) or store.create_user(owner, False, NOW)
            owner_id = user.user_id
            owners.append(owner)
        record = None
        for v in range(versions):
            code = f"{SOURCE}# {name} v{v}\n".encode()
            record, _ = store.add_bot_version(
                name, game, code, hashlib.sha256(code).hexdigest(), f"{name} v{v}", owner_id
            )
        assert record is not None
        version_ids.append(record.version_id)
        if ladder:
            store.set_ladder_entry(game, name, True, NOW)
    count = bots // 10 if tournaments is None else tournaments
    start = first // 10 if tournaments is None else 0
    for t in range(start, count):
        a, b = (version_ids[(2 * t + k) % len(version_ids)] for k in (0, 1))
        tid = f"crowd-{t}"
        store.create_tournament(
            NewTournament(
                tournament_id=tid,
                game=game,
                rules_version=rules_version,
                format="round_robin",
                players_per_table=2,
                rounds=1,
                seed=t + 1,
                decision_time_ms=100,
                time_bank_ms=1000,
                rated=True,
                entry_version_ids=(a, b),
                matches=(NewMatch(f"{tid}.m0", 0, 0, 0, t + 1, (a, b)),),
            )
        )
        if t % 2 == 0:
            _play(store, tid, f"{tid}.m0", t % 4 == 0)
    return Crowd(game, names, tuple(owners), count)


def _play(store: SqlStore, tid: str, match_id: str, first_wins: bool) -> None:
    """Play a match as a worker would report it (no decisions: a quick agreed result)."""
    store.set_tournament_status(tid, TournamentStatus.RUNNING, [TournamentStatus.CREATED])
    store.mark_queued([match_id], NOW)
    store.claim_match(match_id, "w", NOW + timedelta(minutes=5), "h-" + match_id)
    ranks = (0, 1) if first_wins else (1, 0)
    outcome = Outcome((SeatOutcome(10, ranks[0]), SeatOutcome(5, ranks[1])), (), 0.5)
    assert store.finalize_match(match_id, outcome, NOW, "h-" + match_id)
