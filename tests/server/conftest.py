"""Fixtures for server tests: stores on SQLite (and PostgreSQL when one answers), a real
gRPC server on port 0 with an in-memory queue, and the throwaway toy game."""

from __future__ import annotations

import contextlib
import uuid
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
from prometheus_client import CollectorRegistry
from sqlalchemy import Engine, create_engine, inspect, text

from hamlet.channels import open_channel
from hamlet.v1 import arena_pb2, arena_pb2_grpc, worker_pb2_grpc
from server.app import HamletServer, build_server
from server.config import Settings
from server.remote_hosts import Resolver
from server.services.scheduling import MemoryEnqueuer
from server.storage import SqlStore
from server.storage.migrate import upgrade
from server.storage.sql import make_engine
from tests.server.fakeworker import FAKE_WORKER_WINDOW

POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def postgres_reason() -> str | None:
    """None if the local PostgreSQL answers, else why the tests are skipped."""
    try:
        engine = create_engine(POSTGRES_URL, connect_args={"connect_timeout": 2})
        with engine.connect() as conn:
            conn.execute(text("select 1"))
        engine.dispose()
    except Exception as exc:
        return f"no PostgreSQL at {POSTGRES_URL}: {type(exc).__name__}"
    return None


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqlStore]:
    """A migrated, empty store: SQLite in tmp_path, or a private PostgreSQL schema."""
    if request.param == "sqlite":
        engine = make_engine(f"sqlite:///{tmp_path / 'hamlet.db'}")
        upgrade(engine)
        s = SqlStore(engine)
        yield s
        s.close()
        return
    reason = postgres_reason()
    if reason:
        pytest.skip(reason)
    schema = f"hamlet_{uuid.uuid4().hex[:12]}"
    admin = create_engine(POSTGRES_URL)
    with admin.begin() as conn:
        conn.execute(text(f"create schema {schema}"))
    engine = create_engine(POSTGRES_URL, connect_args={"options": f"-csearch_path={schema}"})
    upgrade(engine)
    s = SqlStore(engine)
    try:
        yield s
    finally:
        s.close()
        with admin.begin() as conn:
            conn.execute(text(f"drop schema {schema} cascade"))
        admin.dispose()


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> str:
    """Register the throwaway toy game for this test; its name."""
    from tests import toygame

    toygame.register(monkeypatch)
    return toygame.NAME


class Running:
    """A server under test with its channels and stubs.

    ``channel``/``arena`` carry the bootstrap admin token, ``worker_channel``/``host`` the
    worker token the server wrote to its data directory, ``anon_channel`` no token at all.
    """

    def __init__(
        self, server: HamletServer, port: int, queue: MemoryEnqueuer, registry: CollectorRegistry
    ) -> None:
        self.server = server
        self.addr = f"127.0.0.1:{port}"
        self.queue = queue
        self.registry = registry
        data = server.settings.data_dir
        self.admin_token = (data / "admin.token").read_text().strip()
        self.worker_token = (data / "worker.token").read_text().strip()
        self.anon_channel = grpc.insecure_channel(self.addr)
        self.channel = open_channel(self.addr, token=self.admin_token)
        self.worker_channel = open_channel(self.addr, token=self.worker_token)
        self.arena = arena_pb2_grpc.ArenaStub(self.channel)
        self.host = worker_pb2_grpc.MatchHostStub(self.worker_channel)
        self.store = server.store
        self._opened: list[grpc.Channel] = [self.anon_channel, self.channel, self.worker_channel]
        #: Attempt tokens of the claims tests made, by match id.
        self.attempts: dict[str, str] = {}

    def channel_for(self, token: str | None) -> grpc.Channel:
        """A channel whose calls carry ``token`` (None: anonymous), closed with the server."""
        channel = open_channel(self.addr, token=token)
        self._opened.append(channel)
        return channel

    def connect(self, token: str | None) -> arena_pb2_grpc.ArenaStub:
        """An ``Arena`` stub whose calls carry ``token`` (None: anonymous)."""
        return arena_pb2_grpc.ArenaStub(self.channel_for(token))

    def user(self, name: str, admin: bool = False) -> tuple[str, arena_pb2_grpc.ArenaStub]:
        """A new user's first token and a stub that uses it."""
        made = self.arena.CreateUser(arena_pb2.CreateUserRequest(name=name, admin=admin))
        return made.token, self.connect(made.token)

    def close(self) -> None:
        """Close every channel this object opened."""
        for channel in self._opened:
            channel.close()


