"""Bot and ladder reads with a crowd of bots: statements and time per call, printed.

``python bench/reads.py [--bots N] [--calls K]`` seeds N uploaded bots (default 10,000; three
to a user, all on the ladder, one rated two-bot tournament per ten bots, half of them
played) through the store's API into SQLite in a temporary directory, starts the gRPC server
on it (``server.app.build_server``, an in-memory queue) and the web app, and prints for each
call the SQL statements it ran (the same on every call: the reads are set-based; the
caller's token, re-verified every few seconds, is left out) and the median and p99
milliseconds over K calls:

- ``ListBots`` (every bot) and ``ListBots`` of one game;
- the bot page: ``ListBotVersions``, ``GetBotVersion`` (``hamlet bot show``),
  ``GetBotHistory`` and the web page ``/bots/NAME`` (which makes those calls);
- ``GetLadder`` and ``JoinLadder`` by a bot new to the ladder, with the season's blocks open
  (nothing to schedule) and with them cancelled first (the join schedules a full set of
  blocks: the pick among N bots on the ladder).

Numbers, never assertions: tests count statements but time nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from prometheus_client import CollectorRegistry
from sqlalchemy import event
from starlette.testclient import TestClient

import games
from hamlet.channels import open_channel
from hamlet.v1 import arena_pb2, arena_pb2_grpc
from server.app import build_server
from server.config import Settings
from server.services.scheduling import MemoryEnqueuer
from server.storage import SqlStore, open_store
from tests.server import crowd
from web.app import WebSettings, create_app

GAME = "village"
#: Versions of the bot whose page is read (the crowd's others have one each).
PAGE_VERSIONS = 5


@dataclass
class Row:
    """One call's figures."""

    call: str
    statements: list[int]
    millis: list[float]

    def line(self) -> str:
        """The table's line."""
        counts = sorted(set(self.statements))
        shown = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
        ms = sorted(self.millis)
        p99 = statistics.quantiles(ms, n=100, method="inclusive")[98] if len(ms) > 1 else ms[0]
        return f"{self.call:<34}{shown:>11}{statistics.median(ms):>12.1f}{p99:>10.1f}"


def measure(
    store: SqlStore,
    name: str,
    calls: int,
    call: Callable[[int], object],
    before: Callable[[int], object] = lambda _: None,
) -> Row:
    """Run ``call(k)`` ``calls`` times after one warm-up (``before(k)`` first, neither timed
    nor counted), counting the statements of each and timing it."""
    row = Row(name, [], [])
    for k in range(calls + 1):
        before(k)
        with crowd.counting(store.engine) as seen:
            started = time.perf_counter()
            call(k)
            elapsed = time.perf_counter() - started
        if k:  # the first fills the caches a running server has warm
            row.statements.append(seen.count)
            row.millis.append(elapsed * 1000)
    return row


def seed(url: str, bots: int, joiners: int) -> str:
    """Seed the crowd and ``joiners`` bots not yet on the ladder; the paged bot's name."""
    store = open_store(url)
    store.engine.dispose()

    @event.listens_for(store.engine, "connect")
    def _quick(conn: Any, _record: Any) -> None:  # seeding only: no fsync per commit
        cur = conn.cursor()
        cur.execute("PRAGMA synchronous=OFF")
        cur.close()

    rules = games.get(GAME).rules_version
    started = time.perf_counter()
    crowd.seed(store, GAME, rules, bots, versions=1)
    crowd.seed(store, GAME, rules, bots + joiners, first=bots, versions=1, ladder=False)
    name = crowd.bot_name(bots // 2)
    owner = store.get_bot(name)
    user = store.get_user(owner.owner if owner else "")
    for v in range(2, PAGE_VERSIONS + 1):
        code = f"{crowd.SOURCE}# {name} v{v}\n".encode()
        store.add_bot_version(
            name, GAME, code, hashlib.sha256(code).hexdigest(), "", user.user_id if user else 0
        )
    store.close()
    print(f"seeded {bots:,} bots (+{joiners} to join) in {time.perf_counter() - started:.0f} s")
    return name


def main() -> int:
    """Seed, serve, call and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=10_000, help="bots in the store")
    parser.add_argument("--calls", type=int, default=50, help="timed calls of each kind")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hamlet-reads-") as tmp:
        settings = Settings(
            data_dir=Path(tmp) / "data", grpc_port=0, metrics_port=-1, reaper_interval_seconds=3600
        )
        name = seed(settings.effective_database_url, args.bots, 2 * (args.calls + 1))
        server, port = build_server(
            settings, enqueuer=MemoryEnqueuer(), registry=CollectorRegistry()
        )
        addr = f"127.0.0.1:{port}"
        token = (settings.data_dir / "admin.token").read_text().strip()
        channel = open_channel(addr, token=token)
        arena = arena_pb2_grpc.ArenaStub(channel)
        app = create_app(WebSettings(server=addr, token=token))
        try:
            with TestClient(app) as web:
                rows = calls(server.store, arena, web, name, args.bots, args.calls)
        finally:
            app.state.reader.close()
            channel.close()
            server.stop(grace=1)
    print(f"\n{args.bots:,} bots, {args.calls} calls each (SQLite, gRPC on localhost)\n")
    print(f"{'call':<34}{'statements':>11}{'median ms':>12}{'p99 ms':>10}")
    for row in rows:
        print(row.line())
    return 0


def calls(
    store: SqlStore,
    arena: arena_pb2_grpc.ArenaStub,
    web: TestClient,
    name: str,
    bots: int,
    n: int,
) -> list[Row]:
    """Every call's row."""
    ladder = arena_pb2.GetLadderRequest(game=GAME)
    arena.JoinLadder(arena_pb2.LadderRequest(bot_name=crowd.bot_name(0), game=GAME))
    season = arena.GetLadder(ladder).tournament_id

    def join(offset: int) -> Callable[[int], object]:
        def call(k: int) -> object:
            bot = crowd.bot_name(bots + offset + k)
            return arena.JoinLadder(arena_pb2.LadderRequest(bot_name=bot, game=GAME))

        return call

    def bot_versions(_: int) -> object:
        return arena.ListBotVersions(arena_pb2.ListBotVersionsRequest(name=name))

    return [
        measure(store, "ListBots", n, lambda _: arena.ListBots(arena_pb2.ListBotsRequest())),
        measure(
            store,
            f"ListBots (game {GAME})",
            n,
            lambda _: arena.ListBots(arena_pb2.ListBotsRequest(game=GAME)),
        ),
        measure(store, "ListBotVersions", n, bot_versions),
        measure(
            store,
            "GetBotVersion (hamlet bot show)",
            n,
            lambda _: arena.GetBotVersion(arena_pb2.GetBotVersionRequest(bot=f"{name}@2")),
        ),
        measure(
            store,
            "GetBotHistory",
            n,
            lambda _: arena.GetBotHistory(arena_pb2.BotHistoryRequest(name=name, game=GAME)),
        ),
        measure(store, "web /bots/NAME", n, lambda _: web.get(f"/bots/{name}").raise_for_status()),
        measure(store, "GetLadder", n, lambda _: arena.GetLadder(ladder)),
        measure(store, "JoinLadder (blocks open)", n, join(0)),
        measure(
            store,
            "JoinLadder (schedules 4 blocks)",
            n,
            join(n + 1),
            lambda _: store.cancel_open_matches(season, crowd.NOW),
        ),
    ]


if __name__ == "__main__":
    raise SystemExit(main())
