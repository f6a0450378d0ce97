"""The procedures of docs/operating.md, run as written against a real server (``hamlet
server``), a private redis-server and a real worker: an online backup, worker-token rotation
without a restart, draining a worker, a restore compared leaderboard for leaderboard, and the
schema commands."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.composerun import BIN
from tests.integration.stack import Worker, free_port, running_redis, scaled, wait_until

GAME = "village"


def _token() -> str:
    done = subprocess.run(
        [str(BIN / "hamlet"), "token", "generate"], capture_output=True, text=True
    )
    assert done.returncode == 0 and re.fullmatch(r"hmt_[0-9a-f]{12}_\S+\n", done.stdout)
    return done.stdout.strip()


@dataclass
class Site:
    """A server host: its environment, the server process, and the CLI on it."""

    tmp: Path
    env: dict[str, str]
    token_file: Path
    server: subprocess.Popen[bytes] | None = None

    @property
    def addr(self) -> str:
        return f"127.0.0.1:{self.env['HAMLET_GRPC_PORT']}"

    def log(self) -> str:
        return (self.tmp / "server.log").read_text(errors="replace")

    def start(self) -> None:
        out = (self.tmp / "server.log").open("ab")
        self.server = subprocess.Popen(
            [str(BIN / "hamlet"), "server"], env=self.env, stdout=out, stderr=subprocess.STDOUT
        )
        wait_until(lambda: self.hamlet("health").returncode == 0, scaled(60), "the server")

    def stop(self) -> None:
        assert self.server is not None
        self.server.send_signal(signal.SIGTERM)
        assert self.server.wait(scaled(60)) == 0, self.log()[-2000:]
        self.server = None

    def hamlet(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "hamlet"), *args],
            env={**self.env, "HAMLET_SERVER_ADDR": self.addr},
            capture_output=True,
            text=True,
            timeout=scaled(timeout),
        )

    def ok(self, *args: str) -> str:
        done = self.hamlet(*args)
        assert done.returncode == 0, f"hamlet {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
        return done.stdout

    def play(self, *extra: str) -> dict[str, Any]:
        """A rated tournament of the built-in bots, followed to its end."""
        lines = self.ok(
            "tournament", "create", GAME, "random", "greedy", "--watch", "--json", *extra
        )
        final: dict[str, Any] = json.loads(lines.splitlines()[-1])["tournament"]
        return final

    def leaderboard(self) -> dict[str, Any]:
        """The leaderboard once its background fit covers every recorded result, without
        when that fit ran."""
        board: dict[str, Any] = {}

        def fitted() -> bool:
            board.clear()
            board.update(json.loads(self.ok("leaderboard", GAME, "--json")))
            return 0 < board["results_recorded"] == board["fitted_results"]

        wait_until(fitted, scaled(60), "the leaderboard's fit")
        board.pop("fitted_at")
        return board


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    token_file = tmp_path / "worker_token"
    token_file.write_text(_token() + "\n")
    with running_redis(tmp_path) as redis:
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(tmp_path),
            "HAMLET_DATA_DIR": str(tmp_path / "data"),
            "HAMLET_REDIS_URL": redis.url,
            "HAMLET_GRPC_PORT": str(free_port()),
            "HAMLET_METRICS_PORT": "-1",
            "HAMLET_WORKER_TOKEN_FILE": str(token_file),
            "HAMLET_REAPER_INTERVAL_SECONDS": "1",
        }
        s = Site(tmp_path, env, token_file)
        s.start()
        try:
            yield s
        finally:
            if s.server is not None:
                s.stop()


def test_backup_rotation_drain_and_restore(site: Site) -> None:
    tmp = site.tmp
    worker = Worker(tmp, site.env["HAMLET_REDIS_URL"], site.addr, "w1",
                    HAMLET_WORKER_TOKEN_FILE=str(site.token_file))  # fmt: skip
    try:
        wait_until(lambda: _announced(site), scaled(60), "the worker's bots")
        first = site.play()
        assert first["matches_finished"] == first["matches_total"] > 0
        before = site.leaderboard()
        assert before["lines"] and before["entries"]

        # An online backup, the server running.
        backup = tmp / "hamlet-backup.db"
        assert "hamlet db backup:" in site.ok("db", "backup", str(backup))

        # Rotation: the new token first, the old one kept, then the old one removed.
        old = site.token_file.read_text().strip()
        new = _token()
        site.token_file.write_text(f"{new}\n{old}\n")
        new_id, old_id = new.split("_")[1], old.split("_")[1]
        wait_until(lambda: f"enrolled provisioned worker token {new_id}" in site.log(),
                   scaled(30), "the new token enrolled")  # fmt: skip
        site.token_file.write_text(f"{new}\n")
        wait_until(lambda: f"revoked provisioned worker token {old_id}" in site.log(),
                   scaled(30), "the old token revoked")  # fmt: skip
        tokens = json.loads(site.ok("token", "list", "--json"))
        revoked = {t["token_id"]: bool(t.get("revoked_at")) for t in _token_rows(tokens)}
        assert revoked[old_id] and not revoked[new_id]
        second = site.play()  # the same worker process, now presenting the new token
        assert second["matches_finished"] == second["matches_total"]
        assert worker.proc.poll() is None

        # Draining: SIGTERM while a block runs; the running matches finish, no more start.
        created = json.loads(site.ok("tournament", "create", GAME, "random", "greedy",
                                     "--rounds", "6", "--start", "--json"))  # fmt: skip
        tid = created["tournament_id"]
        wait_until(lambda: _show(site, tid)["matches_running"] > 0, scaled(60), "a running match")
        worker.proc.send_signal(signal.SIGTERM)  # as docker stop and the kubelet do: PID 1 only
        assert worker.proc.wait(scaled(120)) == 0, worker.output()[-3000:]
        drained = _show(site, tid)
        assert drained["matches_running"] == 0  # each claimed match was reported first
        assert drained["matches_finished"] > 0
        # What it had not started went back to the queue: another worker plays it, none lost.
        worker = Worker(tmp, site.env["HAMLET_REDIS_URL"], site.addr, "w2",
                        HAMLET_WORKER_TOKEN_FILE=str(site.token_file))  # fmt: skip
        wait_until(lambda: _show(site, tid)["status"] == "TOURNAMENT_STATUS_FINISHED",
                   scaled(180), "the drained tournament finished by another worker")  # fmt: skip
        done = _show(site, tid)
        assert done["matches_finished"] == done["matches_total"] and done["matches_failed"] == 0
    finally:
        worker.stop()

    # Restore: stop the server, restore the backup, start it; the leaderboard of the backup.
    site.stop()
    restored = site.hamlet("db", "restore", str(backup))
    assert restored.returncode == 0, restored.stderr
    # A rollback of the last migration and the upgrade again, the server stopped.
    history = json.loads(site.ok("db", "history", "--json"))
    previous, latest = history[-2]["revision"], history[-1]["revision"]
    assert "done, now at" in site.ok("db", "downgrade", previous)
    assert site.ok("db", "current").startswith(f"{previous} (latest is {latest})")
    assert "done" in site.ok("db", "upgrade")
    site.start()
    assert site.leaderboard() == before
    assert re.match(r"\S+ \(up to date\)", site.ok("db", "current"))
    # With the server running, migrations and restores are refused, naming it.
    busy = site.hamlet("db", "restore", str(backup))
    assert busy.returncode == 1 and "in use by another Hamlet server" in busy.stderr
    assert "0001" in site.ok("db", "history")


def _announced(site: Site) -> bool:
    listed = site.hamlet("bots", "--game", GAME)
    return listed.returncode == 0 and "random" in listed.stdout and "greedy" in listed.stdout


def _show(site: Site, tid: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(site.ok("tournament", "show", tid, "--json"))
    return data.get("tournament", data)


def _token_rows(listed: Any) -> list[dict[str, Any]]:
    if isinstance(listed, dict):
        for value in listed.values():
            if isinstance(value, list):
                return value
    assert isinstance(listed, list)
    return listed


def test_db_commands_refuse_a_database_in_use_and_say_so(site: Site) -> None:
    up = site.hamlet("db", "upgrade")
    assert up.returncode == 1
    assert "in use by another Hamlet server" in up.stderr
    assert len(up.stderr.strip().splitlines()) == 1
    assert site.hamlet("db", "current").returncode == 0  # reading the revision takes no lease
    backup = site.tmp / "online.db"
    assert site.hamlet("db", "backup", str(backup)).returncode == 0  # nor does a backup


def test_admin_access_is_recovered_by_restarting_without_the_admin_token(site: Site) -> None:
    admin_file = Path(site.env["HAMLET_DATA_DIR"]) / "admin.token"
    lost = admin_file.read_text().strip()
    whoami = site.ok("whoami")
    assert "admin" in whoami
    # The token is revoked (or the file lost): the CLI on the host has no way in.
    token_id = lost.split("_")[1]
    site.ok("token", "revoke", token_id)
    assert site.hamlet("whoami").returncode == 5
    site.stop()
    admin_file.unlink()
    site.start()
    assert "wrote a new admin token" in site.log()
    assert admin_file.read_text().strip() != lost
    assert "admin" in site.ok("whoami")


def test_a_disabled_user_is_refused_until_enabled(site: Site) -> None:
    created = json.loads(site.ok("user", "create", "alice", "--json"))
    first = _find_token(created)
    second = _find_token(json.loads(site.ok("token", "create", "--user", "alice", "--json")))
    assert "user alice disabled" in site.ok("user", "disable", "alice")
    refused = subprocess.run(
        [str(BIN / "hamlet"), "whoami"],
        env={**site.env, "HAMLET_SERVER_ADDR": site.addr, "HAMLET_TOKEN": first},
        capture_output=True,
        text=True,
        timeout=scaled(60),
    )
    assert refused.returncode == 5
    assert "user alice is disabled" in refused.stderr
    assert "`hamlet user enable alice`" in refused.stderr or "user enable alice`" in refused.stderr
    assert "user alice enabled" in site.ok("user", "enable", "alice")
    welcome = subprocess.run(
        [str(BIN / "hamlet"), "whoami"],
        env={**site.env, "HAMLET_SERVER_ADDR": site.addr, "HAMLET_TOKEN": second},
        capture_output=True,
        text=True,
        timeout=scaled(60),
    )
    assert welcome.returncode == 0 and "alice" in welcome.stdout
    assert site.hamlet("user", "disable", "nobody").returncode == 3


def _find_token(data: Any) -> str:
    found = re.search(r"hmt_[0-9a-f]{12}_[A-Za-z0-9_-]+", json.dumps(data))
    assert found is not None, data
    return found.group(0)


@pytest.mark.postgres
def test_postgres_backup_and_restore_give_back_the_leaderboard(tmp_path: Path) -> None:
    """pg_dump and pg_restore through `hamlet db backup|restore`, on a private database."""
    from sqlalchemy import create_engine, text

    from tests.server.conftest import POSTGRES_URL, postgres_reason

    reason = postgres_reason()
    if reason:
        pytest.skip(reason)
    if not (shutil.which("pg_dump") and shutil.which("pg_restore")):
        pytest.skip("pg_dump and pg_restore are not on PATH (postgresql-client)")
    name = f"hamlet_backup_{uuid.uuid4().hex[:10]}"
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"create database {name}"))
    token_file = tmp_path / "worker_token"
    token_file.write_text(_token() + "\n")
    try:
        with running_redis(tmp_path) as redis:
            env = {
                "PATH": os.environ["PATH"],
                "HOME": str(tmp_path),
                "HAMLET_DATA_DIR": str(tmp_path / "data"),
                "HAMLET_DATABASE_URL": POSTGRES_URL.rsplit("/", 1)[0] + f"/{name}",
                "HAMLET_REDIS_URL": redis.url,
                "HAMLET_GRPC_PORT": str(free_port()),
                "HAMLET_METRICS_PORT": "-1",
                "HAMLET_WORKER_TOKEN_FILE": str(token_file),
            }
            site = Site(tmp_path, env, token_file)
            site.start()
            worker = Worker(tmp_path, redis.url, site.addr, "w1",
                            HAMLET_WORKER_TOKEN_FILE=str(token_file))  # fmt: skip
            try:
                wait_until(lambda: _announced(site), scaled(60), "the worker's bots")
                site.play()
                before = site.leaderboard()
                backup = tmp_path / "hamlet.dump"
                assert "hamlet db backup:" in site.ok("db", "backup", str(backup))
                site.play()
                assert site.leaderboard() != before
            finally:
                worker.stop()
            site.stop()
            assert "restored" in site.ok("db", "restore", str(backup))
            site.start()
            assert site.leaderboard() == before
            site.stop()
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"drop database {name} with (force)"))
        admin.dispose()