@contextlib.contextmanager
def serving(
    tmp_path: Path, resolver: Resolver | None = None, **changes: object
) -> Iterator[Running]:
    """A real server on port 0 (SQLite in tmp_path, in-memory queue, fresh registry), with
    ``changes`` to the test settings (and a resolver for remote bots' host names)."""
    queue = MemoryEnqueuer()
    registry = CollectorRegistry()
    settings = Settings(
        dispatch_window=FAKE_WORKER_WINDOW,
        data_dir=tmp_path / "data",
        grpc_port=0,
        metrics_port=-1,
        reaper_interval_seconds=3600,
    ).with_(**changes)
    extra = {} if resolver is None else {"resolver": resolver}
    server, port = build_server(settings, enqueuer=queue, registry=registry, **extra)
    run = Running(server, port, queue, registry)
    try:
        yield run
    finally:
        run.close()
        server.stop(grace=1)


@pytest.fixture
def running(tmp_path: Path, toy: str) -> Iterator[Running]:
    """A real server on port 0 (SQLite in tmp_path, in-memory queue, fresh registry)."""
    with serving(tmp_path) as run:
        yield run


def snapshot(store: SqlStore) -> dict[str, list[tuple[str, ...]]]:
    """Every row of every table, as text: equal snapshots mean nothing was written."""
    from sqlalchemy import select

    from server.storage.models import Base

    out = {}
    with store.engine.connect() as conn:
        for name, table in sorted(Base.metadata.tables.items()):
            rows = conn.execute(select(table)).all()
            out[name] = sorted(tuple(str(v) for v in row) for row in rows)
    return out


#: gRPC metadata, as ``metadata=`` takes it.
Metadata = tuple[tuple[str, str], ...]


def _bearer(data_dir: Path, name: str) -> Metadata:
    return (("authorization", f"Bearer {(data_dir / name).read_text().strip()}"),)


@pytest.fixture
def admin_metadata(request: pytest.FixtureRequest) -> Metadata:
    """Metadata for ``Arena`` calls made on behalf of the test server's administrator."""
    run = request.getfixturevalue("served" if "served" in request.fixturenames else "running")
    return _bearer(run.server.settings.data_dir, "admin.token")


@pytest.fixture
def worker_metadata(request: pytest.FixtureRequest) -> Metadata:
    """Metadata for ``MatchHost`` calls made on behalf of the test server's workers."""
    run = request.getfixturevalue("served" if "served" in request.fixturenames else "running")
    return _bearer(run.server.settings.data_dir, "worker.token")


@contextmanager
def postgres_database_url() -> Iterator[str]:
    """A URL whose connections use a private, empty schema; the schema is dropped after."""
    reason = postgres_reason()
    if reason:
        pytest.skip(reason)
    schema = f"hamlet_{uuid.uuid4().hex[:12]}"
    admin = create_engine(POSTGRES_URL)
    with admin.begin() as conn:
        conn.execute(text(f"create schema {schema}"))
    try:
        yield f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"drop schema {schema} cascade"))
        admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def served(request: pytest.FixtureRequest, tmp_path: Path, toy: str) -> Iterator[Running]:
    """Like ``running``, on SQLite and (when one answers) on PostgreSQL."""
    with postgres_database_url() if request.param == "postgres" else _no_url() as database_url:
        queue = MemoryEnqueuer()
        registry = CollectorRegistry()
        settings = Settings(
            dispatch_window=FAKE_WORKER_WINDOW,
            data_dir=tmp_path / "data",
            database_url=database_url,
            grpc_port=0,
            metrics_port=-1,
            reaper_interval_seconds=3600,
        )
        server, port = build_server(settings, enqueuer=queue, registry=registry)
        run = Running(server, port, queue, registry)
        try:
            yield run
        finally:
            run.close()
            server.stop(grace=1)


@contextmanager
def _no_url() -> Iterator[str]:
    yield ""


def row_counts(engine: Engine) -> dict[str, int]:
    """Rows in every table of the store (to show that a refused call wrote nothing), in one
    round trip; the table names are read from the database once per engine."""
    tables = _tables.get(engine)
    with engine.connect() as conn:
        if tables is None:
            tables = _tables[engine] = sorted(inspect(conn).get_table_names())
        counts = ", ".join(f'(select count(*) from "{t}")' for t in tables)
        row = conn.execute(text(f"select {counts}")).one()
    return dict(zip(tables, (int(n) for n in row), strict=True))


_tables: weakref.WeakKeyDictionary[Engine, list[str]] = weakref.WeakKeyDictionary()
