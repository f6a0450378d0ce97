"""compose.yaml, run without a container engine: each Hamlet service's command as a local
process with that service's environment, secrets (made by ``make-secrets.sh``) and volumes,
hosts mapped to loopback (tests/deploy/composerun.py), started in ``depends_on`` order behind
their own health checks; then a tournament is played through it and read back through the web
app. PostgreSQL is the local one (a private database) when it answers, else SQLite."""

from __future__ import annotations

import json
import signal
import subprocess
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tests.deploy.composerun import BIN, DEPLOY, Topology, stop
from tests.integration.stack import running_redis, scaled
from tests.server.conftest import POSTGRES_URL, postgres_reason

#: The services compose runs from the Hamlet image, in depends_on order.
HAMLET_SERVICES = ("server", "worker", "web")
PLAY = ("tournament", "create", "village", "random", "greedy", "--unrated", "--watch", "--json")


@pytest.fixture(params=[(), ("compose.tls.yaml",)], ids=["plaintext", "tls"])
def overlays(request: pytest.FixtureRequest) -> tuple[str, ...]:
    """compose.yaml alone, and with the TLS overlay."""
    chosen: tuple[str, ...] = request.param
    return chosen


@pytest.fixture
def secrets_dir(tmp_path: Path, overlays: tuple[str, ...]) -> Path:
    """The secrets as the operator makes them: the real script (--tls for the overlay)."""
    out = tmp_path / "secrets"
    tls = ["--tls"] if overlays else []
    subprocess.run(
        [str(DEPLOY / "make-secrets.sh"), *tls, str(out)], check=True, capture_output=True
    )
    return out


@pytest.fixture
def database(secrets_dir: Path, tmp_path: Path) -> Iterator[str]:
    """Point the database_url secret at this machine: the local PostgreSQL (a private
    database, same user and password as the secret's), else SQLite. Yields which."""
    url = make_url((secrets_dir / "database_url").read_text().strip())
    compose_db = Topology.load(tmp_path, secrets_dir, {}).service("postgres")["environment"]
    # The URL make-secrets.sh writes matches the postgres service it is for.
    assert (url.host, url.port) == ("postgres", 5432)
    assert url.username == compose_db["POSTGRES_USER"]
    assert url.database == compose_db["POSTGRES_DB"]
    assert url.password == (secrets_dir / "postgres_password").read_text().strip()
    reason = postgres_reason()
    if reason:
        print(f"topology: {reason}; the server runs on SQLite")
        (secrets_dir / "database_url").write_text(f"sqlite:///{tmp_path / 'hamlet.db'}\n")
        yield "sqlite"
        return
    name = f"hamlet_topology_{uuid.uuid4().hex[:10]}"
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        exists = conn.execute(
            text("select 1 from pg_roles where rolname = :n"), {"n": url.username}
        ).first()
        if not exists:
            conn.execute(text(f'create role "{url.username}" login'))
        conn.execute(text(f'create database {name} owner "{url.username}"'))
    local = url.set(host="127.0.0.1", port=5432, database=name)
    (secrets_dir / "database_url").write_text(local.render_as_string(hide_password=False) + "\n")
    try:
        yield "postgresql"
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"drop database {name} with (force)"))
        admin.dispose()


def _json_lines(output: str) -> list[str]:
    """The lines that are not JSON objects."""
    bad = []
    for line in output.splitlines():
        try:
            if not isinstance(json.loads(line), dict):
                bad.append(line)
        except ValueError:
            bad.append(line)
    return bad


def test_a_tournament_plays_through_the_compose_wiring(
    tmp_path: Path, secrets_dir: Path, database: str, overlays: tuple[str, ...]
) -> None:
    with running_redis(tmp_path) as redis:
        topo = Topology.load(tmp_path, secrets_dir, {"redis:6379": redis.port}, overlays)
        procs: dict[str, subprocess.Popen[bytes]] = {}
        try:
            for name in HAMLET_SERVICES:
                procs[name] = topo.start(name)
                topo.wait_healthy(name, procs[name], scaled(120))
            server = f"127.0.0.1:{topo.ports['server:50051']}"
            admin = (tmp_path / "volumes" / "serverdata" / "admin.token").read_text().strip()
            env = {
                "PATH": f"{BIN}:/usr/bin:/bin",
                "HOME": str(tmp_path),
                "HAMLET_SERVER_ADDR": server,
                "HAMLET_TOKEN": admin,
            }
            if overlays:  # the CLI verifies the server as the workers do
                env["HAMLET_TLS_CA"] = str(secrets_dir / "tls_ca")
            played = subprocess.run(
                [str(BIN / "hamlet"), *PLAY],
                env=env,
                capture_output=True,
                text=True,
                timeout=scaled(300),
            )
            assert played.returncode == 0, played.stdout[-3000:] + played.stderr
            final = json.loads(played.stdout.splitlines()[-1])["tournament"]
            tid = final["tournament_id"]
            web = f"http://127.0.0.1:{topo.ports['web:8080']}"
            with urllib.request.urlopen(f"{web}/tournaments/{tid}", timeout=10) as page:
                assert page.status == 200 and tid in page.read().decode()
            with urllib.request.urlopen(f"{web}/healthz", timeout=10) as health:
                assert health.status == 200
            files = "+".join(("compose.yaml", *overlays))
            print(
                f"\ntopology ({database}, {files}): tournament {tid} {final['status']}, "
                f"{final['matches_finished']}/{final['matches_total']} matches, "
                f"web {web}/tournaments/{tid} 200"
            )
            assert final["matches_finished"] == final["matches_total"] > 0
            assert ("(TLS)" in topo.output("server")) == bool(overlays)
            # The worker presented the provisioned token (compose mounts no other one).
            assert "provisioned worker token" in topo.output("server")
        finally:
            codes = {name: stop(proc) for name, proc in reversed(procs.items())}
        # A clean stop: 0, or for the web app the SIGTERM that uvicorn re-raises once it
        # has shut down gracefully (what any uvicorn process does).
        clean = {"server": {0}, "worker": {0}, "web": {0, -signal.SIGTERM}}
        for name in HAMLET_SERVICES:
            log = topo.output(name)[-3000:]
            assert codes[name] in clean[name], f"{name} exited {codes[name]}:\n{log}"
            bad = _json_lines(topo.output(name))
            assert not bad, f"{name} wrote lines that are not JSON: {bad[:5]}"
