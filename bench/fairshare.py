"""Fair share under a crowd: how long a small event waits behind another user's huge one.

``python bench/fairshare.py [--cores 2] [--repeats 3] [--big-rounds 476]`` starts what ``hamlet
up`` starts (a private redis-server, the gRPC server with SQLite and its fair-share dispatcher
sizing the window from the workers, one Celery worker of ``--cores`` pool children; the server
runs in this process) and prints:

- how long creating and starting a 20,000-match tournament took (one call each);
- bob's two-match tournament (one duplicate block of ``random`` against ``first``) on an idle
  service: start to last result, the median of ``--repeats`` runs;
- the same tournament started while alice's 19,992-match tournament (seven bots, five of them
  her own uploaded bots, so its blocks run in the sandbox) is running: the median and the worst;
- the target: three times the idle figure plus one of alice's blocks (the longest block of
  hers, from its claim to its report, among those that ended during the measurement), and
  whether the worst run met it.

Numbers, never assertions: tests do not time anything.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hamlet.channels import open_channel
from hamlet.v1 import arena_pb2, arena_pb2_grpc

EXAMPLE = Path(__file__).resolve().parents[1] / "bots" / "examples" / "random_uploaded.py"
OWN_BOTS = 5


@dataclass
class Stack:
    """The running service and a stub per user."""

    server: object
    port: int
    admin: arena_pb2_grpc.ArenaStub
    alice: arena_pb2_grpc.ArenaStub
    bob: arena_pb2_grpc.ArenaStub


@contextmanager
def stack(tmp: Path, cores: int) -> Iterator[Stack]:
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
            redis_url=redis_url,
            grpc_port=0,
            metrics_port=-1,
            log_level="WARNING",
            dispatch_window=0,  # sized from the workers, as a server runs by default
            reaper_interval_seconds=2.0,
        )
        server, port = build_server(settings)
        stop.callback(server.stop, 1)
        worker = start_worker(1, cores, redis_url, f"127.0.0.1:{port}", settings.data_dir, logs)
        stop.callback(worker.stop)
        token = (settings.data_dir / "admin.token").read_text().strip()
        admin = stub(port, token)
        wait_for_bots(admin, [worker])
        users = {}
        for name in ("alice", "bob"):
            made = admin.CreateUser(arena_pb2.CreateUserRequest(name=name), timeout=30)
            users[name] = stub(port, made.token)
        yield Stack(server, port, admin, users["alice"], users["bob"])


def stub(port: int, token: str) -> arena_pb2_grpc.ArenaStub:
    return arena_pb2_grpc.ArenaStub(open_channel(f"127.0.0.1:{port}", token=token))  # type: ignore[no-untyped-call]


def small_event(s: Stack) -> float:
    """Bob's two-match tournament: seconds from the start call to its last result."""
    t = s.bob.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="village", bots=["random", "first"], players_per_table=2, rated=False
        ),
        timeout=60,
    )
    stream = s.bob.WatchTournament(
        arena_pb2.WatchTournamentRequest(tournament_id=t.tournament_id), timeout=3600
    )
    next(stream)
    start = time.perf_counter()
    s.bob.StartTournament(arena_pb2.TournamentRef(tournament_id=t.tournament_id), timeout=60)
    for _ in stream:
        pass
    return time.perf_counter() - start


def big_event(s: Stack, rounds: int) -> tuple[str, int, float, float]:
    """Alice's tournament of her bots and two built-ins: id, matches, create and start secs."""
    for i in range(OWN_BOTS):
        s.alice.SubmitBot(
            arena_pb2.SubmitBotRequest(
                name=f"alice{i}", game="village", source=EXAMPLE.read_text() + f"# {i}\n"
            ),
            timeout=60,
        )
    bots = ["random", "first", *(f"alice{i}" for i in range(OWN_BOTS))]
    began = time.perf_counter()
    t = s.alice.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="village", bots=bots, players_per_table=2, rounds=rounds, rated=False
        ),
        timeout=600,
    )
    created = time.perf_counter() - began
    began = time.perf_counter()
    s.alice.StartTournament(arena_pb2.TournamentRef(tournament_id=t.tournament_id), timeout=600)
    return t.tournament_id, t.matches_total, created, time.perf_counter() - began


class BlockClock:
    """Each block's wall time on a worker, from its claim to its report, as the server sees
    them (the server runs in this process: its claim and report calls are timed)."""

    def __init__(self, server: object) -> None:
        self.claimed: dict[str, float] = {}
        self.took: dict[str, float] = {}
        matches = server.services.matches  # type: ignore[attr-defined]
        claim, report = matches.claim_block, matches.report_many

        def timed_claim(match_ids: Sequence[str], *args: object, **kw: object) -> object:
            self.claimed.setdefault(block_of(match_ids[0]), time.perf_counter())
            return claim(match_ids, *args, **kw)

        def timed_report(reports: Sequence[tuple[str, str, object]]) -> object:
            out = report(reports)
            key = block_of(reports[0][0]) if reports else ""
            if key in self.claimed:
                self.took[key] = time.perf_counter() - self.claimed[key]
            return out

        matches.claim_block, matches.report_many = timed_claim, timed_report

    def longest(self, tournament_id: str, since: float) -> tuple[float, int]:
        """The longest block of an event claimed after ``since``, and how many ended."""
        times = [
            t
            for key, t in self.took.items()
            if key.startswith(f"{tournament_id}.") and self.claimed[key] >= since
        ]
        return max(times, default=0.0), len(times)


def block_of(match_id: str) -> str:
    """``tournament.rR.tT`` of ``tournament.rR.tT.sS``."""
    return match_id.rsplit(".", 1)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cores", type=int, default=2, help="worker pool children")
    parser.add_argument("--repeats", type=int, default=3, help="runs of the small event")
    parser.add_argument("--big-rounds", type=int, default=476, help="rounds of the big event")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory(prefix="hamlet-fairshare-") as tmp,
        stack(Path(tmp), args.cores) as s,
    ):
        clock = BlockClock(s.server)
        idle = [small_event(s) for _ in range(args.repeats)]
        began = time.perf_counter()
        tid, total, created, started = big_event(s, args.big_rounds)
        print(f"alice's tournament: {total} matches; create {created:.2f} s, start {started:.3f} s")
        while clock.longest(tid, began)[1] < 2 * args.cores:  # the window is full and turning
            time.sleep(0.5)
        shared = [small_event(s) for _ in range(args.repeats)]
        block, finished = clock.longest(tid, began)
        s.alice.CancelTournament(arena_pb2.TournamentRef(tournament_id=tid), timeout=60)
    idle_median = statistics.median(idle)
    target = 3 * idle_median + block
    print(f"bob's 2-match tournament, idle service:        median {idle_median:.2f} s "
          f"(runs: {', '.join(f'{x:.2f}' for x in idle)})")  # fmt: skip
    runs = ", ".join(f"{x:.2f}" for x in shared)
    print(f"bob's 2-match tournament, beside alice's:      median {statistics.median(shared):.2f}"
          f" s, worst {max(shared):.2f} s (runs: {runs})")  # fmt: skip
    print(f"alice's longest block, claim to report ({finished} ended by then): {block:.2f} s")
    verdict = "met" if max(shared) <= target else "NOT met"
    print(f"target: 3 x {idle_median:.2f} + {block:.2f} = {target:.2f} s; worst run: "
          f"{max(shared):.2f} s: {verdict}")  # fmt: skip


if __name__ == "__main__":
    main()
