"""GetTournament and GetReplay read a page: GetTournament runs as many SQL statements for a
tournament of 300 finished matches as for one of 3; its standings come in pages whose tokens
are checked; replays come in pages of steps that concatenate to the whole, from a cache that
answers without reading the match's log again."""

from __future__ import annotations

import grpc
import pytest

from hamlet.v1 import arena_pb2
from server.servicers.replay_pages import ReplayPages
from server.services.replaycache import ByteLRU
from server.storage import MatchStatus, Outcome, SeatOutcome
from tests.server import crowd, fakeworker
from tests.server.conftest import Running
from tests.server.test_standings import claim, make_tournament, recompute


def _played(running: Running, matches: int) -> str:
    """A tournament of ``matches`` three-seat matches, every one recorded."""
    store = running.store
    tid = make_tournament(store, 3, matches)
    for i in range(matches):
        digest = claim(store, f"{tid}.m{i}", 0)
        ranks = ((0, 1, 2), (1, 0, 2), (0, 0, 2))[i % 3]
        outcome = Outcome(tuple(SeatOutcome(3 - r, r) for r in ranks), (), 0.1)
        assert store.finalize_match(f"{tid}.m{i}", outcome, crowd.NOW, digest)
    return tid


def _statements(running: Running, call: object) -> int:
    assert callable(call)
    call()  # the first call fills what a warm server holds
    with crowd.counting(running.store.engine) as seen:
        call()
    return seen.count


def test_get_tournament_takes_as_many_statements_at_300_matches_as_at_3(
    running: Running,
) -> None:
    counts = {}
    for size in (3, 300):
        tid = _played(running, size)
        ref = arena_pb2.TournamentRef(tournament_id=tid)
        counts[size] = _statements(running, lambda ref=ref: running.arena.GetTournament(ref))
        got = running.arena.GetTournament(ref)
        assert got.matches_finished == size and got.standings_total == 4
    assert counts[3] == counts[300], counts


def test_standings_come_in_pages_best_first(running: Running) -> None:
    tid = _played(running, 7)
    every = recompute(running.store, tid)
    names, token = [], ""
    while True:
        got = running.arena.GetTournament(
            arena_pb2.TournamentRef(
                tournament_id=tid, standings_page_size=3, standings_page_token=token
            )
        )
        assert got.standings_total == len(every) and len(got.standings) <= 3
        names += [s.bot_name for s in got.standings]
        token = got.standings_next_page_token
        if not token:
            break
    assert names == [s.bot for s in every]
    for bad in ("not-a-token", "e30"):
        with pytest.raises(grpc.RpcError) as err:
            running.arena.GetTournament(
                arena_pb2.TournamentRef(tournament_id=tid, standings_page_token=bad)
            )
        assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert "standings_page_token" in (err.value.details() or "")
    with pytest.raises(grpc.RpcError) as err:
        running.arena.GetTournament(
            arena_pb2.TournamentRef(tournament_id=tid, standings_page_size=1001)
        )
    assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT


def _finished_toy_match(running: Running) -> str:
    fakeworker.announce(running.worker_channel, ["toy"])
    running.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=["alpha", "beta"], players_per_table=2, start=True
        )
    )
    first, second = running.queue.sent[:2]
    fakeworker.play(running.worker_channel, first)
    fakeworker.play(running.worker_channel, second)  # its seed's block: now published
    return first


