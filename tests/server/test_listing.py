"""ListMatches pages: keyset order, every match once, a constant number of queries a page."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from sqlalchemy import event

from hamlet.paging import all_matches, match_pages
from hamlet.v1 import arena_pb2
from tests.server import fakeworker
from tests.server.conftest import Running

BOTS = ["alpha", "beta", "gamma"]


def _tournament(run: Running, rounds: int) -> str:
    fakeworker.announce(run.worker_channel, ["toy"])
    t = run.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=BOTS, players_per_table=2, rounds=rounds, start=True
        )
    )
    return t.tournament_id


def _statements(run: Running, request: arena_pb2.ListMatchesRequest) -> int:
    seen: list[str] = []

    def count(*_: Any) -> None:
        seen.append("")

    event.listen(run.store.engine, "before_cursor_execute", count)
    try:
        run.arena.ListMatches(request)
    finally:
        event.remove(run.store.engine, "before_cursor_execute", count)
    return len(seen)


def test_pages_cover_every_match_once_in_order(running: Running) -> None:
    tid = _tournament(running, rounds=20)  # 3 tables x 2 rotations x 20 = 120 matches
    pages = list(match_pages(running.arena, tid, page_size=7))
    ids = [m.match_id for p in pages for m in p.matches]
    assert len(ids) == len(set(ids)) == 120
    assert all(p.total == 120 for p in pages)
    assert len(pages) == 18 and not pages[-1].next_page_token
    keys = [(m.round, m.table, m.rotation) for p in pages for m in p.matches]
    assert keys == sorted(keys)
    assert sorted(ids) == sorted(m.match_id for m in all_matches(running.arena, tid))


def test_a_page_costs_the_same_queries_whatever_its_size(running: Running) -> None:
    tid = _tournament(running, rounds=20)
    for match_id in running.queue.sent[:10]:
        assert fakeworker.play(running.worker_channel, match_id).recorded
    small = _statements(running, arena_pb2.ListMatchesRequest(tournament_id=tid, page_size=5))
    large = _statements(running, arena_pb2.ListMatchesRequest(tournament_id=tid, page_size=100))
    assert small == large


def test_a_forged_page_token_is_refused(running: Running) -> None:
    tid = _tournament(running, rounds=1)
    with pytest.raises(grpc.RpcError) as err:
        running.arena.ListMatches(
            arena_pb2.ListMatchesRequest(tournament_id=tid, page_token="1; drop table")
        )
    assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as err:
        running.arena.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=tid, page_size=9999))
    assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT
