"""TLS on the gRPC port: the CLI's and the workers' channels verify the server's certificate."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from prometheus_client import CollectorRegistry

from hamlet.channels import open_channel
from hamlet.v1 import arena_pb2, arena_pb2_grpc
from server.app import HamletServer, build_server
from server.config import ConfigError, Settings
from server.services.scheduling import MemoryEnqueuer
from tests.server.fakeworker import FAKE_WORKER_WINDOW
from workers.config import WorkerConfig

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl binary")


def make_certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for localhost and 127.0.0.1, as docs/running.md shows."""
    cert, key = directory / "server.crt", directory / "server.key"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", str(key), "-out", str(cert),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[HamletServer, int, Path]]:
    cert, key = make_certificate(tmp_path)
    settings = Settings(
        dispatch_window=FAKE_WORKER_WINDOW,
        data_dir=tmp_path / "data",
        grpc_port=0,
        metrics_port=-1,
        reaper_interval_seconds=3600,
        tls_cert=cert,
        tls_key=key,
    )
    server, port = build_server(settings, enqueuer=MemoryEnqueuer(), registry=CollectorRegistry())
    try:
        yield server, port, cert
    finally:
        server.stop(grace=1)


def test_clients_verify_the_server_certificate(
    tls_server: tuple[HamletServer, int, Path], tmp_path: Path
) -> None:
    server, port, cert = tls_server
    admin = (server.settings.data_dir / "admin.token").read_text().strip()
    with open_channel(f"localhost:{port}", token=admin, ca_file=cert) as channel:
        who = arena_pb2_grpc.ArenaStub(channel).WhoAmI(arena_pb2.WhoAmIRequest(), timeout=10)
        assert who.user.name == "admin"
    with grpc.insecure_channel(f"127.0.0.1:{port}") as plain, pytest.raises(grpc.RpcError):
        arena_pb2_grpc.ArenaStub(plain).ListGames(arena_pb2.ListGamesRequest(), timeout=3)
    (tmp_path / "other").mkdir()
    other, _ = make_certificate(tmp_path / "other")
    with open_channel(f"localhost:{port}", ca_file=other) as wrong, pytest.raises(grpc.RpcError):
        arena_pb2_grpc.ArenaStub(wrong).ListGames(arena_pb2.ListGamesRequest(), timeout=3)
    worker_token = (server.settings.data_dir / "worker.token").read_text().strip()
    config = WorkerConfig(server_addr=f"localhost:{port}", worker_token=worker_token, tls_ca=cert)
    with config.host_client() as host:
        host.announce("tls-worker", [])


def test_half_a_tls_configuration_is_refused(tmp_path: Path) -> None:
    cert, _ = make_certificate(tmp_path)
    with pytest.raises(ConfigError, match="both HAMLET_TLS_CERT and HAMLET_TLS_KEY"):
        Settings.from_env({"HAMLET_TLS_CERT": str(cert)})
    with pytest.raises(ConfigError, match="no such file"):
        Settings.from_env({"HAMLET_TLS_CERT": str(cert), "HAMLET_TLS_KEY": "/nonexistent"})
