"""Standings kept as results are recorded equal a recomputation from the finished matches
after every result (random sequences of results, forfeits, shared ranks and voided attempts);
the migration backfills them; pages and their tokens."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta

import pytest
from alembic import command
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.services import entries, standings
from server.services.errors import InvalidArgumentError
from server.storage import (
    MatchStatus,
    NewMatch,
    NewTournament,
    Outcome,
    SeatOutcome,
    SqlStore,
    TournamentStatus,
)
from server.storage.base import Standing
from server.storage.migrate import alembic_config, upgrade

NOW = datetime(2026, 1, 1, 12, 0, 0)
BOTS = ("alpha", "beta", "gamma", "delta")
_ids = itertools.count()


def recompute(store: SqlStore, tournament_id: str) -> list[Standing]:
    """The standings from scratch, as GetTournament computed them before they were kept."""
    table: dict[str, Standing] = {}
    for match in store.list_matches(tournament_id, [MatchStatus.FINISHED]):
        n = len(match.seats)
        first = sum(1 for s in match.seats if s.rank == 0)
        for seat in match.seats:
            rank = seat.rank if seat.rank is not None else n - 1
            key = entries.seat_label(seat)
            old = table.get(key, Standing(key))
            table[key] = Standing(
                bot=old.bot,
                matches=old.matches + 1,
                wins=old.wins + (rank == 0 and first == 1),
                draws=old.draws + (rank == 0 and first > 1),
                losses=old.losses + (rank != 0),
                points=old.points + (n - 1 - rank),
                forfeits=old.forfeits + bool(seat.forfeit_reason),
            )
    return sorted(table.values(), key=lambda s: (-s.points, -s.wins, s.bot))


def make_tournament(store: SqlStore, per_table: int, matches: int, bots: int = 4) -> str:
    """A running tournament of ``matches`` matches at ``per_table`` seats among ``bots``."""
    versions = [store.upsert_builtin_bot(b, ["toy"], b).version_id for b in BOTS[:bots]]
    tid = f"t{next(_ids)}"
    planned = []
    for i in range(matches):
        seats = tuple(versions[(i + k) % len(versions)] for k in range(per_table))
        planned.append(NewMatch(f"{tid}.m{i}", 0, i, 0, i + 1, seats))
    store.create_tournament(
        NewTournament(
            tournament_id=tid,
            game="toy",
            rules_version="toy-1",
            format="round_robin",
            players_per_table=per_table,
            rounds=1,
            seed=7,
            decision_time_ms=100,
            time_bank_ms=1000,
            rated=False,
            entry_version_ids=tuple(versions),
            matches=tuple(planned),
        )
    )
    store.set_tournament_status(tid, TournamentStatus.RUNNING, [TournamentStatus.CREATED])
    return tid


def claim(store: SqlStore, match_id: str, attempt: int) -> str:
    """Queue and claim a match as a worker would; the attempt's hash."""
    digest = f"h-{match_id}-{attempt}"
    store.mark_queued([match_id], NOW)
    assert store.claim_match(match_id, "w", NOW + timedelta(minutes=5), digest) is not None
    return digest


# One step: (match index, what happens, per seat (rank, forfeited)).
STEP = st.tuples(
    st.integers(0, 5),
    st.sampled_from(["finish", "finish", "void", "fail"]),
    st.lists(st.tuples(st.integers(0, 2), st.booleans()), min_size=3, max_size=3),
)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(per_table=st.integers(2, 3), steps=st.lists(STEP, min_size=1, max_size=12))
def test_kept_standings_equal_a_recomputation_after_every_result(
    store: SqlStore, per_table: int, steps: list[tuple[int, str, list[tuple[int, bool]]]]
) -> None:
    tid = make_tournament(store, per_table, 6)
    for attempt, (i, what, seats) in enumerate(steps):
        match_id = f"{tid}.m{i}"
        if store.get_match(match_id).status.final:  # type: ignore[union-attr]
            continue  # a final match takes no second result
        digest = claim(store, match_id, attempt)
        if what == "finish":
            outcome = Outcome(
                tuple(
                    SeatOutcome(10 - rank, rank, "timeout" if forfeit else "")
                    for rank, forfeit in seats[:per_table]
                ),
                (),
                0.1,
            )
            assert store.finalize_match(match_id, outcome, NOW, digest)
        else:  # a voided attempt: queued again, or failed on its last attempt
            store.void_attempt(match_id, "crashed", 1 if what == "fail" else 99)
        kept, total = store.standings_page(tid, 1000)
        assert kept == recompute(store, tid) and total == len(kept)
    assert store.rebuild_standings(tid) == recompute(store, tid)
    assert store.standings_page(tid, 1000)[0] == recompute(store, tid)


