"""Tournament and replay reads against big tournaments: statements and time per call.

``python bench/tournament_reads.py [--sizes 5000,20000,100000] [--bots 50] [--calls K]``
builds, for each size, a tournament of that many finished two-seat matches among ``--bots``
bots in SQLite in a temporary directory (the matches through ``create_tournament``, their
results written in bulk and the standings tallied by ``rebuild_standings``, the same tally
recording applies; one match, a real ``village`` game, recorded through the worker's path
so it has a log to replay), starts the gRPC server on it (``server.app.build_server``) and
the web app, and prints for each call the SQL statements it ran and the median and p99
milliseconds over K calls:

- ``GetTournament`` (first page of standings, and a later page by token);
- the web tournament page and its ``live.json`` poll;
- ``GetReplay``: the first call (computes and caches), then cached pages;
- for contrast, one recomputation of the standings from every finished match (what each
  ``GetTournament`` did before standings were kept);

and the resident memory of the process (server, web app and client) before and after a
once-a-second-style poll of ``live.json`` repeated ``--polls`` times on the largest one.

Numbers, never assertions: tests count statements but time nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from prometheus_client import CollectorRegistry
from sqlalchemy import event, text
from starlette.testclient import TestClient

import games
from hamlet.channels import open_channel
from hamlet.v1 import arena_pb2, arena_pb2_grpc
from server.app import build_server
from server.config import Settings
from server.services.scheduling import MemoryEnqueuer
from server.storage import (
    DecisionRecord,
    MatchStatus,
    NewMatch,
    NewTournament,
    Outcome,
    SeatOutcome,
    SqlStore,
    TournamentStatus,
    open_store,
)
from tests.server import crowd

GAME = "village"


def rss_mb() -> float:
    """This process's resident memory, MB (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def measure(store: SqlStore, calls: int, call: Callable[[int], object]) -> tuple[str, float, float]:
    """(statements, median ms, p99 ms) of ``calls`` calls after one warm-up."""
    counts, millis = [], []
    for k in range(calls + 1):
        with crowd.counting(store.engine) as seen:
            started = time.perf_counter()
            call(k)
            elapsed = time.perf_counter() - started
        if k:
            counts.append(seen.count)
            millis.append(elapsed * 1000)
    shown = sorted(set(counts))
    label = str(shown[0]) if len(shown) == 1 else f"{shown[0]}-{shown[-1]}"
    ms = sorted(millis)
    p99 = statistics.quantiles(ms, n=100, method="inclusive")[98] if len(ms) > 1 else ms[0]
    return label, statistics.median(ms), p99


def _played_outcome(seed: int) -> Outcome:
    """A random two-seat village match with seed ``seed``, as a worker reports it."""
    spec = games.get(GAME)
    rng = random.Random(seed)
    state = spec.new_game(num_players=2, seed=seed)
    log: list[DecisionRecord] = []
    while not state.is_over():
        legal = state.legal_actions()
        action = legal[rng.randrange(len(legal))]
        log.append(
            DecisionRecord(
                len(log),
                state.to_move() or 0,
                len(legal),
                json.dumps(games.action_to_dict(action)),
                str(action),
                0.0,
                False,
            )
        )
        state.apply(action)
    result = state.result()
    seats = tuple(SeatOutcome(s, r) for s, r in zip(result.scores, result.ranks, strict=True))
    return Outcome(seats, tuple(log), 0.1)


def build(url: str, tid: str, size: int, bots: int) -> str:
    """A tournament of ``size`` finished matches; the id of the one with a real log."""
    store = open_store(url)
    store.engine.dispose()

    @event.listens_for(store.engine, "connect")
    def _quick(conn: Any, _record: Any) -> None:  # building only: no fsync per commit
        cur = conn.cursor()
        cur.execute("PRAGMA synchronous=OFF")
        cur.close()

    versions = [store.upsert_builtin_bot(f"b{i:03d}", [GAME], "").version_id for i in range(bots)]
    rng = random.Random(size)
    planned = []
    for i in range(size):
        a, b = rng.sample(versions, 2)
        planned.append(NewMatch(f"{tid}.r0.t{i}.s0", 0, i, 0, i + 1, (a, b)))
    store.create_tournament(
        NewTournament(
            tournament_id=tid,
            game=GAME,
            rules_version=games.get(GAME).rules_version,
            format="round_robin",
            players_per_table=2,
            rounds=1,
            seed=size,
            decision_time_ms=100,
            time_bank_ms=1000,
            rated=False,
            entry_version_ids=tuple(versions),
            matches=tuple(planned),
        )
    )
    store.set_tournament_status(tid, TournamentStatus.RUNNING, [TournamentStatus.CREATED])
    real = planned[-1].match_id
    with store.engine.begin() as conn:  # every match but the last: a result, in bulk
        conn.execute(
            text(
                "update matches set status = 'finished', finished_at = :now "
                "where tournament_id = :t and id != :real"
            ),
            {"now": crowd.NOW, "t": tid, "real": real},
        )
        conn.execute(
            text(
                "update match_seats set score = 1 - seat, rank = seat where match_id in "
                "(select id from matches where tournament_id = :t and id != :real and "
                "table_index % 3 != 0)"
            ),
            {"t": tid, "real": real},
        )
        conn.execute(
            text(
                "update match_seats set score = seat, rank = 1 - seat where match_id in "
                "(select id from matches where tournament_id = :t and id != :real and "
                "table_index % 3 = 0)"
            ),
            {"t": tid, "real": real},
        )
    store.rebuild_standings(tid)
    store.mark_queued([real], crowd.NOW)
    store.claim_match(real, "w", crowd.NOW + timedelta(minutes=5), "h")
    assert store.finalize_match(real, _played_outcome(planned[-1].seed), crowd.NOW, "h")
    store.close()
    return real


