"""Creating is idempotent with a client request id: the same request twice makes one event
(tournament or head-to-head test), another user's same id makes their own, and a create
with start refused because the broker is down says exactly what exists; its retry returns
that tournament and starts it. The CLI sends one fresh id per command, the same on retries."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from cli import retrying
from hamlet.v1 import arena_pb2, common_pb2
from tests.server import fakeworker
from tests.server.conftest import Running


def _request(**kw: Any) -> arena_pb2.CreateTournamentRequest:
    args: dict[str, Any] = {
        "game": "toy",
        "bots": ["alpha", "beta"],
        "players_per_table": 2,
        "rounds": 1,
        "rated": False,
        "client_request_id": "3f0c2a5e-1b7d-4c39-9a61-0d2b8e4f7a10",
    }
    args.update(kw)
    return arena_pb2.CreateTournamentRequest(**args)


def _count(run: Running) -> int:
    return len(run.arena.ListTournaments(arena_pb2.ListTournamentsRequest()).tournaments)


def test_the_same_request_twice_makes_one_tournament(running: Running) -> None:
    fakeworker.announce(running.worker_channel, ["toy"])
    first = running.arena.CreateTournament(_request())
    again = running.arena.CreateTournament(_request())
    assert again.tournament_id == first.tournament_id
    assert _count(running) == 1
    # Another request id, or the same id from another user: another tournament.
    other = running.arena.CreateTournament(_request(client_request_id="another-id"))
    _, bob = running.user("bob")
    bobs = bob.CreateTournament(_request())
    assert len({first.tournament_id, other.tournament_id, bobs.tournament_id}) == 3
    assert _count(running) == 3


def test_a_malformed_request_id_is_refused(running: Running) -> None:
    fakeworker.announce(running.worker_channel, ["toy"])
    for bad in ("x" * 65, "no spaces please", "é"):
        with pytest.raises(grpc.RpcError) as err:
            running.arena.CreateTournament(_request(client_request_id=bad))
        assert err.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert "client_request_id" in (err.value.details() or "")
    assert _count(running) == 0


def test_a_start_refused_by_the_broker_names_what_exists_and_its_retry_starts_it(
    running: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    fakeworker.announce(running.worker_channel, ["toy"])
    monkeypatch.setattr(running.queue, "broker_epoch", lambda: None)
    with pytest.raises(grpc.RpcError) as err:
        running.arena.CreateTournament(_request(start=True))
    assert err.value.code() is grpc.StatusCode.UNAVAILABLE
    (made,) = running.arena.ListTournaments(arena_pb2.ListTournamentsRequest()).tournaments
    details = err.value.details() or ""
    assert f"tournament {made.tournament_id} was created (status created)" in details
    assert made.status == common_pb2.TOURNAMENT_STATUS_CREATED

    monkeypatch.undo()  # the broker is back: the retry returns it, started
    again = running.arena.CreateTournament(_request(start=True))
    assert again.tournament_id == made.tournament_id
    assert again.status == common_pb2.TOURNAMENT_STATUS_RUNNING
    assert _count(running) == 1


def test_the_same_head_to_head_request_twice_starts_one_test(running: Running) -> None:
    fakeworker.announce(running.worker_channel, ["toy"])
    req = arena_pb2.StartSprtRequest(
        game="toy",
        bot_a="alpha",
        bot_b="beta",
        opponents=["gamma"],
        elo0=0,
        elo1=10,
        max_pairs=5,
        client_request_id="sprt-1",
    )
    first = running.arena.StartSprt(req)
    again = running.arena.StartSprt(req)
    assert again.test_id == first.test_id
    listed = running.arena.ListTournaments(arena_pb2.ListTournamentsRequest()).tournaments
    assert [t.tournament_id for t in listed] == [first.test_id]


class _Unavailable(grpc.RpcError, grpc.Call):  # type: ignore[misc]
    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "the broker does not answer"


def test_the_cli_retries_with_the_same_request_id() -> None:
    seen: list[str] = []

    def create(request: arena_pb2.CreateTournamentRequest, timeout: float) -> str:
        seen.append(request.client_request_id)
        if len(seen) < 3:
            raise _Unavailable()
        return "made"

    req = arena_pb2.CreateTournamentRequest(client_request_id=retrying.new_request_id())
    assert retrying.call_with_retries(create, req, 5, sleep=lambda _: None) == "made"
    assert len(seen) == 3 and len(set(seen)) == 1
    assert retrying.new_request_id() != retrying.new_request_id()


def test_concurrent_retries_make_one_tournament(running: Running) -> None:
    from concurrent.futures import ThreadPoolExecutor

    fakeworker.announce(running.worker_channel, ["toy"])
    with ThreadPoolExecutor(8) as pool:
        ids = set(
            pool.map(
                lambda _: running.arena.CreateTournament(_request(), timeout=30).tournament_id,
                range(8),
            )
        )
    assert len(ids) == 1
    assert _count(running) == 1
