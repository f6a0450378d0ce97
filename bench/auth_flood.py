"""Attacks on the gRPC boundary, measured against a real server in a subprocess (loopback,
a temporary data directory, bounded loops).

    .venv/bin/python bench/auth_flood.py             # flood, oracle, big requests
    .venv/bin/python bench/auth_flood.py --only flood

* ``flood``: a worker's ``AnnounceWorker`` median latency alone, then while ``--threads``
  clients send wrong secrets for the worker token's id (the issue's target: at most 2x);
  another user's ``GetTournament``-like read (``ListGames`` with a token) likewise; and how
  the flood's calls were answered (UNAUTHENTICATED vs RESOURCE_EXHAUSTED).
* ``oracle``: median time of a wrong secret for an unknown token id vs for a known one.
* ``big``: the server's peak RSS (VmHWM) before and after ``--big`` anonymous 16 MiB
  ``SubmitBot`` requests sent at once.

It only uses the public API, so it runs against an older checkout too
(``PYTHONPATH=<checkout> python bench/auth_flood.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc

from hamlet.v1 import arena_pb2, arena_pb2_grpc, worker_pb2, worker_pb2_grpc

SERVE = r"""
import sys, time
from pathlib import Path
from typing import Any
from server.app import build_server
from server.config import Settings
from server.services.scheduling import MemoryEnqueuer
data = Path(sys.argv[1])
front = sys.argv[2] == "front"
settings = Settings(
    data_dir=data, grpc_port=0, metrics_port=-1, reaper_interval_seconds=3600, front=front
)
server, port = build_server(settings, enqueuer=MemoryEnqueuer())
(data / "workers").write_text(server.private_address or f"127.0.0.1:{port}")
(data / "port").write_text(str(port))
while True:
    time.sleep(3600)
"""


class Server:
    """A Hamlet server in a subprocess with its data in a temporary directory."""

    def __init__(self, front: bool) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="hamlet-bench-")
        self.data = Path(self._tmp.name) / "data"
        self.data.mkdir()
        self.log = Path(self._tmp.name) / "server.log"
        with self.log.open("w") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", SERVE, str(self.data), "front" if front else "-"],
                stderr=log,
                stdout=log,
            )
        deadline = time.monotonic() + 60
        while not (self.data / "port").exists():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise SystemExit("the server did not start")
            time.sleep(0.1)
        time.sleep(0.2)
        self.addr = f"127.0.0.1:{(self.data / 'port').read_text()}"
        #: Where workers connect: the server's private socket behind a front (as the local
        #: workers of `hamlet up` do), else the public port.
        self.worker_addr = (self.data / "workers").read_text()
        self.admin = (self.data / "admin.token").read_text().strip()
        self.worker = (self.data / "worker.token").read_text().strip()

    def channel(self, token: str | None, addr: str = "") -> grpc.Channel:
        options = [("grpc.max_send_message_length", 32 * 1024 * 1024)]
        channel = grpc.insecure_channel(addr or self.addr, options=options)
        if token is None:
            return channel
        return grpc.intercept_channel(channel, _Bearer(token))

    def pids(self) -> list[int]:
        """The server's process and its children (the front's, with one)."""
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        try:
            return [self.proc.pid, *(int(p) for p in children.read_text().split())]
        except OSError:
            return [self.proc.pid]

    def _status_mb(self, field: str) -> float:
        total = 0.0
        for pid in self.pids():
            try:
                lines = Path(f"/proc/{pid}/status").read_text().splitlines()
            except OSError:
                continue
            for line in lines:
                if line.startswith(field):
                    total += int(line.split()[1]) / 1024
        return total

    def peak_rss_mb(self) -> float:
        """The peak resident memory of the server's processes, summed."""
        return self._status_mb("VmHWM:")

    def rss_mb(self) -> float:
        return self._status_mb("VmRSS:")

    def log_lines(self) -> int:
        return len(self.log.read_text(errors="replace").splitlines())

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        self._tmp.cleanup()


