"""Logs and files (issue 22, point 9): refused calls logged with the client and rate-limited
per client; the data directory, database, tokens and logs private whatever the umask; the
metrics endpoint on its own host setting."""

from __future__ import annotations

import io
import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from prometheus_client import CollectorRegistry

from hamlet.v1 import arena_pb2
from server import logs
from server.app import build_server
from server.boundary import RefusalLog
from server.config import ConfigError, Settings
from server.files import secure_data_dir
from server.services.scheduling import MemoryEnqueuer
from tests.server.conftest import serving


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def loose_umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_refusals_are_logged_with_the_client_at_most_at_the_rate(
    tmp_path: Path, toy: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="server.boundary")
    with serving(tmp_path, log_refusals="3/minute") as run:
        bad = arena_pb2.SubmitBotRequest(name="Bad!", game="toy", source="x=1")
        for _ in range(7):
            with pytest.raises(grpc.RpcError):
                run.arena.SubmitBot(bad)
        lines = [r.getMessage() for r in caplog.records if r.name == "server.boundary"]
        assert len(lines) == 3
        assert all("[client ipv4:127.0.0.1:" in line for line in lines)
        unlogged = run.registry.get_sample_value("hamlet_refusal_log_suppressed_total")
        assert unlogged == 4


def test_the_next_logged_refusal_says_how_many_were_not(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="server.boundary")
    now = [0.0]
    refusals = RefusalLog("2/minute", clock=lambda: now[0])
    code = grpc.StatusCode.PERMISSION_DENIED
    for _ in range(5):
        refusals.refused("Arena/SubmitBot", code, "no", "ipv4:10.0.0.1:4000")
    refusals.refused("Arena/SubmitBot", code, "no", "ipv4:10.0.0.2:4000")  # its own share
    now[0] = 61.0
    refusals.refused("Arena/SubmitBot", code, "no", "ipv4:10.0.0.1:4001")
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 4
    assert lines[-1].endswith("(3 more refusals to this client were not logged)")
    assert "10.0.0.2" in lines[2]


def test_tracked_clients_are_bounded() -> None:
    refusals = RefusalLog("1/minute", max_clients=10)
    for i in range(100):
        refusals.refused("Arena/GetMatch", grpc.StatusCode.NOT_FOUND, "no", f"ipv4:10.0.0.{i}:1")
    assert len(refusals._clients) == 10


def test_the_data_directory_database_and_tokens_are_private(
    tmp_path: Path, toy: str, loose_umask: None
) -> None:
    with serving(tmp_path) as run:
        data = run.server.settings.data_dir
        assert mode(data) == 0o700
        assert mode(data / "hamlet.db") == 0o600
        assert mode(data / "admin.token") == 0o600
        assert mode(data / "worker.token") == 0o600


def test_existing_files_are_made_private(tmp_path: Path, loose_umask: None) -> None:
    data = tmp_path / "data"
    (data / "logs").mkdir(parents=True)
    for path in (data / "hamlet.db", data / "hamlet.db-wal", data / "logs" / "server.log"):
        path.write_text("")
        path.chmod(0o644)
    data.chmod(0o755)
    (data / "logs").chmod(0o755)
    secure_data_dir(data, f"sqlite:///{data / 'hamlet.db'}")
    assert mode(data) == mode(data / "logs") == 0o700
    for path in (data / "hamlet.db", data / "hamlet.db-wal", data / "logs" / "server.log"):
        assert mode(path) == 0o600, path


def test_a_log_file_is_private(tmp_path: Path, loose_umask: None) -> None:
    path = tmp_path / "server.log"
    with path.open("a", encoding="utf-8") as stream:
        assert mode(path) == 0o644
        handler = logs.configure("INFO", "text", stream)
        try:
            assert mode(path) == 0o600
        finally:
            logs.unconfigure(handler)
    handler = logs.configure("INFO", "text", io.StringIO())  # not a file: nothing to do
    logs.unconfigure(handler)


def test_the_metrics_endpoint_binds_to_its_own_host(tmp_path: Path, toy: str) -> None:
    assert Settings().metrics_host == "127.0.0.1"
    env = {"HAMLET_GRPC_HOST": "0.0.0.0", "HAMLET_METRICS_HOST": "127.0.0.2"}
    assert Settings.from_env(env).metrics_host == "127.0.0.2"
    assert Settings.from_env({"HAMLET_GRPC_HOST": "0.0.0.0"}).metrics_host == "127.0.0.1"
    settings = Settings(
        data_dir=tmp_path / "data",
        grpc_host="0.0.0.0",
        grpc_port=0,
        metrics_port=0,
        reaper_interval_seconds=3600,
    )
    server, _port = build_server(settings, enqueuer=MemoryEnqueuer(), registry=CollectorRegistry())
    try:
        assert server.metrics_http is not None
        assert server.metrics_http.server_address[0] == "127.0.0.1"
    finally:
        server.stop(grace=1)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("HAMLET_RATE_AUTH_FAILURES", "lots"),
        ("HAMLET_RATE_WRITES", "0/minute"),
        ("HAMLET_RATE_READS", "5 per fortnight"),
        ("HAMLET_RATE_STORAGE", "disk"),
        ("HAMLET_LOG_REFUSALS", "many"),
    ],
)
def test_bad_rate_settings_are_refused_by_name(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Settings.from_env({name: value})


def test_rate_settings_are_read() -> None:
    settings = Settings.from_env(
        {
            "HAMLET_RATE_AUTH_FAILURES": "3/minute",
            "HAMLET_RATE_WRITES": "100 per 10 seconds",
            "HAMLET_RATE_STORAGE": "redis",
            "HAMLET_LOG_REFUSALS": "5/second",
        }
    )
    assert settings.rate.auth_failures == "3/minute"
    assert settings.rate.writes == "100 per 10 seconds"
    assert settings.rate.storage == "redis"
    assert settings.log_refusals == "5/second"
