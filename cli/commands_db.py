"""``hamlet db``: the database's schema and backups, on the server's host (or anywhere the
database URL reaches), with the server's settings (``HAMLET_DATABASE_URL[_FILE]``,
``HAMLET_DATA_DIR``).

* ``current`` / ``history``: the schema revision of the database, and every revision there is;
* ``upgrade [REV]`` / ``downgrade REV``: migrate (the server stopped: both take the writer's
  lease, so they refuse while a server runs; a server also upgrades to the latest at start);
* ``backup FILE``: SQLite through its online backup API (consistent while the server runs);
  PostgreSQL with ``pg_dump --format=custom``;
* ``restore FILE``: the reverse (SQLite: the backup API into the database file; PostgreSQL:
  ``pg_restore --clean --if-exists``), the server stopped (the lease again).
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from cli import console
from cli.commands import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from cli.console import out, print_json

if TYPE_CHECKING:
    from server.config import Settings


def _settings(command: str) -> Settings | None:
    from server.config import ConfigError, Settings

    try:
        return Settings.from_env()
    except ConfigError as exc:
        console.err.print(f"hamlet db {command}: {exc}")
        return None


def _sqlite_path(url: str) -> Path | None:
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    return Path(parsed.database or "")


def _libpq(url: str) -> str:
    """The SQLAlchemy URL as the PostgreSQL tools take it (no ``+driver``)."""
    from sqlalchemy.engine import make_url

    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@contextmanager
def _lease(url: str) -> Iterator[None]:
    """The writer's lease for the length of a command that must not run beside a server."""
    from server.leader import acquire

    held = acquire(url)
    try:
        yield
    finally:
        held.release()


def db(args: argparse.Namespace) -> int:
    """Dispatch ``hamlet db ACTION``."""
    from alembic.util import CommandError
    from sqlalchemy.exc import SQLAlchemyError

    from server.leader import LeaseHeldError

    settings = _settings(args.db_command)
    if settings is None:
        return EXIT_USAGE
    url = settings.effective_database_url
    try:
        return int(_ACTIONS[args.db_command](args, url))
    except LeaseHeldError as exc:
        console.err.print(f"hamlet db {args.db_command}: {exc}")
        return EXIT_FAILED
    except (
        OSError,
        subprocess.CalledProcessError,
        sqlite3.Error,
        CommandError,
        SQLAlchemyError,
    ) as exc:
        console.err.print(f"hamlet db {args.db_command}: {exc}")
        return EXIT_FAILED


def _current(args: argparse.Namespace, url: str) -> int:
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    from server.storage.migrate import alembic_config
    from server.storage.sql import make_engine

    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            heads = MigrationContext.configure(conn).get_current_heads()
    finally:
        engine.dispose()
    latest = ScriptDirectory.from_config(alembic_config()).get_current_head()
    current = ",".join(heads) or "(empty database)"
    if args.json:
        print_json({"current": list(heads), "latest": latest})
    else:
        state = "up to date" if heads == (latest,) else f"latest is {latest}"
        out.print(f"{current} ({state})")
    return EXIT_OK


def _history(args: argparse.Namespace, url: str) -> int:
    from alembic.script import ScriptDirectory

    from server.storage.migrate import alembic_config

    revisions = list(ScriptDirectory.from_config(alembic_config()).walk_revisions())
    rows = [
        {
            "revision": r.revision,
            "down_revision": r.down_revision,
            "doc": " ".join((r.doc or "").split()),
        }
        for r in reversed(revisions)
    ]
    if args.json:
        print_json(rows)
    else:
        for row in rows:
            out.print(f"{row['revision']:<8} {row['doc']}", markup=False, overflow="ignore")
    return EXIT_OK


def _migrate(args: argparse.Namespace, url: str) -> int:
    from alembic import command

    from server.storage.migrate import alembic_config, upgrade
    from server.storage.sql import make_engine

    engine = make_engine(url)
    try:
        with _lease(url):
            if args.db_command == "upgrade":
                upgrade(engine, args.revision)
            else:
                with engine.begin() as connection:
                    cfg = alembic_config(engine)
                    cfg.attributes["connection"] = connection
                    command.downgrade(cfg, args.revision)
    finally:
        engine.dispose()
    out.print(f"hamlet db {args.db_command}: done, now at {args.revision}")
    return EXIT_OK


def _backup(args: argparse.Namespace, url: str) -> int:
    target = Path(args.file)
    database = _sqlite_path(url)
    if database is not None:
        if not database.is_file():
            raise OSError(f"no database file {database}")
        with sqlite3.connect(database) as source, sqlite3.connect(target) as copy:
            source.backup(copy)  # online: a consistent copy while the server writes
        target.chmod(0o600)
    else:
        pg_dump = shutil.which("pg_dump")
        if pg_dump is None:
            raise OSError("pg_dump is not on PATH (Debian: apt-get install postgresql-client)")
        subprocess.run(
            [pg_dump, "--format=custom", "--no-owner", f"--file={target}", _libpq(url)],
            check=True,
        )
    out.print(f"hamlet db backup: {target} ({target.stat().st_size} bytes)")
    return EXIT_OK


def _restore(args: argparse.Namespace, url: str) -> int:
    source = Path(args.file)
    if not source.is_file():
        raise OSError(f"no backup file {source}")
    database = _sqlite_path(url)
    with _lease(url):
        if database is not None:
            database.parent.mkdir(parents=True, exist_ok=True)
            with sqlite3.connect(source) as backup, sqlite3.connect(database) as live:
                backup.backup(live)
        else:
            pg_restore = shutil.which("pg_restore")
            if pg_restore is None:
                raise OSError("pg_restore is not on PATH (apt-get install postgresql-client)")
            subprocess.run(
                [pg_restore, "--clean", "--if-exists", "--no-owner", f"--dbname={_libpq(url)}",
                 str(source)],
                check=True,
            )  # fmt: skip
    out.print(f"hamlet db restore: {source} restored; start the server")
    return EXIT_OK


_ACTIONS = {
    "current": _current,
    "history": _history,
    "upgrade": _migrate,
    "downgrade": _migrate,
    "backup": _backup,
    "restore": _restore,
}


def add_commands(sub: argparse._SubParsersAction, add: object) -> None:  # type: ignore[type-arg]
    """The ``db`` subcommands on the ``hamlet`` parser."""
    actions = sub.add_parser(
        "db", help="the database: schema revision, migrations, backup and restore"
    ).add_subparsers(dest="db_command", required=True, metavar="ACTION")
    for name, text in (
        ("current", "the schema revision of the database"),
        ("history", "every schema revision, oldest first"),
    ):
        p = actions.add_parser(name, help=text, description=text)
        p.add_argument("--json", action="store_true", help="machine-readable output")
        p.set_defaults(func=db)
    p = actions.add_parser("upgrade", help="migrate to REV (default: the latest); server stopped")
    p.add_argument("revision", nargs="?", default="head")
    p.set_defaults(func=db)
    p = actions.add_parser("downgrade", help="migrate back to REV; server stopped")
    p.add_argument("revision")
    p.set_defaults(func=db)
    p = actions.add_parser("backup", help="an online backup (SQLite) or pg_dump (PostgreSQL)")
    p.add_argument("file")
    p.set_defaults(func=db)
    p = actions.add_parser("restore", help="restore a backup; server stopped")
    p.add_argument("file")
    p.set_defaults(func=db)
