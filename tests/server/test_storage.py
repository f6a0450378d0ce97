"""The storage suite, run against SQLite and (when it answers) PostgreSQL."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

import pytest

from server import elo
from server.storage import (
    DecisionRecord,
    MatchStatus,
    NewMatch,
    NewTournament,
    Outcome,
    SeatOutcome,
    SqlStore,
    StoreConflictError,
    TournamentStatus,
)

NOW = datetime(2026, 1, 1, 12, 0, 0)


def _tournament(store: SqlStore, n_matches: int = 2, rated: bool = True) -> NewTournament:
    a = store.upsert_builtin_bot("alpha", ["toy"], "a")
    b = store.upsert_builtin_bot("beta", ["toy"], "b")
    spec = NewTournament(
        tournament_id="t1",
        game="toy",
        rules_version="toy-1",
        format="round_robin",
        players_per_table=2,
        rounds=1,
        seed=42,
        decision_time_ms=100,
        time_bank_ms=1000,
        rated=rated,
        entry_version_ids=(a.version_id, b.version_id),
        matches=tuple(
            NewMatch(
                f"t1.m{i}",
                0,
                0,
                i % 2,
                2**63 - 1 - i,
                (a.version_id, b.version_id)[:: 1 if i % 2 == 0 else -1],
            )
            for i in range(n_matches)
        ),
    )
    store.create_tournament(spec)
    return spec


def _record(store: SqlStore, match_id: str, outcome: Outcome, now: datetime = NOW) -> bool:
    """Claim ``match_id`` as a worker would (starting its tournament if needed), then report."""
    store.set_tournament_status("t1", TournamentStatus.RUNNING, [TournamentStatus.CREATED])
    store.mark_queued([match_id], now)
    store.claim_match(match_id, "w", now + timedelta(minutes=5), "h-" + match_id)
    return store.finalize_match(match_id, outcome, now, "h-" + match_id)


def _outcome(ranks: tuple[int, int] = (0, 1)) -> Outcome:
    decisions = tuple(
        DecisionRecord(i, i % 2, 3, '{"type": "Play", "card": 1}', "play 1", 0.01, False)
        for i in range(4)
    )
    return Outcome((SeatOutcome(10, ranks[0]), SeatOutcome(5, ranks[1])), decisions, 0.5)


def test_builtin_bots_are_idempotent_and_merge_games(store: SqlStore) -> None:
    first = store.upsert_builtin_bot("random", ["village"], "uniform")
    again = store.upsert_builtin_bot("random", ["farmaria"], "")
    assert (again.version_id, again.latest_version) == (first.version_id, 1)
    assert again.games == ("farmaria", "village")
    assert [b.name for b in store.list_bots("village")] == ["random"]


def test_uploaded_versions_are_content_addressed(store: SqlStore) -> None:
    owner = store.create_user("alice", False, NOW).user_id
    bot, created = store.add_bot_version("mine", "village", b"print(1)", "a" * 64, "d", owner)
    assert (created, bot.latest_version, bot.origin) == (True, 1, "uploaded")
    bot, created = store.add_bot_version("mine", "village", b"print(1)", "a" * 64, "", owner)
    assert (created, bot.latest_version) == (False, 1)
    bot, created = store.add_bot_version("mine", "village", b"print(2)", "b" * 64, "", owner)
    assert (created, bot.latest_version, bot.code_sha256) == (True, 2, "b" * 64)
    assert store.get_code("a" * 64) == b"print(1)"
    store.upsert_builtin_bot("random", ["village"], "")
    with pytest.raises(StoreConflictError):
        store.add_bot_version("random", "village", b"x", "c" * 64, "", owner)
    with pytest.raises(StoreConflictError):
        store.upsert_builtin_bot("mine", ["village"], "")


def test_retire(store: SqlStore) -> None:
    store.upsert_builtin_bot("random", ["village"], "")
    assert store.retire_bot("random") is not None
    assert store.list_bots() == []
    assert [b.name for b in store.list_bots(include_retired=True)] == ["random"]
    assert store.retire_bot("nobody") is None


def test_tournament_and_matches(store: SqlStore) -> None:
    spec = _tournament(store, n_matches=3)
    t = store.get_tournament("t1")
    assert t is not None
    assert (t.status, t.matches_total, t.bots) == (
        TournamentStatus.CREATED,
        3,
        ("alpha@1", "beta@1"),
    )
    matches = store.list_matches("t1")
    assert sorted(m.match_id for m in matches) == [m.match_id for m in spec.matches]
    assert [m.rotation for m in matches] == [0, 0, 1]  # ordered by round, table, rotation
    assert store.get_match("t1.m1").seats[0].bot_name == "beta"  # type: ignore[union-attr]
    assert matches[0].seed == 2**63 - 1  # the full signed 64-bit range survives
    assert store.mark_queued([m.match_id for m in matches], NOW) == [m.match_id for m in matches]
    assert store.get_match("t1.m0").status is MatchStatus.QUEUED  # type: ignore[union-attr]


def test_finalize_exactly_once_under_concurrency(store: SqlStore) -> None:
    _tournament(store, n_matches=1)
    store.set_tournament_status("t1", TournamentStatus.RUNNING, [TournamentStatus.CREATED])
    store.mark_queued(["t1.m0"], NOW)
    store.claim_match("t1.m0", "w1", NOW + timedelta(minutes=5), "h1")
    results: list[bool] = []
    barrier = threading.Barrier(4)

    def report() -> None:
        barrier.wait()
        results.append(store.finalize_match("t1.m0", _outcome(), NOW, "h1"))

    threads = [threading.Thread(target=report) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False, False, False, True]
    match = store.get_match("t1.m0")
    assert match is not None and match.status is MatchStatus.FINISHED
    assert match.decision_count == 4
    assert [s.rank for s in match.seats] == [0, 1]
    assert store.get_tournament("t1").status is TournamentStatus.FINISHED  # type: ignore[union-attr]
    board = store.leaderboard("toy")
    assert [(r.bot, r.games, r.wins) for r in board] == [("alpha", 1, 1), ("beta", 1, 0)]


def test_ratings_rebuild_from_the_log_equals_incremental(store: SqlStore) -> None:
    _tournament(store, n_matches=4)
    store.set_tournament_status("t1", TournamentStatus.RUNNING, [TournamentStatus.CREATED])
    for i, ranks in enumerate([(0, 1), (1, 0), (0, 0), (0, 1)]):
        assert _record(store, f"t1.m{i}", _outcome(ranks))
    incremental = store.leaderboard("toy")
    rebuilt = store.rebuild_ratings("toy")
    assert [(r.bot, r.games, r.wins, r.draws, r.losses) for r in rebuilt] == [
        (r.bot, r.games, r.wins, r.draws, r.losses) for r in incremental
    ]
    assert [r.rating for r in rebuilt] == pytest.approx([r.rating for r in incremental])
    assert store.leaderboard("toy") == rebuilt
    assert sum(r.rating for r in rebuilt) == pytest.approx(2 * elo.INITIAL_RATING)


def test_unrated_tournaments_leave_the_leaderboard_alone(store: SqlStore) -> None:
    _tournament(store, n_matches=1, rated=False)
    assert _record(store, "t1.m0", _outcome())
    assert store.leaderboard("toy") == []


def test_void_requeues_then_fails(store: SqlStore) -> None:
    _tournament(store, n_matches=1)
    store.set_tournament_status("t1", TournamentStatus.RUNNING, [TournamentStatus.CREATED])
    store.mark_queued(["t1.m0"], NOW)
    store.claim_match("t1.m0", "w1", NOW + timedelta(minutes=5), "h1")
    assert store.void_attempt("t1.m0", "redis hiccup", max_attempts=2) is MatchStatus.QUEUED
    store.mark_queued(["t1.m0"], NOW)
    store.claim_match("t1.m0", "w1", NOW + timedelta(minutes=5), "h2")
    assert store.void_attempt("t1.m0", "again", max_attempts=2) is MatchStatus.FAILED
    assert store.void_attempt("t1.m0", "late", max_attempts=2) is None
    assert store.get_tournament("t1").status is TournamentStatus.FINISHED  # type: ignore[union-attr]


def test_stale_leases_and_lost_messages(store: SqlStore) -> None:
    _tournament(store, n_matches=2)
    store.set_tournament_status("t1", TournamentStatus.RUNNING, [TournamentStatus.CREATED])
    store.mark_queued(["t1.m0", "t1.m1"], NOW)
    store.claim_match("t1.m0", "w1", NOW + timedelta(seconds=10), "h1")
    assert store.stale_matches(NOW, NOW - timedelta(hours=1)) == []
    assert store.stale_matches(NOW + timedelta(seconds=11), NOW - timedelta(hours=1)) == ["t1.m0"]
    assert store.stale_matches(NOW, NOW + timedelta(seconds=1)) == ["t1.m1"]


def test_attempts_are_counted_at_claims_not_at_sends(store: SqlStore) -> None:
    _tournament(store, n_matches=1)
    store.set_tournament_status("t1", TournamentStatus.RUNNING, [TournamentStatus.CREATED])
    for _ in range(10):  # a long wait in the queue, re-sent again and again
        store.mark_queued(["t1.m0"], NOW)
        assert store.touch_queued(["t1.m0"], NOW) == ["t1.m0"]
    assert store.get_match("t1.m0").attempts == 0  # type: ignore[union-attr]
    store.claim_match("t1.m0", "w1", NOW + timedelta(minutes=5), "h1", "task-a", NOW)
    assert store.get_match("t1.m0").attempts == 1  # type: ignore[union-attr]


def test_a_resent_copy_never_takes_a_live_claim_over(store: SqlStore) -> None:
    _tournament(store, n_matches=1)
    store.set_tournament_status("t1", TournamentStatus.RUNNING, [TournamentStatus.CREATED])
    store.mark_queued(["t1.m0"], NOW)
    lease = NOW + timedelta(seconds=10)
    assert store.claim_match("t1.m0", "w1", lease, "h1", "task-a", NOW) is not None
    assert store.claim_match("t1.m0", "w2", lease, "h2", "task-b", NOW) is None  # a copy
    assert store.attempt_hash("t1.m0") == "h1"
    # the same message redelivered (its worker died) takes over at once ...
    assert store.claim_match("t1.m0", "w2", lease, "h3", "task-a", NOW) is not None
    # ... and any message once the lease is over
    later = lease + timedelta(seconds=1)
    assert store.claim_match("t1.m0", "w3", later, "h4", "task-c", later) is not None
    assert store.get_match("t1.m0").attempts == 3  # type: ignore[union-attr]


def test_a_start_the_broker_refused_can_be_undone(store: SqlStore) -> None:
    _tournament(store, n_matches=2)
    store.mark_queued(["t1.m0", "t1.m1"], NOW)
    assert store.queued_matches() == ["t1.m0", "t1.m1"]
    assert store.unqueue("t1") == 2
    assert store.queued_matches() == []


def test_cancel_open_matches(store: SqlStore) -> None:
    _tournament(store, n_matches=3)
    _record(store, "t1.m0", _outcome())
    assert store.cancel_open_matches("t1", NOW) == 2
    statuses = [m.status for m in store.list_matches("t1")]
    assert statuses == [MatchStatus.FINISHED, MatchStatus.CANCELLED, MatchStatus.CANCELLED]
    assert next(m.match_id for m in store.finished_matches("t1")) == "t1.m0"


def test_a_late_void_never_reopens_a_finished_match(store: SqlStore) -> None:
    """The reaper may decide a lease expired just as the worker's report lands: whichever
    commits first, a finished match stays finished and is never queued again."""
    _tournament(store, n_matches=1)
    store.set_tournament_status("t1", TournamentStatus.RUNNING, [TournamentStatus.CREATED])
    store.mark_queued(["t1.m0"], NOW)
    store.claim_match("t1.m0", "w1", NOW + timedelta(seconds=10), "h1")
    assert store.finalize_match("t1.m0", _outcome(), NOW, "h1")
    later = NOW + timedelta(seconds=11)
    assert store.void_attempt("t1.m0", "lease expired", 5, lease_expired_by=later) is None
    assert store.mark_queued(["t1.m0"], later) == []
    assert store.get_match("t1.m0").status is MatchStatus.FINISHED  # type: ignore[union-attr]


def test_the_reaper_spares_a_match_claimed_again_meanwhile(store: SqlStore) -> None:
    _tournament(store, n_matches=1)
    store.set_tournament_status("t1", TournamentStatus.RUNNING, [TournamentStatus.CREATED])
    store.mark_queued(["t1.m0"], NOW)
    store.claim_match("t1.m0", "w1", NOW + timedelta(seconds=10), "h1")
    later = NOW + timedelta(seconds=11)
    assert store.stale_matches(later, NOW - timedelta(hours=1)) == ["t1.m0"]
    store.claim_match("t1.m0", "w2", later + timedelta(seconds=10), "h2")  # redelivered meanwhile
    assert store.void_attempt("t1.m0", "lease expired", 5, lease_expired_by=later) is None
    assert store.get_match("t1.m0").status is MatchStatus.RUNNING  # type: ignore[union-attr]
