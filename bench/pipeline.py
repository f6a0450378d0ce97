"""The match pipeline at scale: how close the service comes to playing matches in process.

``python bench/pipeline.py [--matches N] [--quick]`` starts what ``hamlet up`` starts (a
private redis-server, the gRPC server with SQLite, one worker of ``--cores`` pool
children; the server runs in this process so its CPU time can be read) and prints, each
a ratio or figure measured in this one run:

- pipeline efficiency: end-to-end matches/s through the service (tournament start to its
  last result) / the same matches (same seeds, seats, bots) played in process on the same
  number of cores, for trivial bots and for ``greedy``, on 2- and 4-player tables;
- dispatch latency (sent to the queue -> claimed) and report latency (report received ->
  final), p50 and p99;
- server CPU seconds per 1,000 matches with 0 and with 20 open WatchTournament streams;
- ``ListMatches`` page time at 1,000 and 20,000 matches.

``--load-test`` instead runs the server against PostgreSQL (``--database-url``, by default
a private schema on the local server) with 4 worker processes and prints matches/s.
Numbers, never assertions: tests do not time anything.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hamlet.channels import open_channel
from hamlet.paging import all_matches
from hamlet.v1 import arena_pb2, arena_pb2_grpc, common_pb2

EXAMPLE = Path(__file__).resolve().parents[1] / "bots" / "examples" / "random_uploaded.py"
TARGETS = {"trivial": 0.8, "greedy": 0.95}
#: (label, kind for the target, bots, players per table)
CONFIGS = [
    ("random/first 2p", "trivial", ["random", "first"], 2),
    ("greedy/random 2p", "greedy", ["greedy", "random"], 2),
    ("random/first/greedy/uploaded 4p", "greedy", ["random", "first", "greedy", "upl0"], 4),
]


@dataclass
class Stack:
    """Redis, the in-process server and the worker processes."""

    stub: arena_pb2_grpc.ArenaStub
    server: object
    port: int
    cores: int
    samples: dict[str, list[float]] = field(default_factory=dict)

    def observe(self, stage: str, seconds: float) -> None:
        self.samples.setdefault(stage, []).append(seconds)


@contextmanager
def stack(tmp: Path, workers: int, concurrency: int, database_url: str = "") -> Iterator[Stack]:
    from cli.embedded import wait_for_bots
    from cli.processes import start_redis, start_worker
    from server.app import build_server
    from server.config import Settings

    logs = tmp / "logs"
    logs.mkdir(parents=True)
    with ExitStack() as stop:
        redis_child, redis_url = start_redis(tmp, logs)
        stop.callback(redis_child.stop)
        settings = Settings(
            data_dir=tmp / "data",
            database_url=database_url,
            redis_url=redis_url,
            grpc_port=0,
            metrics_port=-1,
            log_level="WARNING",
            max_streams=24,  # room for the 20 watchers
        )
        server, port = build_server(settings)
        stop.callback(server.stop, 1)
        children = [
            start_worker(i, concurrency, redis_url, f"127.0.0.1:{port}", settings.data_dir, logs)
            for i in range(1, workers + 1)
        ]
        for child in children:
            stop.callback(child.stop)
        token = (settings.data_dir / "admin.token").read_text().strip()
        stub = arena_pb2_grpc.ArenaStub(open_channel(f"127.0.0.1:{port}", token=token))  # type: ignore[no-untyped-call]
        wait_for_bots(stub, children)
        out = Stack(stub, server, port, workers * concurrency)
        server.services.matches.observers.append(out.observe)  # type: ignore[attr-defined]
        for i in range(8):
            stub.SubmitBot(
                arena_pb2.SubmitBotRequest(
                    name=f"upl{i}", game="village", source=EXAMPLE.read_text()
                ),
                timeout=30,
            )
        yield out


@dataclass(frozen=True)
class Run:
    matches: int
    seconds: float
    server_cpu: float
    specs: list[common_pb2.Match]

    @property
    def rate(self) -> float:
        return self.matches / self.seconds


def through_service(s: Stack, bots: list[str], ppt: int, n: int, watchers: int = 0) -> Run:
    per_round = math.comb(len(bots), ppt) * ppt
    t = s.stub.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="village", bots=bots, players_per_table=ppt, rounds=max(1, n // per_round),
            decision_time_ms=5000, rated=False,
        ),
        timeout=60,
    )  # fmt: skip
    ref = arena_pb2.TournamentRef(tournament_id=t.tournament_id)
    with watching(s, t.tournament_id, watchers):
        # One stream tells the end (polling GetTournament would cost the server more).
        stream = s.stub.WatchTournament(
            arena_pb2.WatchTournamentRequest(tournament_id=t.tournament_id), timeout=3600
        )
        next(stream)
        start, cpu = time.perf_counter(), time.process_time()
        s.stub.StartTournament(ref, timeout=120)
        for _ in stream:
            pass
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    done = s.stub.GetTournament(ref, timeout=60).matches_finished
    return Run(done, seconds, cpu, all_matches(s.stub, t.tournament_id))


def idle_dispatch(s: Stack, blocks: int) -> list[float]:
    """Dispatch latency on an idle queue: one block at a time, each after the last ended."""
    s.samples.clear()
    for _ in range(blocks):
        through_service(s, ["random", "first"], 2, 2)
    return list(s.samples.get("dispatch", []))


WATCHER = """
import sys, threading, grpc
from hamlet.channels import open_channel
from hamlet.v1 import arena_pb2, arena_pb2_grpc
addr, tid, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
stub = arena_pb2_grpc.ArenaStub(open_channel(addr))
def follow():
    for _ in stub.WatchTournament(arena_pb2.WatchTournamentRequest(tournament_id=tid)):
        pass
