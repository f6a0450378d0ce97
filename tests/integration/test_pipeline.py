"""The whole pipeline with real parts: redis-server, Celery workers, the gRPC server, SQLite.

A tournament of every registered game among the built-in bots (plus the example uploaded
bot where the game has a wire form) completes and every match is stored once with its
log; and killing worker processes with SIGKILL mid-tournament loses and duplicates nothing.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import games
from bots import registry
from hamlet import codec
from hamlet.paging import all_matches
from hamlet.v1 import arena_pb2, arena_pb2_grpc, common_pb2
from server.app import build_server
from server.config import Settings
from tests.integration.stack import Worker, arena, bots_announced, redis_server, scaled, wait_until
from workers.model import LoggedDecision
from workers.runner import replay

# The guard against a hang, scaled as every wait is (stack.slowness).
pytestmark = [pytest.mark.integration, pytest.mark.timeout(scaled(300))]

EXAMPLE = Path(__file__).parents[2] / "bots" / "examples" / "random_uploaded.py"
# An uploaded bot slow enough (a few ms a decision) that a kill lands mid-match.
SLOW_BOT = """
import random, time
from bots.sdk import run
rng = random.Random(1)
def decide(observation, legal):
    time.sleep(0.004)
    return rng.randrange(len(legal))
run(decide)
"""


@dataclass
class Stack:
    tmp: Path
    redis_url: str
    port: int
    stub: arena_pb2_grpc.ArenaStub
    db: Path

    @property
    def addr(self) -> str:
        return f"127.0.0.1:{self.port}"

    def worker(self, name: str) -> Worker:
        token_file = str(self.tmp / "data" / "worker.token")
        return Worker(
            self.tmp, self.redis_url, self.addr, name, HAMLET_WORKER_TOKEN_FILE=token_file
        )


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    with redis_server(tmp_path) as redis_url:
        settings = Settings(
            data_dir=tmp_path / "data",
            redis_url=redis_url,
            grpc_host="127.0.0.1",
            grpc_port=0,
            metrics_port=-1,
            # Above the workers' hard limit (as in production): a live worker's claim never
            # expires, and a late report of an expired one is refused.
            match_lease_seconds=20.0,
            queue_timeout_seconds=30.0,
            reaper_interval_seconds=0.5,
            max_match_attempts=10,
        )
        server, port = build_server(settings)
        channel, stub = arena(port, (settings.data_dir / "admin.token").read_text().strip())
        try:
            yield Stack(tmp_path, redis_url, port, stub, tmp_path / "data" / "hamlet.db")
        finally:
            channel.close()
            server.stop(1)


def has_wire_form(game: str) -> bool:
    try:
        return not codec.missing_action_messages(game)
    except codec.CodecError:
        return False


def submit(stack: Stack, name: str, game: str, source: str) -> str:
    stack.stub.SubmitBot(
        arena_pb2.SubmitBotRequest(name=name, game=game, source=source), timeout=10
    )
    return name


def run_tournament(stack: Stack, game: str, bots: list[str], rounds: int, ppt: int = 0) -> str:
    created = stack.stub.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game=game,
            bots=bots,
            players_per_table=ppt,
            rounds=rounds,
            seed=7,
            decision_time_ms=3000,
            start=True,
        ),
        timeout=10,
    )
    return str(created.tournament_id)


def status(stack: Stack, tournament_id: str) -> arena_pb2.Tournament:
    ref = arena_pb2.TournamentRef(tournament_id=tournament_id)
    return stack.stub.GetTournament(ref, timeout=10)


def settled(stack: Stack, tournament_id: str) -> bool:
    t = status(stack, tournament_id)
    done = t.matches_finished + t.matches_failed + t.matches_cancelled
    return t.matches_total > 0 and done == t.matches_total


def results_per_match(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT match_id, COUNT(*) FROM results GROUP BY match_id").fetchall()
    return {str(m): int(n) for m, n in rows}


def check_stored_once(stack: Stack, tournament_id: str) -> list[common_pb2.Match]:
    t = status(stack, tournament_id)
    assert t.matches_finished == t.matches_total > 0, t
    ref = arena_pb2.TournamentRef(tournament_id=tournament_id)
    matches = list(all_matches(stack.stub, ref.tournament_id, timeout=10))
    assert len(matches) == t.matches_total
    counts = results_per_match(stack.db)
    for match in matches:
        assert match.status == common_pb2.MATCH_STATUS_FINISHED
        assert counts.get(match.match_id) == 1
        detail = stack.stub.GetMatch(arena_pb2.MatchRef(match_id=match.match_id), timeout=10)
        assert len(detail.decisions) == detail.match.decision_count > 0
        if any(seat.forfeit_reason for seat in match.seats):
            continue
        # The stored (seed, log) replays through the engine to the stored result.
        log = [
            LoggedDecision(d.player, d.legal_count, json.loads(d.action_json), "", 0.0, False)
            for d in detail.decisions
        ]
        result = replay(match.game, match.seed, len(match.seats), log)
        assert list(result.scores) == [s.score for s in match.seats]
        assert list(result.ranks) == [s.rank for s in match.seats]
        if has_wire_form(match.game):
            ref = arena_pb2.MatchRef(match_id=match.match_id)
            assert stack.stub.GetReplay(ref, timeout=30).matches_record, match.match_id
    return matches


def check_worker_metrics(worker: Worker, tournaments: dict[str, str]) -> None:
    """The worker's one endpoint aggregates what its pool children counted."""
    found = re.search(r"worker metrics on :(\d+)/metrics", worker.output())
    assert found, worker.output()[-3000:]
    with urllib.request.urlopen(f"http://127.0.0.1:{found.group(1)}/metrics", timeout=10) as r:
        text = r.read().decode()
    for game in tournaments:
        assert f'hamlet_worker_matches_total{{game="{game}",outcome="recorded"}}' in text
    assert 'hamlet_worker_decision_seconds_count{kind="builtin"}' in text
    assert "hamlet_worker_match_duration_seconds_bucket" in text


