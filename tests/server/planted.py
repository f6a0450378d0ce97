"""Rated results of planted strengths, recorded through the store's own API (create, queue,
claim, finalize: what a worker's report does), for the refit tests and the read benchmark."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

import games
from server.storage import (
    DecisionRecord,
    NewMatch,
    NewTournament,
    Outcome,
    SeatOutcome,
    SqlStore,
    TournamentStatus,
)

NOW = datetime(2026, 1, 1, 12, 0, 0)
SOURCE = "from bots.sdk import run\nrun(lambda observation, legal: 0)\n"


@dataclass(frozen=True)
class Field:
    """Bots of one game with planted strengths (natural log units), by version id."""

    game: str
    rules_version: str
    version_ids: tuple[int, ...]
    strengths: tuple[float, ...]


def bots(store: SqlStore, game: str, rules: str, names: Sequence[str], seed: int = 0) -> Field:
    """Upload ``names`` (one user owns them) with random planted strengths."""
    user = store.get_user("planter") or store.create_user("planter", False, NOW)
    ids = []
    for name in names:
        code = f"{SOURCE}# {name}\n".encode()
        record, _ = store.add_bot_version(
            name, game, code, hashlib.sha256(code).hexdigest(), name, user.user_id
        )
        ids.append(record.version_id)
    rng = np.random.default_rng(seed)
    return Field(game, rules, tuple(ids), tuple(float(x) for x in rng.normal(0, 1, len(ids))))


def tables(
    field: Field, matches: int, k: int, seed: int
) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """``matches`` tables of ``k`` seats: (version ids by seat, ranks by seat), the finishing
    order drawn from the planted Plackett-Luce model (a tie now and then)."""
    rng = np.random.default_rng(seed)
    out = []
    strength = np.array(field.strengths)
    for _ in range(matches):
        seats = rng.choice(len(field.version_ids), size=k, replace=False)
        keys = rng.gumbel(size=k) + strength[seats]
        order = np.argsort(-keys)
        ranks = np.empty(k, np.int64)
        ranks[order] = np.arange(k)
        if k > 2 and rng.random() < 0.1:  # the last two tie
            ranks[order[-1]] = ranks[order[-2]]
        out.append((tuple(field.version_ids[s] for s in seats), tuple(int(r) for r in ranks)))
    return out


def create(
    store: SqlStore,
    field: Field,
    tournament_id: str,
    played: Sequence[tuple[tuple[int, ...], tuple[int, ...]]],
    *,
    per_block: int = 2,
) -> None:
    """A running rated tournament of these tables (pending), every ``per_block`` consecutive
    tables one duplicate block (round)."""
    k = max(len(seats) for seats, _ in played)
    matches = tuple(
        NewMatch(
            f"{tournament_id}.m{i}", i // per_block, 0, i % per_block, i // per_block + 1, seats
        )
        for i, (seats, _) in enumerate(played)
    )
    store.create_tournament(
        NewTournament(
            tournament_id=tournament_id,
            game=field.game,
            rules_version=field.rules_version,
            format="round_robin",
            players_per_table=k,
            rounds=max(1, len(played) // per_block),
            seed=1,
            decision_time_ms=100,
            time_bank_ms=1000,
            rated=True,
            entry_version_ids=tuple(sorted({v for seats, _ in played for v in seats})),
            matches=matches,
        )
    )
    store.set_tournament_status(tournament_id, TournamentStatus.RUNNING, [TournamentStatus.CREATED])


def play(
    store: SqlStore,
    tournament_id: str,
    played: Sequence[tuple[tuple[int, ...], tuple[int, ...]]],
    *,
    first: int = 0,
    chunk: int = 500,
) -> None:
    """Record the results of a created tournament's matches ``first`` on (these tables'
    ranks) as workers' reports are: queued, claimed, finalized in chunks of ``chunk``."""
    for at in range(0, len(played), chunk):
        part = range(at, min(at + chunk, len(played)))
        ids = [f"{tournament_id}.m{first + i}" for i in part]
        store.mark_queued(ids, NOW)
        # one transaction a chunk, as a worker's block claim is
        lease = NOW + timedelta(days=3650)
        store.claim_matches([(m, lease, "h-" + m) for m in ids], "w", "planter", NOW)
        reports = []
        for match_id, i in zip(ids, part, strict=True):
            outcome = Outcome(tuple(SeatOutcome(10 - r, r) for r in played[i][1]), (), 0.5)
            reports.append((match_id, outcome, "h-" + match_id))
        assert all(store.finalize_matches(reports, NOW))


def record(
    store: SqlStore,
    field: Field,
    tournament_id: str,
    played: Sequence[tuple[tuple[int, ...], tuple[int, ...]]],
    *,
    per_block: int = 2,
    chunk: int = 500,
) -> None:
    """One rated tournament of these tables, every result recorded (:func:`create`, then
    :func:`play`)."""
    create(store, field, tournament_id, played, per_block=per_block)
    play(store, tournament_id, played, chunk=chunk)


def record_replayable(store: SqlStore, field: Field, tid: str) -> str:
    """One match played with random legal moves and recorded with its decisions (the
    replay read); its id."""
    state = games.get(field.game).new_game(num_players=2, seed=1)
    rng = random.Random(1)
    decisions = []
    while not state.is_over():
        player = state.to_move()
        assert player is not None
        legal = state.legal_actions()
        action = rng.choice(legal)
        decisions.append(
            DecisionRecord(
                len(decisions),
                player,
                len(legal),
                json.dumps(games.action_to_dict(action)),
                str(action),
                0.001,
                False,
            )
        )
        state.apply(action)
    result = state.result()
    seats = tuple(field.version_ids[:2])
    create(store, field, tid, [(seats, tuple(result.ranks))], per_block=2)
    match_id = f"{tid}.m0"
    store.mark_queued([match_id], NOW)
    store.claim_match(match_id, "w", NOW + timedelta(days=3650), "h-" + match_id)
    seated = tuple(SeatOutcome(s, r) for s, r in zip(result.scores, result.ranks, strict=True))
    outcome = Outcome(seated, tuple(decisions), 0.5)
    assert store.finalize_matches([(match_id, outcome, "h-" + match_id)], NOW) == [True]
    return match_id