threads = [threading.Thread(target=follow) for _ in range(n)]
[t.start() for t in threads]
print("ready", flush=True)
[t.join() for t in threads]
"""


@contextmanager
def watching(s: Stack, tournament_id: str, n: int) -> Iterator[None]:
    """``n`` WatchTournament streams from another process (their CPU is not the server's)."""
    if not n:
        yield
        return
    port = s.port
    proc = subprocess.Popen(
        [sys.executable, "-c", WATCHER, f"127.0.0.1:{port}", tournament_id, str(n)],
        stdout=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert proc.stdout is not None
    proc.stdout.readline()
    time.sleep(1.0)  # the streams are open and idle
    try:
        yield
    finally:
        proc.wait(60)


def _play(spec: common_pb2.Match) -> int:
    from workers.clients import CodeCache, SeatClients
    from workers.model import BotKind, MatchPlan, SeatPlan
    from workers.play import play_plan

    seats = tuple(
        SeatPlan(x.seat, x.bot_name, x.bot_version, BotKind.UPLOADED, _CODE_SHA)
        if x.bot_name.startswith("upl")
        else SeatPlan(x.seat, x.bot_name, x.bot_version, BotKind.BUILTIN)
        for x in spec.seats
    )
    plan = MatchPlan(spec.match_id, "village", spec.rules_version, spec.seed, seats, 5.0, 50.0)
    play_plan(plan, SeatClients(CodeCache(_CACHE, lambda _sha: EXAMPLE.read_bytes())), None)
    return 1


_CACHE = Path(tempfile.mkdtemp(prefix="hamlet-bench-code-"))
_CODE_SHA = __import__("hashlib").sha256(EXAMPLE.read_bytes()).hexdigest()


def in_process(specs: list[common_pb2.Match], cores: int) -> float:
    """Matches/s playing ``specs`` on a pool of ``cores`` processes (the same code the
    workers run, without queue, claims, reports or database)."""
    with multiprocessing.get_context("fork").Pool(cores) as pool:
        pool.map(_play, specs[: cores * 2])  # warm both processes up
        start = time.perf_counter()
        done = sum(pool.map(_play, specs, chunksize=4))
        return done / (time.perf_counter() - start)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def page_time(s: Stack, bots: list[str], rounds: int) -> tuple[int, float]:
    t = s.stub.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="village", bots=bots, players_per_table=2, rounds=rounds, rated=False
        ),
        timeout=120,
    )
    times = []
    token = ""
    for _ in range(6):  # the first pages and, by the tokens, deeper ones
        request = arena_pb2.ListMatchesRequest(tournament_id=t.tournament_id, page_token=token)
        start = time.perf_counter()
        page = s.stub.ListMatches(request, timeout=60)
        times.append(time.perf_counter() - start)
        token = page.next_page_token or ""
    return t.matches_total, statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--matches", type=int, default=400, help="matches per measurement")
    ap.add_argument("--cores", type=int, default=2, help="pool children of the one worker")
    ap.add_argument("--quick", action="store_true", help="trivial 2p only, no page sizes")
    ap.add_argument("--pages", action="store_true", help="only the ListMatches page times")
    ap.add_argument("--load-test", action="store_true", help="PostgreSQL, 4 worker processes")
    ap.add_argument("--database-url", default="")
    args = ap.parse_args()
    if args.load_test:
        return load_test(args)
    with (
        tempfile.TemporaryDirectory(prefix="hamlet-bench-") as tmp,
        stack(Path(tmp), 1, args.cores) as s,
    ):
        print(f"pipeline: 1 worker x {args.cores} pool children; in-process on {args.cores} cores")
        configs = [] if args.pages else CONFIGS[:1] if args.quick else CONFIGS
        cpu0 = 0.0
        for label, kind, bots, ppt in configs:
            s.samples.clear()
            # a 4-seat table seats an uploaded bot (a sandbox per match): fewer of those
            run = through_service(s, bots, ppt, args.matches // (1 if ppt == 2 else 4))
            base = in_process(run.specs, args.cores)
            eff = run.rate / base
            verdict = "met" if eff >= TARGETS[kind] else "NOT met"
            print(
                f"  {label:<32} service {run.rate:6.1f}/s  in-process {base:6.1f}/s  "
                f"efficiency {eff:4.2f} (target {TARGETS[kind]}: {verdict})"
            )
            if label == CONFIGS[0][0]:
                cpu0 = run.server_cpu / run.matches * 1000
                d, r = s.samples.get("dispatch", []), s.samples.get("report", [])
                idle = idle_dispatch(s, 20)
                print(
                    f"  dispatch (sent -> claimed), idle queue: p50 {pct(idle, 0.5) * 1e3:6.1f} "
                    f"ms  p99 {pct(idle, 0.99) * 1e3:6.1f} ms (target p50 < 20 ms)\n"
                    f"  dispatch behind the {run.matches}-match backlog: p50 "
                    f"{pct(d, 0.5) * 1e3:7.1f} ms  p99 {pct(d, 0.99) * 1e3:7.1f} ms (queue wait)\n"
                    f"  report (received -> final), per block: p50 {pct(r, 0.5) * 1e3:6.1f} ms  "
                    f"p99 {pct(r, 0.99) * 1e3:6.1f} ms"
                )
        watched = (
            None if args.pages else through_service(s, ["random", "first"], 2, args.matches, 20)
        )
        cpu20 = watched.server_cpu / watched.matches * 1000 if watched else 0.0
        if watched is not None:
            print(
                f"  server CPU per 1,000 matches: {cpu0:5.1f} s with 0 watchers, {cpu20:5.1f} s "
                f"with 20: +{(cpu20 / cpu0 - 1) * 100:4.1f}% (target < 10%)"
            )
        if not args.quick:
            for bots, rounds in (
                (["random", "first", "greedy"], 167),
                ([f"upl{i}" for i in range(8)], 357),
            ):
                total, seconds = page_time(s, bots, rounds)
                ms = seconds * 1e3
                print(f"  ListMatches page at {total:>6,} matches: {ms:5.1f} ms (target < 50 ms)")
    return 0


def load_test(args: argparse.Namespace) -> int:
    import uuid

    from sqlalchemy import create_engine, text

    url = args.database_url or "postgresql+psycopg://postgres@127.0.0.1:5432/test"
    schema = f"hamlet_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(url)
    with admin.begin() as conn:
        conn.execute(text(f"create schema {schema}"))
    try:
        with (
            tempfile.TemporaryDirectory(prefix="hamlet-load-") as tmp,
            stack(Path(tmp), 4, 1, f"{url}?options=-csearch_path%3D{schema}") as s,
        ):
            run = through_service(s, ["random", "first"], 2, args.matches)
            d = s.samples.get("dispatch", [])
            print(
                f"load test: PostgreSQL, 4 worker processes x 1: {run.rate:.1f} matches/s "
                f"({run.matches} matches in {run.seconds:.1f} s), server CPU "
                f"{run.server_cpu / run.matches * 1000:.1f} s per 1,000 matches, dispatch p50 "
                f"{pct(d, 0.5) * 1e3:.1f} ms"
            )
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"drop schema {schema} cascade"))
        admin.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
