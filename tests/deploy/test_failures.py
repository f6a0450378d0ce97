"""Clear failures: each TLS mistake is named in one line by the CLI (no CA, wrong CA, missing
file, name mismatch, TLS against plaintext), a worker that cannot verify the server exits
non-zero instead of retrying, and a restrictive umask does not break the sandbox."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.app import HamletServer, build_server
from server.config import Settings
from server.services.scheduling import MemoryEnqueuer
from tests.deploy.composerun import BIN, DEPLOY
from tests.integration.stack import free_port, scaled


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two sets of make-secrets.sh --tls files: the server's, and another CA's."""
    tmp = tmp_path_factory.mktemp("pki")
    for name in ("good", "other"):
        subprocess.run(
            [str(DEPLOY / "make-secrets.sh"), "--tls", str(tmp / name)],
            check=True,
            capture_output=True,
        )
    return tmp / "good", tmp / "other"


def _serve(tmp: Path, host: str, tls: Path | None) -> tuple[HamletServer, str]:
    settings = Settings(
        data_dir=tmp / "data",
        grpc_host=host,
        grpc_port=0,
        metrics_port=-1,
        tls_cert=None if tls is None else tls / "tls_cert",
        tls_key=None if tls is None else tls / "tls_key",
    )
    server, port = build_server(settings, enqueuer=MemoryEnqueuer())
    return server, f"{host}:{port}"


@pytest.fixture
def tls_server(tmp_path: Path, pki: tuple[Path, Path]) -> Iterator[str]:
    server, address = _serve(tmp_path, "127.0.0.1", pki[0])
    yield address
    server.stop(0)


def _cli(address: str, ca: Path | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ["PATH"], "HOME": "/nonexistent", "HAMLET_SERVER_ADDR": address}
    if ca is not None:
        env["HAMLET_TLS_CA"] = str(ca)
    return subprocess.run(
        [str(BIN / "hamlet"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(60),
    )


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


def test_tls_server_with_the_right_ca_answers(tls_server: str, pki: tuple[Path, Path]) -> None:
    done = _cli(tls_server, pki[0] / "tls_ca", "health")
    assert done.returncode == 0, done.stderr
    assert "SERVING" in done.stdout


def test_no_ca_against_a_tls_server(tls_server: str) -> None:
    done = _cli(tls_server, None, "games", "--timeout", "3")
    assert done.returncode == 4
    assert "speaks TLS but no CA is set: set HAMLET_TLS_CA" in _one_line(done)


def test_wrong_ca(tls_server: str, pki: tuple[Path, Path]) -> None:
    done = _cli(tls_server, pki[1] / "tls_ca", "games", "--timeout", "3")
    assert done.returncode == 4
    assert "wrong CA: the certificate of" in _one_line(done)


def test_missing_ca_file(tls_server: str, tmp_path: Path) -> None:
    done = _cli(tls_server, tmp_path / "nowhere.pem", "games")
    assert done.returncode == 2
    assert f"cannot read HAMLET_TLS_CA {tmp_path / 'nowhere.pem'}" in _one_line(done)


def test_name_mismatch(tmp_path: Path, pki: tuple[Path, Path]) -> None:
    # The certificate names server, localhost and 127.0.0.1; 127.0.0.2 is also this host.
    server, address = _serve(tmp_path, "127.0.0.2", pki[0])
    try:
        done = _cli(address, pki[0] / "tls_ca", "games", "--timeout", "3")
    finally:
        server.stop(0)
    assert done.returncode == 4
    assert "name mismatch: the server's certificate is not for '127.0.0.2'" in _one_line(done)


def test_ca_against_a_plaintext_server(tmp_path: Path, pki: tuple[Path, Path]) -> None:
    server, address = _serve(tmp_path, "127.0.0.1", None)
    try:
        done = _cli(address, pki[0] / "tls_ca", "games", "--timeout", "3")
    finally:
        server.stop(0)
    assert done.returncode == 4
    assert "does not speak TLS" in _one_line(done)


def test_nothing_listening_says_how_to_start_one() -> None:
    done = _cli(f"127.0.0.1:{free_port()}", None, "games", "--timeout", "3")
    assert done.returncode == 4
    line = _one_line(done)
    assert "nothing answers at" in line and "`make up`" in line
    # The hint names the CLI as it can be typed here (on the PATH, or its path).
    hinted = re.search(r"`(\S*hamlet) server`", line)
    assert hinted is not None, line
    assert shutil.which(hinted.group(1)) or Path(hinted.group(1)).exists(), line


def test_worker_that_cannot_verify_the_server_exits_non_zero(
    tls_server: str, pki: tuple[Path, Path], tmp_path: Path
) -> None:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "HAMLET_SERVER_ADDR": tls_server,
        "HAMLET_TLS_CA": str(pki[1] / "tls_ca"),
        "HAMLET_WORKER_TOKEN": "hmt_000000000000_secret",
        "HAMLET_REDIS_URL": f"redis://127.0.0.1:{free_port()}/0",
        "HAMLET_WORKER_METRICS_PORT": "-1",
        "TMPDIR": str(tmp_path),
    }
    done = subprocess.run(
        [sys.executable, "-m", "workers", "worker"],
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(60),
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "hamlet worker: cannot verify the server: wrong CA" in done.stderr


def _check_sandbox(umask: int | None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "hamlet"), "worker", "--check-sandbox"],
        capture_output=True,
        text=True,
        timeout=scaled(120),
        preexec_fn=None if umask is None else (lambda: os.umask(umask)),
    )


def test_a_restrictive_umask_does_not_break_the_sandbox() -> None:
    plain = _check_sandbox(None)
    if plain.returncode != 0:
        pytest.skip(f"the sandbox does not work on this host at all: {plain.stdout[-300:]}")
    for umask in (0o077, 0o027):
        done = _check_sandbox(umask)
        assert done.returncode == 0, f"umask {umask:03o}:\n{done.stdout}"
