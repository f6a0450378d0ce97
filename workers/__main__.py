"""``python -m workers``: start a worker, or play one local match without Celery.

    python -m workers worker [--concurrency N] [--loglevel INFO] [extra celery worker args]
    python -m workers play GAME SEAT SEAT... [--seed N] [--decision-ms MS] [--bank-ms MS]

``worker`` sets up Prometheus' multiprocess directory (``PROMETHEUS_MULTIPROC_DIR``, made
fresh and empty) *before* anything imports prometheus_client, then runs the Celery worker
on the ``matches`` queue with the settings from the ``HAMLET_*`` environment (README).

``play`` is for bot authors: a SEAT is a built-in bot name (``random``, ``greedy``), a path
to an uploaded-bot ``.py`` file (run in the sandbox), or ``grpc://host:port`` (a remote
bot). It prints the result and any forfeits. ``hamlet bot play`` is its fuller form: many
games in duplicate blocks, a summary, traces.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path


def _prepare_multiproc_dir() -> str:
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if path:
        shutil.rmtree(path, ignore_errors=True)  # stale files from a previous run
        Path(path).mkdir(parents=True, exist_ok=True)
    else:
        path = tempfile.mkdtemp(prefix="hamlet-worker-metrics-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = path
    return path


def _exit_with_parent() -> None:
    """With ``HAMLET_EXIT_WITH_PARENT=1`` (set by ``hamlet up``), ask Linux to send SIGTERM
    (Celery's warm shutdown) when the parent dies, even by SIGKILL, so no worker outlives
    the embedded service; a no-op elsewhere."""
    if os.environ.get("HAMLET_EXIT_WITH_PARENT") != "1":
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG
    if os.getppid() == 1:  # the parent died before we asked
        raise SystemExit("hamlet worker: the process that started it is gone")


def worker(argv: list[str]) -> int:
    """Run a Celery worker for the ``matches`` queue."""
    parser = argparse.ArgumentParser(prog="python -m workers worker")
    parser.add_argument("--concurrency", type=int, default=None)
    parser.add_argument("--loglevel", default="INFO")
    parser.add_argument(
        "--check-sandbox",
        action="store_true",
        help="print each sandbox guarantee as held or missing and exit (1 if any is missing)",
    )
    args, extra = parser.parse_known_args(argv)
    if args.check_sandbox:
        return check_sandbox()
    _exit_with_parent()
    from workers.logformat import configure_from_env

    try:
        configure_from_env()
    except ValueError as exc:
        print(f"hamlet worker: {exc}", file=sys.stderr)
        return 2
    _prepare_multiproc_dir()
    from hamlet.queues import queues_served
    from workers.capacity import HEALTH, assess, parking_queue
    from workers.celery_app import create_app
    from workers.config import ConfigError, WorkerConfig
    from workers.sandbox_check import available_runtimes

    try:
        config = WorkerConfig.from_env()
        if args.concurrency is not None:
            config = config.with_(concurrency=args.concurrency)
    except ConfigError as exc:
        print(f"hamlet worker: {exc}", file=sys.stderr)
        return 2
    from hamlet.tlsprobe import diagnose

    found = diagnose(config.server_addr, config.tls_ca)
    if found.definite:  # a TLS mistake: retrying cannot fix configuration
        print(f"hamlet worker: cannot verify the server: {found.message}", file=sys.stderr)
        return 2
    app = create_app(config)
    # One queue per set of runtimes this worker has: it only receives matches it can run,
    # and only while its sandbox check passes (workers.capacity).
    wanted = queues_served(available_runtimes(config.sandbox_limits()))
    capacity = assess(config.sandbox_limits(), wanted)
    queues = list(capacity.queues) or [parking_queue(config.name)]
    HEALTH.ok, HEALTH.detail = not capacity.why, capacity.why or "consuming " + ", ".join(queues)
    if capacity.why:
        print(f"hamlet worker: {capacity.why}; consuming {', '.join(queues)}", file=sys.stderr)
    app.conf.hamlet_wanted_queues = wanted
    app.conf.hamlet_consuming = list(capacity.queues)
    app.worker_main(
        [
            "worker",
            "--queues",
            ",".join(queues),
            "--concurrency",
            str(config.concurrency),
            "--loglevel",
            args.loglevel,
            "--hostname",
            f"hamlet@{config.name}",
            "--without-gossip",
            "--without-mingle",
            *extra,
        ]
    )
    # Celery's worker_main drops the worker's exit code: a refusal is non-zero here.
    from workers.shutdown import exit_status

    return exit_status()


def check_sandbox() -> int:
    """Print the sandbox guarantees this host gives; 0 if uploaded bots can be played."""
    from workers.config import ConfigError, WorkerConfig
    from workers.sandbox_check import check

    try:
        config = WorkerConfig.from_env()
    except ConfigError as exc:
        print(f"hamlet worker: {exc}", file=sys.stderr)
        return 2
    report = check(config.sandbox_limits())
    print("\n".join(report.lines()))
    return 0 if report.plays_uploaded else 1


def _game_names() -> list[str]:
    """The registered games."""
    import games

    return games.names()


def play(argv: list[str]) -> int:
    """Play one match locally and print the result."""
    parser = argparse.ArgumentParser(prog="python -m workers play")
    parser.add_argument("game")
    parser.add_argument("seats", nargs="+")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--decision-ms", type=int, default=1000)
    parser.add_argument("--bank-ms", type=int, default=10_000)
    args = parser.parse_args(argv)
    from workers.local import play_local
    from workers.localplay import LocalPlayError, resolve

    try:  # the same one-line errors as `hamlet bot play` (its fuller, multi-game form)
        if args.game not in _game_names():
            raise LocalPlayError(
                f"unknown game {args.game!r}; known games: {', '.join(_game_names())}"
            )
        for spec in args.seats:
            resolve(spec, args.game)
    except LocalPlayError as exc:
        print(f"python -m workers play: {exc}", file=sys.stderr)
        return 2

    record = play_local(
        args.game, args.seats, args.seed, args.decision_ms / 1000, args.bank_ms / 1000
    )
    for seat, (spec, score, rank) in enumerate(
        zip(args.seats, record.scores, record.ranks, strict=True)
    ):
        print(f"seat {seat + 1}: {spec:<30} score {score:>4}  place {rank + 1}")
    for forfeit in record.forfeits:
        print(
            f"seat {forfeit.seat + 1} forfeited at decision {forfeit.at_decision}: "
            f"{forfeit.reason.value}: {forfeit.detail}"
        )
    print(f"{len(record.decisions)} decisions in {record.duration_s:.2f}s")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Dispatch ``worker`` or ``play``."""
    argv = sys.argv[1:] if argv is None else argv
    commands = {"worker": worker, "play": play}
    if not argv or argv[0] not in commands:
        print(__doc__, file=sys.stderr)
        return 2
    return commands[argv[0]](argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