def recompute_ms(store: SqlStore, tid: str) -> float:
    """One recomputation of the standings from every finished match (the old read)."""
    started = time.perf_counter()
    table: dict[str, list[float]] = {}
    for match in store.list_matches(tid, [MatchStatus.FINISHED]):
        for seat in match.seats:
            line = table.setdefault(f"{seat.bot_name}@{seat.bot_version}", [0, 0, 0.0])
            line[0] += 1
            line[1] += seat.rank == 0
            line[2] += len(match.seats) - 1 - (seat.rank or 0)
    return (time.perf_counter() - started) * 1000


def main() -> int:
    """Build, serve, call and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5000,20000,100000", help="matches per tournament")
    parser.add_argument("--bots", type=int, default=50, help="bots in each tournament")
    parser.add_argument("--calls", type=int, default=50, help="timed calls of each kind")
    parser.add_argument("--polls", type=int, default=300, help="live.json polls (memory)")
    args = parser.parse_args()
    sizes = [int(x) for x in args.sizes.split(",") if x]
    rows: list[tuple[str, str, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="hamlet-treads-") as tmp:
        settings = Settings(
            data_dir=Path(tmp) / "data", grpc_port=0, metrics_port=-1, reaper_interval_seconds=3600
        )
        real = {}
        for size in sizes:
            started = time.perf_counter()
            real[size] = build(settings.effective_database_url, f"t{size}", size, args.bots)
            print(f"built {size:,} matches in {time.perf_counter() - started:.0f} s")
        server, port = build_server(
            settings, enqueuer=MemoryEnqueuer(), registry=CollectorRegistry()
        )
        addr = f"127.0.0.1:{port}"
        token = (settings.data_dir / "admin.token").read_text().strip()
        channel = open_channel(addr, token=token)
        arena = arena_pb2_grpc.ArenaStub(channel)
        from web.app import WebSettings, create_app

        app = create_app(WebSettings(server=addr, token=token))
        try:
            with TestClient(app) as web:
                for size in sizes:
                    rows += calls(server.store, arena, web, f"t{size}", real[size], args.calls)
                before = rss_mb()
                for _ in range(args.polls):
                    web.get(f"/tournaments/t{sizes[-1]}/live.json").raise_for_status()
                after = rss_mb()
        finally:
            app.state.reader.close()
            channel.close()
            server.stop(grace=1)
    print(f"\n{args.bots} bots, {args.calls} calls each (SQLite, gRPC on localhost)\n")
    print(f"{'call':<46}{'statements':>11}{'median ms':>12}{'p99 ms':>10}")
    for name, statements, median, p99 in rows:
        print(f"{name:<46}{statements:>11}{median:>12.1f}{p99:>10.1f}")
    print(
        f"\nresident memory: {before:.0f} MB before {args.polls} live.json polls of the "
        f"{sizes[-1]:,}-match tournament, {after:.0f} MB after"
    )
    return 0


def calls(
    store: SqlStore, arena: arena_pb2_grpc.ArenaStub, web: TestClient, tid: str, real: str, n: int
) -> list[tuple[str, str, float, float]]:
    """Every call's row for one tournament."""
    size = f"{int(tid[1:]):,}"
    ref = arena_pb2.TournamentRef(tournament_id=tid, standings_page_size=10)
    token = arena.GetTournament(ref).standings_next_page_token
    later = arena_pb2.TournamentRef(
        tournament_id=tid, standings_page_size=10, standings_page_token=token
    )
    first_replay = arena_pb2.MatchRef(match_id=real)
    started = time.perf_counter()
    whole = arena.GetReplay(first_replay)
    cold = (time.perf_counter() - started) * 1000
    steps = whole.steps_total
    page = arena_pb2.MatchRef(match_id=real, first_step=steps // 2, max_steps=100)
    timed: list[tuple[str, Callable[[int], object]]] = [
        (f"GetTournament ({size} matches)", lambda _: arena.GetTournament(ref)),
        (f"GetTournament, page 2 ({size})", lambda _: arena.GetTournament(later)),
        (f"web /tournaments/ID ({size})", lambda _: web.get(f"/tournaments/{tid}")),
        (f"web live.json ({size})", lambda _: web.get(f"/tournaments/{tid}/live.json")),
        (f"GetReplay, cached first page ({steps} steps)", lambda _: arena.GetReplay(first_replay)),
        ("GetReplay, cached 100 steps mid-match", lambda _: arena.GetReplay(page)),
    ]
    out = [(name, *measure(store, n, call)) for name, call in timed]
    out.insert(4, (f"GetReplay, first call ({steps} steps)", "-", cold, cold))
    out.append((f"old: standings from every match ({size})", "-", recompute_ms(store, tid), 0.0))
    return out


if __name__ == "__main__":
    raise SystemExit(main())
