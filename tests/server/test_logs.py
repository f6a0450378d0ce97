"""Server logging: the stderr handler and its formats, and what the running server logs
(refused writes, unexpected and storage errors under an id, voided and failed matches)."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator

import grpc
import pytest
from sqlalchemy.exc import OperationalError

from hamlet.v1 import arena_pb2, worker_pb2
from server import logs
from tests.server import fakeworker
from tests.server.conftest import Metadata, Running, row_counts


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.mark.usefixtures("restore_logging")
def test_json_lines_with_the_traceback() -> None:
    stream = io.StringIO()
    logs.configure("INFO", "json", stream)
    logging.getLogger("server.x").debug("not shown")
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("server.x").exception("failed %s", "here")
    (line,) = [json.loads(x) for x in stream.getvalue().splitlines()]
    assert (line["level"], line["logger"], line["message"]) == ("ERROR", "server.x", "failed here")
    assert "ValueError: boom" in line["exception"]


@pytest.mark.usefixtures("restore_logging")
def test_text_lines_and_one_handler_however_often_configured() -> None:
    stream = io.StringIO()
    logs.configure("WARNING", "text", io.StringIO())
    logs.configure("DEBUG", "text", stream)
    logging.getLogger("server.y").debug("hello")
    assert re.fullmatch(r"\S+ \S+ DEBUG server\.y: hello\n", stream.getvalue())
    with pytest.raises(ValueError, match="log level must be one of"):
        logs.configure("LOUD")


def test_passwords_are_hidden() -> None:
    assert logs.redact_url("postgresql+psycopg://u:pw@db:5432/x") == (
        "postgresql+psycopg://u:***@db:5432/x"
    )
    assert logs.redact_url("redis://:pw@h:1/0") == "redis://:***@h:1/0"
    assert logs.redact_url("sqlite:////tmp/h.db") == "sqlite:////tmp/h.db"


def test_a_refused_write_is_logged_with_its_reason(
    running: Running, admin_metadata: Metadata, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    with pytest.raises(grpc.RpcError):
        running.arena.SubmitBot(
            arena_pb2.SubmitBotRequest(name="Bad!", game="toy", source="x=1"),
            metadata=admin_metadata,
        )
    (record,) = [r for r in caplog.records if r.name == "server.boundary"]
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith(
        "refused Arena/SubmitBot: INVALID_ARGUMENT: bad bot name 'Bad!'"
    )


def test_an_unexpected_storage_error_is_logged_under_the_id_it_answers(
    served: Running,
    admin_metadata: Metadata,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def disk_full(*args: object) -> None:
        raise OperationalError(
            "INSERT INTO bot_code (sha256, code) VALUES (?, ?)",
            {},
            Exception("database or disk is full"),
        )

    monkeypatch.setattr(served.store, "add_bot_version", disk_full)
    before = row_counts(served.store.engine)
    with pytest.raises(grpc.RpcError) as err:
        served.arena.SubmitBot(
            arena_pb2.SubmitBotRequest(name="full", game="toy", source="x = 1\n"),
            metadata=admin_metadata,
        )
    assert err.value.code() == grpc.StatusCode.INTERNAL  # type: ignore[attr-defined]
    details = err.value.details()  # type: ignore[attr-defined]
    found = re.fullmatch(
        r"internal error ([0-9a-f]{8}): the server could not complete Arena/SubmitBot; "
        r"its log has the details under this id",
        details,
    )
    assert found, details
    assert row_counts(served.store.engine) == before
    (record,) = [r for r in caplog.records if found.group(1) in r.getMessage()]
    assert record.levelno == logging.ERROR
    assert record.getMessage() == (
        f"storage error {found.group(1)} in Arena/SubmitBot: OperationalError"
    )
    assert record.exc_info is not None
    assert "database or disk is full" in str(record.exc_info[1])


def test_voided_and_failed_matches_are_logged(
    running: Running,
    admin_metadata: Metadata,
    worker_metadata: Metadata,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    fakeworker.announce(running.worker_channel, ["toy"])
    running.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(game="toy", bots=["alpha", "beta"], start=True),
        metadata=admin_metadata,
    )
    match_id = running.queue.sent[0]
    for _ in range(10):  # the default max_infra_retries
        claim = running.host.ClaimMatch(
            worker_pb2.ClaimMatchRequest(match_id=match_id, worker_id="w"),
            metadata=worker_metadata,
        )
        running.host.ReportMatch(
            worker_pb2.ReportMatchRequest(
                match_id=match_id, void_reason="sandbox died", attempt_token=claim.attempt_token
            ),
            metadata=worker_metadata,
        )
    lines = [r.getMessage() for r in caplog.records if r.name == "server.services.matches"]
    assert lines[0] == (
        f"match {match_id} voided by its worker (not counted as an attempt): sandbox died; "
        "queued again"
    )
    assert lines[-1].startswith(f"match {match_id} failed after 10 infrastructure voids: ")
    assert len(lines) == 10


def test_an_unexpected_exception_in_a_stream_answers_only_its_id(
    running: Running,
    admin_metadata: Metadata,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("SELECT secret FROM tournaments -- and a stack trace")

    monkeypatch.setattr(running.store, "get_tournament", broken)
    with pytest.raises(grpc.RpcError) as err:
        list(
            running.arena.WatchTournament(
                arena_pb2.WatchTournamentRequest(tournament_id="t1"),
                metadata=admin_metadata,
                timeout=5,
            )
        )
    assert err.value.code() == grpc.StatusCode.INTERNAL  # type: ignore[attr-defined]
    details = err.value.details()  # type: ignore[attr-defined]
    assert "SELECT" not in details and "Traceback" not in details and "secret" not in details
    eid = re.search(r"internal error ([0-9a-f]{8})", details)
    assert eid, details
    (record,) = [r for r in caplog.records if eid.group(1) in r.getMessage()]
    assert record.getMessage() == (
        f"internal error {eid.group(1)} in Arena/WatchTournament: RuntimeError"
    )
    assert record.exc_info is not None
