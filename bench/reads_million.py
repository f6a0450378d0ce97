"""Reads of a server holding a million rated results while results arrive, printed.

``python bench/reads_million.py [--results N] [--db PATH] [--seconds S] [--rate R]``

1. Generates ``N`` rated results (default 1,000,000) through the store's own API (events
   created, then their results planted in bulk: ``SqlStore.plant_results`` writes what
   queueing, claiming and finalizing each would) into the SQLite file ``--db`` among 200
   bots of planted strengths: a 5,000-match event, a 100,000-match event (smaller when ``N``
   is) and events of 50,000 for the rest, three in four at two seats and one at four. A file
   generated before for the same ``N`` is used again (its ``.json`` beside it says so);
   without ``--db`` it goes to a temporary directory.
2. Starts a real server on it in a process of its own (``server.app.build_server``, an
   in-memory queue, ``HAMLET_REFIT_SECONDS`` from ``--refit-seconds``) and waits for the
   leaderboard's first fit (the time is printed).
3. Has that server record new rated results at ``--rate`` a second (default 20) as its
   recorder does (store, then the recorder's signal), while this process calls over real
   gRPC for ``--seconds`` (default 60), one client per call, back to back, all at once:
   ``GetLeaderboard``, ``GetTournament`` of the 5,000- and the 100,000-match event and
   ``GetReplay`` of a match, each with default paging (``--calls`` picks some).
4. Prints p50/p99 milliseconds per call, the server's CPU share (its process and the fitting
   process), the share the fits took (``hamlet_server_rating_fit_cpu_seconds_total``; full fits
   and fast updates counted apart: at a million results a full fit comes every few minutes,
   so a window of ``--seconds 300`` or more holds one), and how long new results took to show
   on the leaderboard (p50/max over the results fed).

Targets (issue 23): p99 <= 50 ms per read; fits <= 10% of a core; a new result visible on the
leaderboard within 10 s. Numbers, never assertions; not part of the test run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc
import psutil

import games
from hamlet.channels import open_channel
from hamlet.v1 import arena_pb2, arena_pb2_grpc
from server.storage import Outcome, SeatOutcome
from tests.server import planted

GAME = "village"
BOTS = 200
SMALL, BIG, REST = 5_000, 100_000, 50_000
#: Results are planted this many to a transaction (``SqlStore.plant_results``).
CHUNK = 5_000
#: Results are fed into events of this many matches.
FEED_EVENT = 100


@dataclass(frozen=True)
class Generated:
    """What a generated file holds (saved beside it as JSON)."""

    results: int
    version_ids: list[int]
    strengths: list[float]
    events: list[tuple[str, int]]  # (tournament id, matches)
    replay: str  # a match played move by move (the others have results only)


def plan(results: int) -> list[tuple[str, int, int]]:
    """(tournament id, matches, seats) of each event."""
    small = min(SMALL, results // 2)
    big = min(BIG, results - small)
    out = [("e-small", small, 2), ("e-big", big, 2)]
    left, i = results - small - big, 0
    while left > 0:
        n = min(REST, left)
        out.append((f"e-rest{i}", n, 4 if i % 4 == 3 else 2))
        left, i = left - n, i + 1
    return out


def generate(db: Path, results: int) -> Generated:
    """The generated file (made now unless made before for ``results``)."""
    sidecar = db.with_suffix(".json")
    if db.exists() and sidecar.exists():
        made = Generated(**json.loads(sidecar.read_text()))
        if made.results == results:
            print(f"using {db} ({results:,} results, generated before)")
            return made
    for path in (db, sidecar, Path(f"{db}-wal"), Path(f"{db}-shm")):
        path.unlink(missing_ok=True)
    from bench.refit_path import quick_store

    store = quick_store(db)
    rules = games.get(GAME).rules_version
    field = planted.bots(store, GAME, rules, [f"m{i:03d}" for i in range(BOTS)])
    started = time.perf_counter()
    done = 0
    for tid, n, k in plan(results):
        tables = planted.tables(field, n, k, seed=done)
        planted.create(store, field, tid, tables, per_block=k)
        for at in range(0, n, CHUNK):  # one transaction a chunk (progress shows)
            part = tables[at : at + CHUNK]
            reports = []
            for i, (_, ranks) in enumerate(part, start=at):
                outcome = Outcome(tuple(SeatOutcome(10 - r, r) for r in ranks), (), 0.5)
                reports.append((f"{tid}.m{i}", outcome, f"h-{tid}.m{i}"))
            store.plant_results(reports, "w", "planter", planted.NOW)
            done += len(part)
            if done % 50_000 < CHUNK or done == results:
                rate = done / (time.perf_counter() - started)
                print(f"  recorded {done:,} of {results:,} ({rate:.0f}/s)", flush=True)
    replay = planted.record_replayable(store, field, "e-replay")
    store.close()
    made = Generated(
        results,
        list(field.version_ids),
        list(field.strengths),
        [(tid, n) for tid, n, _ in plan(results)],
        replay,
    )
    sidecar.write_text(json.dumps(asdict(made)))
    return made


def serve(db: Path, refit_seconds: float) -> None:
    """The server process: serve ``db``; on a ``feed RATE`` line on stdin, record new results
    at RATE a second, printing ``fed I TIME`` for each."""
    from prometheus_client import CollectorRegistry

    from server.app import build_server
    from server.auth.ratelimit import RateLimits
    from server.config import Settings
    from server.services.refit import Snapshot
    from server.services.scheduling import MemoryEnqueuer

    made = Generated(**json.loads(db.with_suffix(".json").read_text()))
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(
            data_dir=Path(data),
            database_url=f"sqlite:///{db}",
            grpc_port=0,
            metrics_port=0,
            refit_seconds=refit_seconds,
            reaper_interval_seconds=3600,
            # one benchmark client reads far more than one person may
            rate=RateLimits(reads="1000000/minute"),
        )
        server, port = build_server(
            settings, enqueuer=MemoryEnqueuer(), registry=CollectorRegistry()
        )
        print(json.dumps({"port": port, "metrics": server.metrics_port}), flush=True)
        if server.refits is not None:  # each fit's kind and CPU time, for the report

            def told(_key: object, snapshot: Snapshot) -> None:
                fitted = snapshot.fitted
                kind = "full" if fitted.full else "fast"
                _say(f"fit {kind} {fitted.cpu_seconds:.4f} {time.time()}")

            server.refits.on_publish.append(told)
        line = sys.stdin.readline().split()
        if line and line[0] == "feed":
            field = planted.Field(
                GAME,
                games.get(GAME).rules_version,
                tuple(made.version_ids),
                tuple(made.strengths),
            )
            _feed(server, field, float(line[1]), float(line[2]))
        server.stop(1)


def _feed(server: object, field: planted.Field, rate: float, seconds: float) -> None:
    """Record results at ``rate`` a second until stdin closes (for about ``seconds``)."""
    from server.app import HamletServer

    assert isinstance(server, HamletServer)
    store = server.store
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    started = time.monotonic()
    tid, tables = "", planted.tables(field, 0, 2, seed=0)
    for i in range(int(rate * seconds * 2) + 100):
        if i % FEED_EVENT == 0:  # small events: finishing one result costs the same throughout
            tid = f"feed-{int(time.time())}-{i}"
            tables = planted.tables(field, FEED_EVENT, 2, seed=int(time.time()) + i)
            planted.create(store, field, tid, tables, per_block=2)
        wait = started + i / rate - time.monotonic()
        if stop.wait(max(wait, 0.0)):
            return
        match_id = f"{tid}.m{i % FEED_EVENT}"
        ranks = tables[i % FEED_EVENT][1]
        store.mark_queued([match_id], planted.NOW)
        store.claim_match(match_id, "w", planted.NOW + timedelta(days=3650), "h-" + match_id)
        outcome = Outcome(tuple(SeatOutcome(10 - r, r) for r in ranks), (), 0.5)
        store.finalize_matches([(match_id, outcome, "h-" + match_id)], planted.NOW)
        on_final = server.services.matches.on_final
        if on_final is not None:
            on_final(tid)  # what the recorder does after a report: the refits' signal too
        _say(f"fed {i} {time.time()}")


_SAY = threading.Lock()


def _say(line: str) -> None:
    """One whole line to stdout (the feed and the refit thread both report)."""
    with _SAY:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def _metric(port: int, name: str) -> float:
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    return sum(float(x.rsplit(" ", 1)[1]) for x in text.splitlines() if x.startswith(name + "{"))


def _cpu(proc: psutil.Process) -> float:
    total = 0.0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total


def _pct(values: list[float], q: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def measure(args: argparse.Namespace, db: Path, made: Generated) -> None:
    """Start the server, wait for the first fit, feed, measure, print."""
    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(db), "--refit-seconds", str(args.refit_seconds)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        ports = json.loads(proc.stdout.readline())
        server = psutil.Process(proc.pid)
        arena = arena_pb2_grpc.ArenaStub(open_channel(f"127.0.0.1:{ports['port']}"))
        started = time.perf_counter()
        while True:
            try:
                first = arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game=GAME))
                break
            except grpc.RpcError as exc:
                if exc.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
        print(
            f"first fit of {first.fitted_results:,} results published "
            f"{time.perf_counter() - started:.1f} s after the server started"
        )
        base = first.results_recorded
        replay_id = made.replay
        fed: dict[int, float] = {}
        fits: list[tuple[str, float, float]] = []  # (full or fast, CPU s, wall time)

        def read_fed() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:  # read to the end: the server never blocks on it
                parts = line.split()
                try:
                    if parts and parts[0] == "fed":
                        fed[int(parts[1])] = float(parts[2])
                    elif parts and parts[0] == "fit":
                        fits.append((parts[1], float(parts[2]), float(parts[3])))
                except (IndexError, ValueError):  # a line of the server's own
                    continue

        threading.Thread(target=read_fed, daemon=True).start()
        proc.stdin.write(f"feed {args.rate} {args.seconds}\n")
        proc.stdin.flush()
        every = {
            "leaderboard": (
                "GetLeaderboard",
                lambda: arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game=GAME)),
            ),
            "small": (
                f"GetTournament {made.events[0][1]:,} ({made.events[0][0]})",
                lambda: arena.GetTournament(
                    arena_pb2.TournamentRef(tournament_id=made.events[0][0])
                ),
            ),
            "big": (
                f"GetTournament {made.events[1][1]:,} ({made.events[1][0]})",
                lambda: arena.GetTournament(
                    arena_pb2.TournamentRef(tournament_id=made.events[1][0])
                ),
            ),
            "replay": (
                "GetReplay",
                lambda: arena.GetReplay(arena_pb2.MatchRef(match_id=replay_id)),
            ),
        }
        calls = {every[c][0]: every[c][1] for c in args.calls.split(",")}
        times: dict[str, list[float]] = {name: [] for name in calls}
        seen: list[tuple[float, int]] = []  # (wall time, results in the leaderboard's fit)
        cpu0, fit0, t0 = _cpu(server), _metric(ports["metrics"], FIT_CPU), time.monotonic()
        wall0 = time.time()

        def loop(name: str, call: Callable[[], object]) -> None:
            """One client calling ``call`` back to back for the window."""
            while time.monotonic() - t0 < args.seconds:
                at = time.perf_counter()
                answer = call()
                times[name].append((time.perf_counter() - at) * 1000)
                if isinstance(answer, arena_pb2.Leaderboard):
                    seen.append((time.time(), answer.fitted_results - base))

        clients = [threading.Thread(target=loop, args=item) for item in calls.items()]
        if "GetLeaderboard" not in calls:  # the visibility needs a leaderboard reader
            watch = every["leaderboard"][1]
            times["(watch)"] = []
            clients.append(threading.Thread(target=loop, args=("(watch)", watch)))
        for client in clients:
            client.start()
        for client in clients:
            client.join()
        window = time.monotonic() - t0
        cpu1, fit1 = _cpu(server), _metric(ports["metrics"], FIT_CPU)
        proc.stdin.close()
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:  # ask first: the server stops its fitting process too
            if not proc.stdin.closed:
                proc.stdin.close()
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    print(
        f"\n{made.results:,} rated results; {len(fed)} fed (at {args.rate}/s asked) during "
        f"{window:.0f} s"
    )
    print(f"{'call':<34}{'calls':>7}{'p50 ms':>9}{'p99 ms':>9}")
    for name, ms in times.items():
        if name == "(watch)":
            continue
        print(f"{name:<34}{len(ms):>7}{statistics.median(ms):>9.1f}{_pct(ms, 99):>9.1f}")
    print(
        f"server CPU (its process and the fitting process): {(cpu1 - cpu0) / window:.0%} of a core"
    )
    print(f"fits' CPU: {(fit1 - fit0) / window:.1%} of a core (target <= 10%)")
    for kind in ("full", "fast"):
        cpu = [c for k, c, at in fits if k == kind and wall0 <= at <= wall0 + window]
        if cpu:
            print(
                f"  {kind} fits in the window: {len(cpu)}, CPU s each p50 "
                f"{statistics.median(cpu):.3f}, max {max(cpu):.3f}"
            )
    first_full = [c for k, c, _ in fits if k == "full"]
    if first_full:
        print(f"  the first (full, cold) fit: {first_full[0]:.1f} CPU s")
    delays = []
    for i, when in sorted(fed.items()):
        shown = next((t for t, n in seen if n > i), None)
        if shown is not None:
            delays.append(shown - when)
    if delays:
        print(
            f"new result visible on the leaderboard after: p50 {statistics.median(delays):.1f} s, "
            f"max {max(delays):.1f} s ({len(delays)} of {len(fed)} fed seen; target <= 10 s)"
        )
    else:
        print("no fed result was seen on the leaderboard during the window")


FIT_CPU = "hamlet_server_rating_fit_cpu_seconds_total"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--results", type=int, default=1_000_000)
    parser.add_argument("--db", type=Path, help="where the generated SQLite file is kept")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=float, default=20.0)
    parser.add_argument("--refit-seconds", type=float, default=3.0)
    parser.add_argument(
        "--calls",
        default="leaderboard,small,big,replay",
        help="the reads, each by its own client at once: leaderboard, small (GetTournament of "
        "the 5,000-match event), big (the 100,000-match event), replay",
    )
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve, args.refit_seconds)
        return
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db if args.db is not None else Path(tmp) / "hamlet.db"
        made = generate(db, args.results)
        measure(args, db, made)


if __name__ == "__main__":
    main()