def test_replay_pages_concatenate_to_the_whole_and_a_cached_page_reads_no_log(
    running: Running,
) -> None:
    match_id = _finished_toy_match(running)
    whole = running.arena.GetReplay(arena_pb2.MatchRef(match_id=match_id, max_steps=2000))
    assert whole.steps_total == len(whole.steps) > 2 and whole.next_step == 0
    assert whole.HasField("initial_state") and whole.matches_record
    steps, first, pages = [], 0, 0
    while True:
        page = running.arena.GetReplay(
            arena_pb2.MatchRef(match_id=match_id, first_step=first, max_steps=2)
        )
        assert page.HasField("initial_state") == (first == 0)
        assert page.steps_total == whole.steps_total and len(page.steps) <= 2
        assert page.replayed_ranks == whole.replayed_ranks and page.matches_record
        steps += page.steps
        pages += 1
        first = page.next_step
        if first == 0:
            break
    assert steps == list(whole.steps) and pages == -(-whole.steps_total // 2)
    with crowd.counting(running.store.engine) as seen:
        running.arena.GetReplay(arena_pb2.MatchRef(match_id=match_id, first_step=1))
    # the record is read (to check it), the log is not (its steps are cached)
    assert seen.count and not any("action_json" in s for s in seen.texts)


@pytest.mark.parametrize(("first", "size"), [(-1, 0), (0, -1), (0, 2001), (10_000, 0)], ids=str)
def test_replay_pages_out_of_range_are_refused(running: Running, first: int, size: int) -> None:
    match_id = _finished_toy_match(running)
    with pytest.raises(grpc.RpcError) as err:
        running.arena.GetReplay(
            arena_pb2.MatchRef(match_id=match_id, first_step=first, max_steps=size)
        )
    assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT


def test_a_cached_replay_is_still_checked_against_the_record(running: Running) -> None:
    match_id = _finished_toy_match(running)
    assert running.arena.GetReplay(arena_pb2.MatchRef(match_id=match_id)).matches_record
    with running.store.engine.begin() as conn:
        conn.exec_driver_sql(
            "update match_seats set score = score + 1 where match_id = ?", (match_id,)
        )
    assert running.store.get_match(match_id).status is MatchStatus.FINISHED  # type: ignore[union-attr]
    assert not running.arena.GetReplay(arena_pb2.MatchRef(match_id=match_id)).matches_record


def test_the_cache_keeps_at_most_its_budget_least_recently_used_first() -> None:
    cache: ByteLRU[str, str] = ByteLRU(100)
    for key in "abcd":
        cache.put(key, key, 30)
    assert len(cache) == 3 and cache.bytes == 90 and cache.get("a") is None
    cache.get("b")  # now the most recently used: c leaves next
    cache.put("e", "e", 30)
    assert cache.get("c") is None and cache.get("b") == "b" and cache.bytes == 90
    cache.put("big", "big", 101)  # larger than the budget: never kept
    assert cache.get("big") is None and cache.bytes <= 100
    calls = []
    assert cache.get_or_compute("f", lambda: (calls.append(1) or "f", 10)) == "f"
    assert cache.get_or_compute("f", lambda: (calls.append(1) or "f", 10)) == "f"
    assert calls == [1] and cache.computed == 1
    assert ReplayPages(0).cache.max_bytes == 0


def test_the_clients_join_every_page(running: Running) -> None:
    from hamlet.paging import tournament_with_standings, whole_replay

    tid = _played(running, 5)
    one = running.arena.GetTournament(arena_pb2.TournamentRef(tournament_id=tid))
    paged = tournament_with_standings(running.arena, tid, page_size=1)
    assert list(paged.standings) == list(one.standings) and len(one.standings) == 4
    assert paged.standings_next_page_token == ""
    match_id = _finished_toy_match(running)
    whole = running.arena.GetReplay(arena_pb2.MatchRef(match_id=match_id))
    joined = whole_replay(running.arena, match_id, max_steps=1)
    assert joined == whole and joined.next_step == 0


def test_the_replay_cache_budget_is_a_setting() -> None:
    from server.config import ConfigError, Settings

    assert Settings.from_env({"HAMLET_REPLAY_CACHE_BYTES": "1000"}).replay_cache_bytes == 1000
    assert Settings.from_env({}).replay_cache_bytes == 64 * 2**20
    with pytest.raises(ConfigError, match="HAMLET_REPLAY_CACHE_BYTES"):
        Settings.from_env({"HAMLET_REPLAY_CACHE_BYTES": "-1"})
