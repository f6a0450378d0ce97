"""A storage outage: every call answers UNAVAILABLE with a retry hint (reads, writes and the
authentication that reads tokens), the log says it once with the count of calls refused,
and nothing is answered INTERNAL or logged with a traceback."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from hamlet.v1 import arena_pb2
from server.outage import RETRY_AFTER_KEY, RETRY_AFTER_S, StorageOutage, is_outage
from tests.server import fakeworker
from tests.server.conftest import Running


class _Switch:
    """Makes every statement of an engine fail as a lost database does, while on."""

    def __init__(self) -> None:
        self.on = False

    def fail(self, *_: Any) -> None:
        if self.on:
            raise sqlite3.OperationalError("disk I/O error")


@pytest.fixture
def outage(running: Running) -> Iterator[_Switch]:
    switch = _Switch()
    engine = running.store.engine
    event.listen(engine, "do_execute", switch.fail)
    event.listen(engine, "do_execute_no_params", switch.fail)
    yield switch
    switch.on = False
    event.remove(engine, "do_execute", switch.fail)
    event.remove(engine, "do_execute_no_params", switch.fail)


def _create(running: Running) -> Any:
    return running.arena.CreateTournament.with_call(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=["alpha", "beta"], players_per_table=2, rounds=1
        ),
        timeout=30,
    )


def test_an_outage_answers_unavailable_and_is_logged_once_with_a_count(
    running: Running, outage: _Switch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    fakeworker.announce(running.worker_channel, ["toy"])
    running.arena.ListTournaments(arena_pb2.ListTournamentsRequest(), timeout=30)  # warm
    outage.on = True
    codes = []
    for _ in range(3):
        with pytest.raises(grpc.RpcError) as read:
            running.arena.ListTournaments(arena_pb2.ListTournamentsRequest(), timeout=30)
        codes.append(read.value.code())
    with pytest.raises(grpc.RpcError) as write:
        _create(running)
    codes.append(write.value.code())
    assert codes == [grpc.StatusCode.UNAVAILABLE] * 4
    assert f"retry in {RETRY_AFTER_S} s" in write.value.details()
    trailers = dict(write.value.trailing_metadata())
    assert trailers[RETRY_AFTER_KEY] == str(RETRY_AFTER_S)

    outage.on = False
    _, call = _create(running)
    assert call.code() is grpc.StatusCode.OK

    lines = [r.getMessage() for r in caplog.records if r.name == "server.outage"]
    assert len(lines) == 2, lines
    assert lines[0].startswith("storage unavailable (OperationalError: disk I/O error)")
    assert "4 call(s) were refused with UNAVAILABLE" in lines[1]
    assert not [r for r in caplog.records if r.exc_info], "no traceback for an outage"
    assert not [r for r in caplog.records if "internal error" in r.getMessage()]


def test_a_schema_bug_is_not_an_outage() -> None:
    bug = OperationalError("SELECT x", {}, sqlite3.OperationalError("no such table: x"))
    lost = OperationalError("SELECT 1", {}, sqlite3.OperationalError("disk I/O error"))
    assert not is_outage(bug)
    assert is_outage(lost)
    assert not is_outage(ValueError("not storage"))


def test_an_outage_is_counted_until_a_statement_runs_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="server.outage")
    now = [100.0]
    outage = StorageOutage(clock=lambda: now[0])
    outage.succeeded()  # nothing to end
    lost = OperationalError("SELECT 1", {}, sqlite3.OperationalError("connection refused"))
    for _ in range(5):
        outage.refused(lost)
    assert outage.out
    now[0] = 112.5
    outage.succeeded()
    outage.succeeded()
    assert not outage.out
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 2
    assert "after 12.5 s of outage: 5 call(s)" in messages[1]


def test_the_reaper_meets_an_outage_without_a_traceback_and_it_is_not_a_call(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="server.outage")
    outage = StorageOutage()
    lost = OperationalError("SELECT 1", {}, sqlite3.OperationalError("connection refused"))
    outage.refused(lost, call=False)
    outage.refused(lost, call=False)
    outage.refused(lost)
    outage.succeeded()
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 2 and "1 call(s)" in messages[1]
