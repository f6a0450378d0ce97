"""One writer per database (server/leader.py): a second server on the same database refuses
to start, names the holder and exits non-zero; on SQLite and on the local PostgreSQL."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from server import leader
from tests.integration.stack import free_port, scaled, wait_until
from tests.server.conftest import POSTGRES_URL, postgres_reason


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A private PostgreSQL database (advisory locks are per database: no other test's)."""
    reason = postgres_reason()
    if reason:
        pytest.skip(reason)
    name = f"hamlet_leader_{uuid.uuid4().hex[:10]}"
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"create database {name}"))
    try:
        yield POSTGRES_URL.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"drop database {name} with (force)"))
        admin.dispose()


def test_holder_round_trips_through_its_encoding() -> None:
    me = leader.Holder.me()
    assert len(me.encode()) <= 63
    assert leader.Holder.decode(me.encode()) == me
    assert leader.Holder.decode("psql") is None


def test_sqlite_lease_is_exclusive_and_names_the_holder(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'hamlet.db'}"
    first = leader.acquire(url)
    with pytest.raises(leader.LeaseHeldError) as refused:
        leader.acquire(url)
    message = str(refused.value)
    assert f"process {os.getpid()} on host {socket.gethostname()[:24]}" in message
    assert "since 20" in message
    first.release()
    leader.acquire(url).release()  # free again


def test_postgres_lease_is_exclusive_and_names_the_holder(pg_url: str) -> None:
    first = leader.acquire(pg_url)
    try:
        with pytest.raises(leader.LeaseHeldError) as refused:
            leader.acquire(pg_url)
        assert f"process {os.getpid()} on host" in str(refused.value)
    finally:
        first.release()
    leader.acquire(pg_url).release()


def test_unreachable_postgres_refuses_the_start() -> None:
    url = f"postgresql+psycopg://hamlet:secret@127.0.0.1:{free_port()}/hamlet"
    with pytest.raises(leader.LeaseHeldError, match="cannot reach the database"):
        leader.acquire(url)


def _server(tmp: Path, name: str, database_url: str) -> subprocess.Popen[str]:
    env = dict(
        os.environ,
        HAMLET_DATA_DIR=str(tmp / name),
        HAMLET_DATABASE_URL=database_url,
        HAMLET_REDIS_URL=f"redis://127.0.0.1:{free_port()}/0",
        HAMLET_GRPC_PORT=str(free_port()),
        HAMLET_METRICS_PORT="-1",
    )
    return subprocess.Popen(
        [sys.executable, "-m", "cli", "server"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def test_second_server_on_one_database_exits_non_zero_naming_the_first(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    url = (
        f"sqlite:///{tmp_path / 'shared.db'}"
        if backend == "sqlite"
        else request.getfixturevalue("pg_url")
    )
    # Two data directories: the data-directory lock does not see the second server.
    first = _server(tmp_path, "a", url)
    try:
        lease_taken = (tmp_path / "shared.db.leader") if backend == "sqlite" else None
        if lease_taken is not None:
            wait_until(
                lambda: lease_taken.exists() and lease_taken.read_text().strip() != "",
                scaled(60),
                "the first server's lease",
            )
        else:
            wait_until(lambda: _pg_lease_held(url), scaled(60), "the first server's lease")
        second = _server(tmp_path, "b", url)
        out, _ = second.communicate(timeout=scaled(60))
        assert second.returncode == 1, out
        assert "in use by another Hamlet server" in out
        assert f"process {first.pid} on host" in out
        assert "Traceback" not in out
    finally:
        first.terminate()
        first.communicate(timeout=scaled(30))


def _pg_lease_held(url: str) -> bool:
    try:
        leader.acquire(url).release()
    except leader.LeaseHeldError:
        return True
    return False


def _kill_lease_sessions(url: str) -> None:
    """What a database restart does to the lease's session (others' sessions untouched)."""
    name = url.rsplit("/", 1)[1]
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(
            text(
                "select pg_terminate_backend(pid) from pg_stat_activity where datname = :d "
                "and application_name like 'hamlet-server%'"
            ),
            {"d": name},
        )
    admin.dispose()


@pytest.mark.postgres
def test_a_lost_postgres_session_takes_the_lease_again_or_learns_it_is_gone(pg_url: str) -> None:
    lease = leader.acquire(pg_url)
    try:
        _kill_lease_sessions(pg_url)
        assert lease.renew() is True  # a new session, the lock taken again
        assert lease.renew() is True
        _kill_lease_sessions(pg_url)
        other = leader.acquire(pg_url)  # another server got in meanwhile
        try:
            assert lease.renew() is False
        finally:
            other.release()
    finally:
        lease.release()
