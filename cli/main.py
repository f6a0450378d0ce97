"""``hamlet``: the command line over the gRPC API, plus the commands that start processes.

Exit codes (scripts may rely on them):

* 0 — done (a watched tournament finished with every match played);
* 1 — refused or failed (FAILED_PRECONDITION, ALREADY_EXISTS, RESOURCE_EXHAUSTED (over a
  quota), a server error, a watched tournament cancelled or with failed matches, a process
  that would not start; ``bot play``: the bot forfeited a game, or the sandbox refuses
  uploaded bots here);
* 2 — bad arguments (usage errors and INVALID_ARGUMENT);
* 3 — not found (unknown game, bot, tournament or match; the local ``bot new`` and ``bot play``
  say 2 for an unknown game, bot or file: it is an argument they check themselves);
* 4 — the server cannot be reached;
* 5 — not allowed (UNAUTHENTICATED: no valid token; PERMISSION_DENIED: wrong scope or owner);
* 130 — interrupted (Ctrl-C).

Calls carry the token found by :mod:`cli.credentials` (``HAMLET_TOKEN``, ``hamlet login``,
or the data directory's admin token); ``HAMLET_TLS_CA`` switches the channel to TLS.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import grpc

from cli import commands_seat, console

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NOT_FOUND, EXIT_UNAVAILABLE, EXIT_DENIED = 0, 1, 2, 3, 4, 5
EXIT_INTERRUPTED = 130

_EXIT_FOR = {
    grpc.StatusCode.INVALID_ARGUMENT: EXIT_USAGE,
    grpc.StatusCode.OUT_OF_RANGE: EXIT_USAGE,
    grpc.StatusCode.NOT_FOUND: EXIT_NOT_FOUND,
    grpc.StatusCode.UNAVAILABLE: EXIT_UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED: EXIT_UNAVAILABLE,
    grpc.StatusCode.UNAUTHENTICATED: EXIT_DENIED,
    grpc.StatusCode.PERMISSION_DENIED: EXIT_DENIED,
}

Command = Callable[[argparse.Namespace], int]

#: The flags of the commands that call a server (not of `server`, `up` or `worker`).
_CLIENT_FLAGS = ("--server", "--json", "--timeout")


def _server_addr() -> str:
    return os.environ.get("HAMLET_SERVER_ADDR") or "127.0.0.1:50051"


def _parser() -> argparse.ArgumentParser:
    from cli import args_bot
    from cli import commands as c
    from cli import commands_accounts as ca
    from cli import commands_db as cd
    from cli import commands_local as cl
    from cli import commands_ops as co
    from cli import commands_ranked as cr
    from cli import commands_user as cu

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--server", default=None, metavar="HOST:PORT", help="server address (HAMLET_SERVER_ADDR)"
    )
    common.add_argument("--json", action="store_true", help="machine-readable output")
    common.add_argument("--timeout", type=float, default=10.0, help="seconds per call (default 10)")

    parser = argparse.ArgumentParser(
        prog="hamlet", description="Hamlet: tournaments for game-playing bots."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(
        name: str, func: Command, help_text: str, parent: Any = sub, client: bool = True
    ) -> argparse.ArgumentParser:
        # Only commands that call a server take --server, --json and --timeout: a process
        # command given one would ignore it, so it is refused as an unknown argument.
        # argparse %-formats help strings (not descriptions): "95%" must reach it as "95%%".
        p: argparse.ArgumentParser = parent.add_parser(
            name,
            parents=[common] if client else [],
            help=help_text.replace("%", "%%"),
            description=help_text,
        )
        p.set_defaults(func=func)
        return p

    add("games", c.games, "list the registered games")
    p = add("bots", c.bots, "list bots")
    p.add_argument("--game", default="", help="only bots that play GAME")
    p.add_argument("--all", action="store_true", help="include retired bots")

    args_bot.add_commands(sub, add)
    args_bot.add_consent_commands(sub, add)

    p = add("sprt", cr.sprt, "is bot B better than bot A? a sequential test on paired blocks")
    p.add_argument("a", metavar="A", help="the baseline")
    p.add_argument("b", metavar="B", help="the candidate")
    p.add_argument("--game", required=True)
    p.add_argument("--elo0", type=float, default=0.0, help="H0: B at most this better (nElo)")
    p.add_argument("--elo1", type=float, default=10.0, help="H1: B at least this better (nElo)")
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--beta", type=float, default=0.05)
    p.add_argument("--vs", default="random", help="comma-separated opponents (default random)")
    p.add_argument("--players", type=int, default=0, help="players per table (default: minimum)")
    p.add_argument("--max-pairs", type=int, default=0, help="stop after this many (default 1000)")
    p.add_argument("--decision-ms", type=int, default=0)

    lad = sub.add_parser("ladder", help="the continuous ladder of a game").add_subparsers(
        dest="ladder_command", required=True, metavar="ACTION"
    )
    for action, text in (("join", "put a bot on the ladder"), ("leave", "take it off")):
        p = add(action, cr.ladder, text, lad)
        p.add_argument("bot")
        p.add_argument("--game", default="", help="needed if the bot plays several games")
    p = add("status", cr.ladder, "who is on a game's ladder and how busy it is", lad)
    p.add_argument("game")
    p = add("end", cr.ladder, "end the running season and start the next (admin)", lad)
    p.add_argument("game")

    user = sub.add_parser("user", help="create, disable or enable users (admin)").add_subparsers(
        dest="user_command", required=True, metavar="ACTION"
    )
    p = add("create", ca.user_create, "create a user and print its first token (admin only)", user)
    p.add_argument("name")
    p.add_argument("--admin", action="store_true", help="an administrator")
    cu.add_commands(user)

    token = sub.add_parser("token", help="create, list or revoke API tokens").add_subparsers(
        dest="token_command", required=True, metavar="ACTION"
    )
    p = add("create", ca.token_create, "create a token (the secret is shown once)", token)
    p.add_argument("--user", default="", help="for another user (admin only)")
    p.add_argument(
        "--scope",
        default="",
        help="comma-separated: read, submit, admin, worker (default: read,submit)",
    )
    p.add_argument(
        "--expires",
        type=ca.parse_duration,
        default=0,
        metavar="DURATION",
        help="e.g. 3600, 15m, 12h, 30d (default: never)",
    )
    p.add_argument("--label", default="", help="a note to recognise the token by")
    p = add("list", ca.token_list, "list tokens (never their secrets)", token)
    p.add_argument("--user", default="", help="another user's (admin only)")
    p = add("revoke", ca.token_revoke, "revoke a token at once", token)
    p.add_argument("token_id")
    add(
        "generate",
        co.token_generate,
        "print a new worker token made here, for a deployment's HAMLET_WORKER_TOKEN_FILE "
        "(the server enrolls the tokens it finds there)",
        token,
        client=False,
    )

    cd.add_commands(sub, add)

    p = add("health", co.health, "is the server serving? (a deployment's probe; TLS-aware)")
    p.add_argument("--service", default="", help="a gRPC service name (default: the server)")

    p = add("login", ca.login, "check a token (read from stdin) with the server and keep it")
    p.add_argument("--token-file", type=Path, default=None, help="read the token from a file")
    add("whoami", ca.whoami, "the user and scopes of the token in use")
    p = add("quota", ca.quota, "your quotas: each limit, its use now and when it resets")
    p.add_argument("--user", default="", help="another user's (admin only)")

    tour = sub.add_parser(
        "tournament", help="create, start, watch, show or cancel tournaments"
    ).add_subparsers(dest="tournament_command", required=True, metavar="ACTION")
    p = add(
        "create",
        c.tournament_create,
        "create a round robin, gauntlet or Swiss (every seat rotation, duplicate seeds)",
        tour,
    )
    p.add_argument("game")
    p.add_argument(
        "bots",
        nargs="+",
        metavar="BOT",
        help="NAME (its latest version) or NAME@VERSION; one bot may enter at several versions",
    )
    p.add_argument(
        "--format",
        choices=("round-robin", "gauntlet", "swiss"),
        default="round-robin",
        help="gauntlet: the first BOT against the others; swiss: --rounds rounds, each paired "
        "by score when the last ends (default round-robin)",
    )
    p.add_argument(
        "--players",
        type=int,
        default=0,
        help="players per table (default: all bots, up to the max)",
    )
    p.add_argument("--rounds", type=int, default=1, help="duplicate-seed blocks (default 1)")
    p.add_argument(
        "--seed", type=int, default=0, help="tournament seed (default: random, recorded)"
    )
    p.add_argument(
        "--decision-ms",
        type=int,
        default=0,
        help="per-decision limit of an --unrated one (default: server's); rated tournaments "
        "play the game's rated time control (`hamlet games`)",
    )
    p.add_argument("--unrated", action="store_true", help="do not update the Elo leaderboard")
    p.add_argument("--start", action="store_true", help="start it right away")
    p.add_argument("--watch", action="store_true", help="start it and follow it to the end")
    p = add("start", c.tournament_start, "queue a tournament's matches", tour)
    p.add_argument("tournament_id")
    p.add_argument("--watch", action="store_true", help="follow it to the end")
    p = add(
        "watch", c.tournament_watch, "follow a tournament with a progress bar until it ends", tour
    )
    p.add_argument("tournament_id")
    p = add("show", c.tournament_show, "a tournament's status, standings and matches", tour)
    p.add_argument("tournament_id")
    p.add_argument("--matches", action="store_true", help="list every match")
    p = add("cancel", c.tournament_cancel, "cancel the matches not yet played", tour)
    p.add_argument("tournament_id")
    p = add("list", c.tournament_list, "recent tournaments", tour)
    p.add_argument("--limit", type=int, default=20)

    match = sub.add_parser("match", help="show a match or its replay").add_subparsers(
        dest="match_command", required=True, metavar="ACTION"
    )
    p = add("show", c.match_show, "a match's result and action log", match)
    p.add_argument("match_id")
    p.add_argument("--log", action="store_true", help="print every decision")
    p = add("replay", c.match_replay, "replay a match through the engine", match)
    p.add_argument("match_id")
    p.add_argument(
        "--states",
        action="store_true",
        help="print the public state after each decision (with --seat: each whole observation)",
    )
    p.add_argument(
        "--seat",
        type=commands_seat.seat_number,
        default=None,
        metavar="N",
        help="seat N's own view (1 is the first seat, as `match show` numbers them): what it "
        "saw, its legal actions, answers, times and stderr (its bot's owner or an admin)",
    )
    p = add(
        "verify", cr.match_verify, "check the seed commitment and re-simulate the replay", match
    )
    p.add_argument("match_id")

    p = add(
        "leaderboard",
        c.leaderboard,
        "a game's published rating: a fit of every rated result, with 95% intervals",
    )
    p.add_argument("game")
    p.add_argument("--version-lines", action="store_true", help="a line per bot version")
    p.add_argument("--rules-version", default="", help="e.g. farmaria-2 (default: current)")
    p.add_argument("--elo", action="store_true", help="the live Elo table instead")

    p = add(
        "rebuild-ratings", cl.rebuild_ratings, "recompute a game's Elo table from the result log"
    )
    p.add_argument("game")

    p = add("server", cl.serve, "run the gRPC server and its metrics endpoint", client=False)
    p.add_argument("--host", default=None, help="listen address (HAMLET_GRPC_HOST)")
    p.add_argument("--port", type=int, default=None, help="gRPC port (HAMLET_GRPC_PORT)")
    p.add_argument(
        "--metrics-port", type=int, default=None, help="metrics port (HAMLET_METRICS_PORT)"
    )

    p = add("web", cl.web, "serve the read-only web app (leaderboards, tournaments, replays)")
    p.add_argument("--host", default="127.0.0.1", help="listen address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="HTTP port (HAMLET_WEB_PORT, 8080)")
    p.add_argument(
        "--secure-cookies", action="store_true", help="behind HTTPS: send cookies over TLS only"
    )

    p = sub.add_parser(
        "worker", help="run a Celery worker for the match queue (python -m workers worker)"
    )
    p.add_argument(
        "worker_args", nargs=argparse.REMAINDER, help="e.g. --concurrency 4 --loglevel INFO"
    )
    p.set_defaults(func=cl.worker)

    p = add(
        "up",
        cl.up,
        "embedded mode: redis, workers, server, metrics and a demo, on this machine",
        client=False,
    )
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument(
        "--concurrency", type=int, default=2, help="matches per worker process (default 2)"
    )
    p.add_argument("--data-dir", type=Path, default=None, help="data directory (HAMLET_DATA_DIR)")
    p.add_argument("--port", type=int, default=None, help="gRPC port (default 50051)")
    p.add_argument("--web-port", type=int, default=8080, help="web app port (default 8080)")
    p.add_argument("--rounds", type=int, default=2, help="demo rounds per game (default 2)")
    p.add_argument(
        "--decision-ms",
        type=int,
        default=0,
        help="demo per-decision limit (default: the demo is rated and plays each game's rated "
        "time control; another limit makes it unrated)",
    )
    demo = p.add_mutually_exclusive_group()
    demo.add_argument("--demo-only", action="store_true", help="run the demo, then stop")
    demo.add_argument("--no-demo", action="store_true", help="only start the services")
    return parser


def _unreadable_ca() -> str:
    """A one-line complaint when HAMLET_TLS_CA names a file that cannot be read."""
    from cli import credentials

    ca = credentials.tls_ca()
    if ca is None:
        return ""
    try:
        ca.read_bytes()
    except OSError as exc:
        return f"cannot read HAMLET_TLS_CA {ca}: {exc.strerror or exc}"
    return ""


def _tls_mistake(args: argparse.Namespace) -> bool:
    """Whether a timed-out call met a TLS mistake (a client without a CA waits out its
    deadline against a TLS server): then that is the message, not the timeout."""
    from hamlet.tlsprobe import diagnose

    server = getattr(args, "server", None)
    if not server:
        return False
    from cli import credentials

    return diagnose(server, credentials.tls_ca(), timeout=1.0).definite


def _unreachable(args: argparse.Namespace) -> str:
    """Why the server did not answer, in one line, with what to do."""
    from cli import credentials
    from hamlet.tlsprobe import diagnose

    server = getattr(args, "server", "?")
    found = diagnose(server, credentials.tls_ca())
    if found.definite:
        return f"cannot talk to the server at {server}: {found.message}"
    return (
        f"cannot reach the server at {server} ({found.message}); start it with "
        "`make up` or `hamlet server`, or set HAMLET_SERVER_ADDR"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hamlet`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["worker"] and not {"-h", "--help"} & set(argv):
        # Everything after `worker` belongs to the worker command (argparse would eat --flags),
        # but the client flags would reach Celery, which knows them not: refused here, plainly.
        client_flag = next((a for a in argv[1:] if a.split("=")[0] in _CLIENT_FLAGS), "")
        if client_flag:
            console.err.print(
                f"hamlet worker: {client_flag.split('=')[0]} is not a worker option (the worker "
                "takes its server from HAMLET_SERVER_ADDR and logs, it prints no JSON)"
            )
            return EXIT_USAGE
        from cli import commands_local

        return commands_local.worker(argparse.Namespace(worker_args=argv[1:]))
    args = _parser().parse_args(argv)
    local = ("server", "up", "worker", "rebuild-ratings", "db")  # and `bot new` / `bot play`
    if getattr(args, "server", None) is None and args.command not in local:
        args.server = _server_addr()
    if args.command not in local and args.command != "web":
        ca_problem = _unreadable_ca()
        if ca_problem:
            console.err.print(f"hamlet: {ca_problem}")
            return EXIT_USAGE
    try:
        return int(args.func(args))
    except grpc.RpcError as exc:
        code = exc.code()  # type: ignore[attr-defined]
        if code is grpc.StatusCode.UNAVAILABLE or (
            code is grpc.StatusCode.DEADLINE_EXCEEDED and _tls_mistake(args)
        ):
            message = _unreachable(args)
        elif code is grpc.StatusCode.DEADLINE_EXCEEDED:
            message = (
                f"timed out after {getattr(args, 'timeout', '?')} s waiting for "
                f"{getattr(args, 'server', '?')} "
                "(a slow call: try --timeout 60)"
            )
        else:
            message = f"{code.name}: {exc.details()}"  # type: ignore[attr-defined]
            if code is grpc.StatusCode.UNAUTHENTICATED:
                message += " (log in with `hamlet login`, or set HAMLET_TOKEN)"
        from cli.invocation import fix_hints

        message = fix_hints(message)  # `hamlet login` as it can be typed here
        if getattr(args, "json", False):
            # Scripts asked for JSON: the error is JSON on stdout, with the same exit code.
            print(json.dumps({"error": {"code": code.name, "message": message}}))
        else:
            console.err.print(f"hamlet: {message}")
        return _EXIT_FOR.get(code, EXIT_FAILED)
    except KeyboardInterrupt:
        console.err.print("hamlet: interrupted")
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
