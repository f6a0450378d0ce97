"""Hygiene of the writes that were not atomic or not bounded: a tournament too large is refused
before it is planned, an announcement is all or nothing (and safe to run twice at once),
ratings can be rebuilt while results are recorded, and a stored log that does not replay is
a refusal, not a fault. On SQLite and PostgreSQL."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import grpc
import pytest

from hamlet.v1 import arena_pb2, worker_pb2
from server.servicers.matchhost import outcome_from_proto
from server.services import tournaments as tournaments_module
from server.services.matches import attempt_digest
from server.storage import (
    NewMatch,
    NewTournament,
    Outcome,
    SeatOutcome,
    SqlStore,
    TournamentStatus,
)
from server.storage.base import utcnow
from tests.server import fakeworker
from tests.server.conftest import Metadata, Running
from tests.server.refusals import assert_refused, finish_others, running_match


def test_a_tournament_too_large_is_refused_before_it_is_planned(
    served: Running,
    admin_metadata: Metadata,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    names = tuple(f"b{i}" for i in range(64))
    fakeworker.announce(served.worker_channel, ["toy"], bots=names)

    def no_planning(*args: Any) -> Any:
        raise AssertionError("a refused tournament was planned")

    monkeypatch.setattr(tournaments_module, "plan_round_robin", no_planning)
    start = time.monotonic()
    assert_refused(
        served,
        lambda: served.arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(
                game="toy", bots=names, players_per_table=4, rounds=1000
            ),
            metadata=admin_metadata,
            timeout=5,
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "64 bots at 4 per table for 1000 rounds make 2541504000 matches; the limit is 20000",
    )
    assert time.monotonic() - start < 2


def test_a_refused_announcement_registers_no_bot(
    served: Running, admin_metadata: Metadata, worker_metadata: Metadata
) -> None:
    assert_refused(
        served,
        lambda: served.host.AnnounceWorker(
            worker_pb2.AnnounceWorkerRequest(
                worker_id="w",
                builtin_bots=[
                    worker_pb2.BuiltinBot(name="good", games=["toy"]),
                    worker_pb2.BuiltinBot(name="Bad Name", games=["toy"]),
                ],
            ),
            metadata=worker_metadata,
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "bad bot name 'Bad Name'",
    )
    bots = served.arena.ListBots(arena_pb2.ListBotsRequest(), metadata=admin_metadata).bots
    assert [b.name for b in bots] == []


def test_an_announcement_conflicting_with_an_uploaded_bot_registers_none(
    served: Running, admin_metadata: Metadata, worker_metadata: Metadata
) -> None:
    served.arena.SubmitBot(
        arena_pb2.SubmitBotRequest(name="taken", game="toy", source="x = 1\n"),
        metadata=admin_metadata,
    )
    assert_refused(
        served,
        lambda: served.host.AnnounceWorker(
            worker_pb2.AnnounceWorkerRequest(
                worker_id="w",
                builtin_bots=[
                    worker_pb2.BuiltinBot(name="aaa", games=["toy"]),
                    worker_pb2.BuiltinBot(name="taken", games=["toy"]),
                ],
            ),
            metadata=worker_metadata,
        ),
        grpc.StatusCode.ALREADY_EXISTS,
        "bot name 'taken' is taken by an uploaded bot",
    )


def _rated_tournament(store: SqlStore, n_matches: int) -> list[str]:
    bots = [store.upsert_builtin_bot(name, ["toy"], name) for name in ("ann", "bob", "cy")]
    ids = [f"t9.m{i}" for i in range(n_matches)]
    store.create_tournament(
        NewTournament(
            tournament_id="t9",
            game="toy",
            rules_version="toy-1",
            format="round_robin",
            players_per_table=2,
            rounds=1,
            seed=1,
            decision_time_ms=100,
            time_bank_ms=1000,
            rated=True,
            entry_version_ids=tuple(b.version_id for b in bots),
            matches=tuple(
                NewMatch(
                    match_id, 0, i, 0, i, (bots[i % 3].version_id, bots[(i + 1) % 3].version_id)
                )
                for i, match_id in enumerate(ids)
            ),
        )
    )
    return ids


def test_rebuild_ratings_while_results_are_recorded(store: SqlStore) -> None:
    ids = _rated_tournament(store, 40)
    rebuilder = SqlStore(store.engine)  # another writer, as `hamlet rebuild-ratings` is
    errors: list[BaseException] = []
    recording = threading.Event()

    store.set_tournament_status("t9", TournamentStatus.RUNNING, [TournamentStatus.CREATED])
    now = datetime(2026, 1, 1)
    store.mark_queued(ids, now)
    for match_id in ids:
        store.claim_match(match_id, "w", now + timedelta(minutes=5), "h")

    def record() -> None:
        try:
            for i, match_id in enumerate(ids):
                outcome = Outcome((SeatOutcome(1, i % 2), SeatOutcome(0, 1 - i % 2)), (), 0.1)
                assert store.finalize_match(match_id, outcome, now, "h")
        except BaseException as exc:
            errors.append(exc)
        finally:
            recording.set()

    def rebuild() -> None:
        try:
            while not recording.is_set():
                rebuilder.rebuild_ratings("toy")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=record), threading.Thread(target=rebuild)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert sum(line.games for line in store.leaderboard("toy")) == 2 * len(ids)
    assert store.leaderboard("toy") == rebuilder.rebuild_ratings("toy")


def test_workers_announcing_the_same_new_bots_at_once_all_succeed(
    served: Running, admin_metadata: Metadata, worker_metadata: Metadata
) -> None:
    names = [f"c{i}" for i in range(12)]
    request = worker_pb2.AnnounceWorkerRequest(
        worker_id="pool",
        builtin_bots=[worker_pb2.BuiltinBot(name=n, games=["toy"]) for n in names],
    )
    start = threading.Barrier(6)
    codes: list[grpc.StatusCode] = []

    def announce() -> None:
        start.wait()
        try:
            served.host.AnnounceWorker(request, metadata=worker_metadata, timeout=30)
        except grpc.RpcError as err:
            codes.append(err.code())  # type: ignore[attr-defined]

    threads = [threading.Thread(target=announce) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert codes == []
    bots = served.arena.ListBots(arena_pb2.ListBotsRequest(), metadata=admin_metadata).bots
    assert sorted(b.name for b in bots) == sorted(names)
    assert {b.latest_version for b in bots} == {1}


def test_a_recorded_log_that_does_not_replay_is_a_failed_precondition(
    served: Running, admin_metadata: Metadata, worker_metadata: Metadata
) -> None:
    """A log stored before reports were replayed on arrival (or damaged in the database)."""
    spec = running_match(served, admin_metadata, worker_metadata)
    outcome = outcome_from_proto(fakeworker.play_outcome(spec))
    bad = replace(outcome.decisions[0], action_json="not json")
    outcome = replace(outcome, decisions=(bad, *outcome.decisions[1:]))
    digest = attempt_digest(served.attempts[spec.match_id])
    assert served.store.finalize_match(spec.match_id, outcome, utcnow(), digest)
    finish_others(served, spec.match_id)
    assert_refused(
        served,
        lambda: served.arena.GetReplay(
            arena_pb2.MatchRef(match_id=spec.match_id), metadata=admin_metadata
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        f"the log of match {spec.match_id} does not replay at decision 0: JSONDecodeError",
    )
