"""The CLI's commands that run the service or its parts on this machine: ``hamlet server``,
``hamlet up`` (see :mod:`cli.embedded`), ``hamlet worker``, ``hamlet web`` (the web app of
:mod:`web`, over the gRPC API) and ``hamlet rebuild-ratings``. With :mod:`cli.embedded`,
these are the commands that import :mod:`server`, to run it in this process."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from cli import console, console_ratings, credentials, datalock
from cli.commands import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from cli.console import out, print_json, to_dict

if TYPE_CHECKING:
    from server.config import Settings
    from web.app import WebSettings


def rebuild_ratings(args: argparse.Namespace) -> int:
    """``hamlet rebuild-ratings GAME``: on the server's host, straight on its database."""
    from server.config import ConfigError, Settings
    from server.storage import open_store

    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        console.err.print(f"hamlet rebuild-ratings: {exc}")
        return EXIT_USAGE
    import games

    if args.game not in games.names():
        console.err.print(
            f"hamlet rebuild-ratings: unknown game {args.game!r}; known games: "
            f"{', '.join(games.names())}"
        )
        return 3
    store = open_store(settings.effective_database_url)
    try:
        lines = store.rebuild_ratings(args.game)
    finally:
        store.close()
    from server.servicers.convert import leaderboard as to_board

    board = to_board(args.game, lines)
    if args.json:
        print_json(to_dict(board))
    else:
        out.print(console_ratings.elo_table(board))
    return EXIT_OK


def serve(args: argparse.Namespace) -> int:
    """``hamlet server``: serve until SIGINT/SIGTERM, then stop gracefully; refused at once
    when another process holds the data directory."""
    from server.config import ConfigError, Settings

    try:
        settings = Settings.from_env()
        changes = {
            k: v
            for k, v in (
                ("grpc_host", args.host),
                ("grpc_port", args.port),
                ("metrics_port", args.metrics_port),
            )
            if v is not None
        }
        settings = settings.with_(**changes)
    except ConfigError as exc:
        console.err.print(f"hamlet server: {exc}")
        return EXIT_USAGE
    try:
        held = datalock.acquire(settings.data_dir)
    except datalock.DataDirInUseError as exc:
        console.err.print(f"hamlet server: {exc}")
        return EXIT_FAILED
    try:
        return _serve(settings)
    finally:
        held.release()


def _serve(settings: Settings) -> int:
    from server import logs
    from server.app import build_server

    if settings.log_format == "json":
        from hamlet.jsonlog import capture_std_streams

        capture_std_streams()  # gRPC's C core and the banners below: JSON lines too
    logs.configure(settings.log_level, settings.log_format)
    # Handlers first: a supervisor may send SIGTERM as soon as the server answers.
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    from server.leader import LeaseHeldError

    try:
        server, port = build_server(settings)
    except LeaseHeldError as exc:  # another server on this database: no traceback to read
        logs.log.error("hamlet server cannot start: %s", exc)
        console.err.print(f"hamlet server: {exc}")
        return EXIT_FAILED
    except Exception as exc:  # a port in use, an unreachable database: say it plainly
        logs.log.error("hamlet server cannot start: %s", exc, exc_info=exc)
        console.err.print(f"hamlet server: cannot start: {exc}")
        return EXIT_FAILED
    metrics = (
        f"http://{settings.grpc_host}:{server.metrics_port}/metrics"
        if server.metrics_port
        else "disabled"
    )
    tls = " (TLS)" if settings.tls_cert else ""
    out.print(f"hamlet server: gRPC on {settings.grpc_host}:{port}{tls}, metrics {metrics}")
    if server.front is not None:
        out.print(
            f"hamlet server: the port is served by a front process (HAMLET_FRONT); "
            f"local workers may use {server.private_address}"
        )
    if server.worker_port is not None:
        out.print(
            f"hamlet server: workers' own port {settings.grpc_host}:{server.worker_port}{tls}"
        )
    if server.new_admin_token:
        out.print(
            f"hamlet server: a new admin token (shown once, kept in "
            f"{settings.data_dir / 'admin.token'}, mode 0600):\n{server.new_admin_token}"
        )
    out.print(
        f"hamlet server: database {logs.redact_url(settings.effective_database_url)}, "
        f"queue {logs.redact_url(settings.redis_url)}"
    )
    logs.log_settings(settings, port, server.metrics_port)
    stop.wait()
    out.print("hamlet server: stopping")
    logs.log.info("hamlet server stopping")
    server.stop(grace=5.0)
    return EXIT_OK


def worker(args: argparse.Namespace) -> int:
    """``hamlet worker [celery args]``: replace this process by the worker's own start command."""
    argv = [sys.executable, "-m", "workers", "worker", *args.worker_args]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, argv)
    return EXIT_FAILED  # not reached


def up(args: argparse.Namespace) -> int:
    """``hamlet up``: the embedded mode (see :mod:`cli.embedded`)."""
    from cli.embedded import run_embedded

    if args.workers < 1 or args.concurrency < 1:
        console.err.print("hamlet up: --workers and --concurrency must be at least 1")
        return EXIT_USAGE
    return run_embedded(args)


DEFAULT_WEB_PORT = 8080


def settings_from(args: argparse.Namespace) -> WebSettings:
    """The web app's settings from the command line and the environment."""
    from hamlet.channels import read_token_file
    from web.app import WebSettings

    token_file = os.environ.get("HAMLET_WEB_TOKEN_FILE", "")
    token = read_token_file(Path(token_file)) if token_file else None
    return WebSettings(
        server=args.server,
        ca_file=credentials.tls_ca(),
        token=token,
        secure_cookies=args.secure_cookies,
    )


def web(args: argparse.Namespace) -> int:
    """``hamlet web``: serve the web app until Ctrl-C."""
    from hamlet import jsonlog
    from web.serve import bind, serve_forever

    try:
        json_logs = jsonlog.log_format() == "json"
    except ValueError as exc:
        console.err.print(f"hamlet web: {exc}")
        return EXIT_USAGE
    if json_logs:
        jsonlog.install()
    try:
        settings = settings_from(args)
    except OSError as exc:
        console.err.print(f"hamlet web: cannot read HAMLET_WEB_TOKEN_FILE: {exc}")
        return EXIT_USAGE
    port = (
        args.port
        if args.port is not None
        else int(os.environ.get("HAMLET_WEB_PORT", DEFAULT_WEB_PORT))
    )
    try:
        sock = bind(args.host, port)
    except OSError as exc:
        console.err.print(f"hamlet web: cannot listen on {args.host}:{port}: {exc}")
        return EXIT_FAILED
    shown = f"[{args.host}]" if ":" in args.host else args.host
    console.out.print(
        f"Hamlet web on http://{shown}:{sock.getsockname()[1]}/ reading from {args.server}"
    )
    serve_forever(settings, sock, json_logs=json_logs)
    return EXIT_OK