class _Bearer(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    def __init__(self, token: str) -> None:
        self.token = token

    def intercept_unary_unary(self, continuation, details, request):  # type: ignore[no-untyped-def]
        metadata = [*(details.metadata or ()), ("authorization", f"Bearer {self.token}")]
        return continuation(details._replace(metadata=metadata), request)


def _median_ms(call: object, n: int) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        with contextlib.suppress(grpc.RpcError):
            call()  # type: ignore[operator]
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def wrong(token: str) -> str:
    prefix, token_id, secret = token.split("_", 2)
    return f"{prefix}_{token_id}_{'x' * len(secret)}"


def flood(server: Server, threads: int, samples: int) -> None:
    host = worker_pb2_grpc.MatchHostStub(server.channel(server.worker, server.worker_addr))
    announce = worker_pb2.AnnounceWorkerRequest(worker_id="bench")
    user = arena_pb2_grpc.ArenaStub(server.channel(server.admin))
    host.AnnounceWorker(announce)
    user.ListGames(arena_pb2.ListGamesRequest())
    quiet_worker = _median_ms(lambda: host.AnnounceWorker(announce), samples)
    quiet_user = _median_ms(lambda: user.ListGames(arena_pb2.ListGamesRequest()), samples)

    lines_before = server.log_lines()
    loud_worker, loud_user, codes = _under_flood(server, threads, samples, wrong(server.worker))
    lines = server.log_lines() - lines_before
    # The same flood without a token: calls refused at once, no key derivation ever (what any
    # flood of cheap calls costs a Python gRPC server on this machine).
    base_worker, base_user, base_codes = _under_flood(server, threads, samples, "-")
    print(f"flood: {threads} threads of wrong secrets for the worker token's id")
    print(
        f"  worker AnnounceWorker median: {quiet_worker:.2f} ms alone, {loud_worker:.2f} ms "
        f"during the flood ({loud_worker / quiet_worker:.1f}x)"
    )
    print(
        f"  user ListGames median:        {quiet_user:.2f} ms alone, {loud_user:.2f} ms "
        f"during the flood ({loud_user / quiet_user:.1f}x)"
    )
    print(f"  the flood's calls were answered: {dict(codes)}")
    print(f"  server log lines written during the flood: {lines}")
    print(
        f"  baseline, the same flood with no token: worker {base_worker:.2f} ms "
        f"({base_worker / quiet_worker:.1f}x), user {base_user:.2f} ms "
        f"({base_user / quiet_user:.1f}x); answered {dict(base_codes)}"
    )


def _under_flood(
    server: Server, threads: int, samples: int, token: str
) -> tuple[float, float, dict[str, int]]:
    """Median worker and user latency while another process floods with ``token``."""
    host = worker_pb2_grpc.MatchHostStub(server.channel(server.worker, server.worker_addr))
    announce = worker_pb2.AnnounceWorkerRequest(worker_id="bench")
    user = arena_pb2_grpc.ArenaStub(server.channel(server.admin))
    # The flood runs in its own process, so that its threads do not compete with the
    # measuring thread for this process's GIL (the server is the one under test).
    flooder = subprocess.Popen(
        [sys.executable, __file__, "--threads", str(threads), "--flood-target", server.addr, token],
        stdout=subprocess.PIPE,
        text=True,
    )
    time.sleep(1.5)
    worker = _median_ms(lambda: host.AnnounceWorker(announce), samples)
    user_ms = _median_ms(lambda: user.ListGames(arena_pb2.ListGamesRequest()), samples)
    flooder.terminate()
    out, _ = flooder.communicate(timeout=30)
    codes = {k: int(v) for k, v in (x.split("=") for x in out.split())} if out else {}
    return worker, user_ms, codes


def attack(addr: str, token: str, threads: int) -> None:
    """The flood's process: ``threads`` clients calling with ``token`` until terminated."""
    import signal

    stub = worker_pb2_grpc.MatchHostStub(grpc.insecure_channel(addr))
    metadata = (("authorization", f"Bearer {token}"),) if token != "-" else ()
    announce = worker_pb2.AnnounceWorkerRequest(worker_id="bench")
    codes: Counter[str] = Counter()
    lock = threading.Lock()
    stop = threading.Event()

    def one() -> None:
        while not stop.is_set():
            try:
                stub.AnnounceWorker(announce, metadata=metadata, timeout=10)
                code = "OK"
            except grpc.RpcError as exc:
                code = exc.code().name
            with lock:
                codes[code] += 1

    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    pool = [threading.Thread(target=one) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    print(" ".join(f"{k}={v}" for k, v in codes.items()), flush=True)


def oracle(server: Server, samples: int) -> None:
    known = wrong(server.admin)
    token_id = server.admin.split("_")[1]
    unknown_id = "0" * len(token_id) if token_id != "0" * len(token_id) else "1" * len(token_id)
    unknown = known.replace(token_id, unknown_id)
    results = {}
    for name, token in (("unknown id", unknown), ("known id, wrong secret", known)):
        stub = arena_pb2_grpc.ArenaStub(server.channel(token))
        messages = set()

        def call(stub: arena_pb2_grpc.ArenaStub = stub, messages: set[str] = messages) -> None:
            try:
                stub.WhoAmI(arena_pb2.WhoAmIRequest())
            except grpc.RpcError as exc:
                messages.add(
                    f"{exc.code().name}: {exc.details()}".replace(unknown_id, "<id>").replace(
                        token_id, "<id>"
                    )
                )
                raise

        results[name] = (_median_ms(call, samples), messages)
    print(f"oracle: {samples} calls each (under the failure limit)")
    for name, (ms, messages) in results.items():
        print(f"  {name}: median {ms:.2f} ms; answers {sorted(messages)}")


#: The large requests sent: what, to which method, with which token.
BIG_VARIANTS = ("anonymous SubmitBot", "anonymous ListMatches", "SubmitBot, wrong token")


def big(server: Server, count: int, variant: str) -> None:
    size = 16 * 1024 * 1024 - 1024
    if variant == "anonymous ListMatches":
        stub = arena_pb2_grpc.ArenaStub(server.channel(None))
        request: Any = arena_pb2.ListMatchesRequest(tournament_id="x" * size)
        method = stub.ListMatches
    else:
        token = wrong(server.admin) if "wrong" in variant else None
        stub = arena_pb2_grpc.ArenaStub(server.channel(token))
        request = arena_pb2.SubmitBotRequest(name="big", archive=b"\0" * size)
        method = stub.SubmitBot
    before_peak, before = server.peak_rss_mb(), server.rss_mb()
    codes: Counter[str] = Counter()

    def send() -> str:
        try:
            method(request, timeout=120)
            return "OK"
        except grpc.RpcError as exc:
            return exc.code().name

    with futures.ThreadPoolExecutor(count) as pool:
        for code in pool.map(lambda _: send(), range(count)):
            codes[code] += 1
    print(f"big: {count} requests of 16 MiB at once: {variant}")
    print(
        f"  server RSS {before:.0f} MB (peak {before_peak:.0f} MB) before; peak "
        f"{server.peak_rss_mb():.0f} MB after; answers {dict(codes)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("flood", "oracle", "big"))
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--big", type=int, default=72)
    parser.add_argument(
        "--front",
        choices=("yes", "no", "both"),
        default="both",
        help="serve the public port from a front process (HAMLET_FRONT), or not, or both",
    )
    parser.add_argument(
        "--flood-target", nargs=2, metavar=("ADDR", "TOKEN"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.flood_target:
        attack(*args.flood_target, args.threads)
        return
    parts = [("oracle", ""), ("flood", ""), *(("big", v) for v in BIG_VARIANTS)]
    fronts = {"yes": [True], "no": [False], "both": [False, True]}[args.front]
    for (part, variant), front in itertools.product(parts, fronts):
        if args.only not in (None, part):
            continue
        print(f"--- {'with the front process' if front else 'one process, no front'}")
        server = Server(front)  # a fresh server each: no cool-down or peak carries over
        try:
            if part == "oracle":
                oracle(server, 4)
            elif part == "flood":
                flood(server, args.threads, args.samples)
            else:
                big(server, args.big, variant)
        finally:
            server.close()
    sys.stdout.flush()


if __name__ == "__main__":
    main()