def test_a_second_report_of_one_match_changes_no_standing(store: SqlStore) -> None:
    tid = make_tournament(store, 2, 2)
    digest = claim(store, f"{tid}.m0", 0)
    outcome = Outcome((SeatOutcome(1, 0), SeatOutcome(0, 1)), (), 0.1)
    assert store.finalize_match(f"{tid}.m0", outcome, NOW, digest)
    assert not store.finalize_match(f"{tid}.m0", outcome, NOW, digest)
    assert [s.matches for s in store.standings_page(tid, 10)[0]] == [1, 1]


def test_the_migration_backfills_standings_from_finished_matches(store: SqlStore) -> None:
    tid = make_tournament(store, 3, 5)
    for i in range(4):
        digest = claim(store, f"{tid}.m{i}", 0)
        ranks = [(0, 1, 2), (0, 0, 2), (2, 1, 0), (1, 0, 2)][i]
        outcome = Outcome(
            tuple(SeatOutcome(3 - r, r, "crash" if i == 3 and r == 2 else "") for r in ranks),
            (),
            0.1,
        )
        assert store.finalize_match(f"{tid}.m{i}", outcome, NOW, digest)
    expected = recompute(store, tid)
    with store.engine.begin() as conn:  # back to the schema before standings were kept ...
        cfg = alembic_config(store.engine)
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0012")
    upgrade(store.engine)  # ... and forward: the lines are rebuilt from the matches
    assert store.standings_page(tid, 100)[0] == expected and len(expected) == 4


def test_pages_cover_every_line_once_in_order(store: SqlStore) -> None:
    tid = make_tournament(store, 2, 40, bots=4)
    for i in range(40):
        digest = claim(store, f"{tid}.m{i}", 0)
        ranks = (0, 0) if i % 5 == 0 else (i % 2, 1 - i % 2)
        outcome = Outcome((SeatOutcome(1, ranks[0]), SeatOutcome(0, ranks[1])), (), 0.1)
        assert store.finalize_match(f"{tid}.m{i}", outcome, NOW, digest)
    every = recompute(store, tid)
    seen: list[Standing] = []
    token = ""
    while True:
        page = standings.page(store, tid, 1, token)
        assert page.total == len(every)
        seen += page.lines
        token = page.next_page_token
        if not token:
            break
    assert seen == every
    whole = standings.page(store, tid, 0, "")
    assert list(whole.lines) == every and whole.next_page_token == ""


@pytest.mark.parametrize("size", [-1, 1001])
def test_a_page_size_out_of_range_is_refused(store: SqlStore, size: int) -> None:
    tid = make_tournament(store, 2, 1)
    with pytest.raises(InvalidArgumentError, match="standings_page_size"):
        standings.page(store, tid, size, "")


def test_a_token_not_handed_out_for_this_tournament_is_refused(store: SqlStore) -> None:
    tid, other = make_tournament(store, 2, 1), make_tournament(store, 2, 1)
    theirs = standings.page_token(other, Standing("alpha@1", wins=1, points=1.0))
    assert standings.parse_token(other, theirs) == Standing("alpha@1", wins=1, points=1.0)
    for token in ("garbage", "!!!", theirs, standings.page_token(tid, Standing("x"))[:-3]):
        with pytest.raises(InvalidArgumentError, match="standings_page_token"):
            standings.page(store, tid, 10, token)