def test_the_visibility_timeout_is_read_back_from_the_live_transport(tmp_path: Path) -> None:
    from workers.celery_app import create_app, effective_visibility_timeout
    from workers.config import WorkerConfig

    with redis_server(tmp_path) as url:
        config = WorkerConfig(
            redis_url=url, match_time_limit=100, match_soft_time_limit=90, visibility_timeout=4321
        )
        assert effective_visibility_timeout(create_app(config)) == 4321


def test_a_tournament_of_every_game_among_builtin_bots(stack: Stack) -> None:
    worker = stack.worker("w1")
    try:
        wait_until(lambda: bots_announced(stack.stub, {"random"}), 60, "the worker's bots")
        tournaments = {}
        for game in games.names():
            # mcts thinks until its deadline (3 s here), which the stack's 15 s match limit
            # is not sized for; tests/bots/test_mcts.py plays it on iteration budgets.
            bots = [b for b in registry.names() if game in registry.games_for(b) and b != "mcts"]
            if has_wire_form(game):
                bots.append(submit(stack, f"example-{game}", game, EXAMPLE.read_text()))
            if len(bots) < 2:  # a table needs two bots: a second random-playing uploaded one
                pytest.skip(f"{game}: only {bots} can play it here")
            tournaments[game] = run_tournament(stack, game, bots, rounds=1)
        for game, tid in tournaments.items():
            wait_until(lambda tid=tid: settled(stack, tid), 180, f"the {game} tournament")
            check_stored_once(stack, tid)
        assert sum(results_per_match(stack.db).values()) == sum(
            status(stack, tid).matches_total for tid in tournaments.values()
        )
        check_worker_metrics(worker, tournaments)
    except BaseException:
        print(worker.output()[-5000:])
        raise
    finally:
        worker.stop()


def test_kill_9_workers_mid_tournament_loses_and_duplicates_nothing(stack: Stack) -> None:
    if not has_wire_form("village"):
        pytest.skip("village has no wire form yet: uploaded bots cannot play it")
    first = stack.worker("w1")
    second: Worker | None = None
    try:
        wait_until(lambda: bots_announced(stack.stub, {"random"}), 60, "the worker's bots")
        slow = [submit(stack, f"slow{i}", "village", SLOW_BOT) for i in range(2)]
        tid = run_tournament(stack, "village", ["random", *slow], rounds=3, ppt=2)
        total = status(stack, tid).matches_total

        wait_until(lambda: status(stack, tid).matches_finished >= 2, 120, "two matches")
        children = first.children()
        assert children, first.output()[-3000:]
        os.kill(children[0], signal.SIGKILL)  # a pool process dies mid-match
        done = status(stack, tid).matches_finished
        wait_until(lambda: status(stack, tid).matches_finished >= done + 2, 120, "more matches")
        # Kill while a block is claimed (on a busy machine the worker can sit between blocks,
        # and then nothing of it is lost to re-deliver): its matches are re-delivered.
        wait_until(lambda: status(stack, tid).matches_running > 0, 120, "a claimed block")
        first.kill9()  # the whole worker dies; a fresh one takes over
        assert status(stack, tid).matches_finished < total, "killed too late to test anything"
        second = stack.worker("w2")
        wait_until(lambda: settled(stack, tid), 240, "the tournament after the kills")

        matches = check_stored_once(stack, tid)
        assert len(matches) == total
        assert sum(results_per_match(stack.db).values()) == total
        redelivered = [m.match_id for m in matches if m.attempts > 1]
        assert redelivered, "no match was re-delivered"
        print(
            f"kill -9 outcome: {total} matches scheduled, {len(matches)} finished, "
            f"{sum(results_per_match(stack.db).values())} results stored, "
            f"re-delivered after the kills: {redelivered}"
        )
    except BaseException:
        print(first.output()[-5000:])
        if second is not None:
            print(second.output()[-5000:])
        raise
    finally:
        first.stop()
        if second is not None:
            second.stop()
