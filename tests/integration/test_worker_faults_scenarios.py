"""Workers under faults, each scenario with real parts (redis-server, Celery worker
processes, the gRPC server on SQLite) and uploaded bots in the real sandbox:

- a worker whose sandbox check fails (``HAMLET_BWRAP`` names a missing binary) beside a
  healthy one takes no task, says so on ``/healthz``, and no match fails;
- Redis killed and restarted empty under running blocks: each block is played to the end
  by the attempt that held it (no claim waits out a lease, no attempt is added);
- a worker's pool SIGSTOPped longer than decision time plus bank, then SIGCONTed: the
  match it was playing is voided (the worker's pause, not the bot's time) and played
  again, and nobody forfeits.

Each prints matches planned / recorded / FAILED and the time to recover (``pytest -s``).
Waits are on conditions, their guards scaled by the machine's measured slowness; nothing
asserts how long anything took."""

from __future__ import annotations

import os
import re
import shutil
import signal
import sqlite3
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from hamlet.paging import all_matches
from hamlet.v1 import arena_pb2, common_pb2
from tests.integration.stack import Worker, bots_announced, scaled, wait_until
from tests.integration.test_queue import Stack, _stack
from workers.sandbox_check import missing_kernel_features

pytestmark = [pytest.mark.integration, pytest.mark.timeout(scaled(600))]

EXAMPLE = Path(__file__).parents[2] / "bots" / "examples" / "random_uploaded.py"
#: An uploaded bot that spends ``{sleep}`` s of each decision: a worker stopped at a random
#: moment is most likely waiting for it.
SLEEPY = """
import random, time
from bots.sdk import run
rng = random.Random(1)
def decide(observation, legal):
    time.sleep({sleep})
    return rng.randrange(len(legal))
run(decide)
"""


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    if missing_kernel_features():
        pytest.skip(f"no strict sandbox here: {missing_kernel_features()}")
    yield from _stack(tmp_path, queue_timeout_seconds=60.0)


def _worker(stack: Stack, name: str, **env: str) -> Worker:
    token = str(stack.tmp / "data" / "worker.token")
    return Worker(
        stack.tmp, stack.redis.url, f"127.0.0.1:{stack.port}", name,
        HAMLET_WORKER_TOKEN_FILE=token, **env,
    )  # fmt: skip


def _submit(stack: Stack, name: str, source: str) -> str:
    request = arena_pb2.SubmitBotRequest(name=name, game="village", source=source)
    stack.stub.SubmitBot(request, timeout=30)
    return name


def _tournament(stack: Stack, bots: list[str], decision_ms: int = 0) -> tuple[str, int]:
    t = stack.stub.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="village",
            bots=bots,
            players_per_table=2,
            rounds=1,
            seed=5,
            decision_time_ms=decision_ms,
            rated=False,
            start=True,
        ),
        timeout=30,
    )
    return t.tournament_id, t.matches_total


def _matches(stack: Stack, tid: str) -> list[common_pb2.Match]:
    return list(all_matches(stack.stub, tid, timeout=30))


def _forfeits(stack: Stack, tid: str) -> int:
    with sqlite3.connect(stack.tmp / "data" / "hamlet.db") as conn:
        (n,) = conn.execute(
            "SELECT COUNT(*) FROM match_seats WHERE match_id LIKE ? AND forfeit_reason != ''",
            (f"{tid}.%",),
        ).fetchone()
    return int(n)


def _health(worker: Worker) -> tuple[int, str]:
    found = re.search(r"worker metrics on :(\d+)/metrics", worker.output())
    if found is None:
        return 0, ""
    url = f"http://127.0.0.1:{found.group(1)}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return int(answer.status), answer.read().decode()
    except urllib.error.HTTPError as exc:
        return int(exc.code), exc.read().decode()
    except OSError:
        return 0, ""


def _pool(worker: Worker) -> list[int]:
    """The worker's pool processes (its other children are sandbox checks' probes)."""
    own = Path(f"/proc/{worker.proc.pid}/cmdline").read_bytes()
    pool = []
    for pid in worker.children():
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes() == own:
                pool.append(pid)
        except OSError:
            continue
    return pool


def _descendants(pids: list[int]) -> set[int]:
    """Every process below ``pids`` (the sandboxed bots under a pool process)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = set(pids)
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _summary(stack: Stack, tid: str, scenario: str, recovery: str) -> None:
    t = stack.status(tid)
    print(
        f"\n{scenario}: {t.matches_total} matches planned, {t.matches_finished} recorded, "
        f"{t.matches_failed} FAILED, {_forfeits(stack, tid)} forfeits; {recovery}"
    )


def test_a_worker_whose_sandbox_check_fails_takes_no_match(stack: Stack) -> None:
    broken = _worker(stack, "broken", HAMLET_BWRAP="/nonexistent/bwrap")
    healthy = _worker(stack, "healthy")
    try:
        wait_until(lambda: bots_announced(stack.stub, {"random"}), 60, "the workers' bots")
        wait_until(lambda: _health(broken)[0] == 503, 60, "the broken worker's health")
        status, why = _health(broken)
        assert "no bubblewrap at /nonexistent/bwrap" in why, why
        bots = [_submit(stack, f"up{i}", EXAMPLE.read_text()) for i in range(2)]
        started = time.monotonic()
        tid, total = _tournament(stack, ["random", *bots])
        wait_until(lambda: stack.settled(tid), 300, "the tournament")
        took = time.monotonic() - started
        _summary(
            stack,
            tid,
            "sandbox check failing beside a healthy worker",
            f"nothing to recover: all played by the healthy worker in {took:.1f} s",
        )
        print(f"  broken worker's /healthz: {status} {why.strip()}")
        stack.recorded_once(tid, total)
        assert "Task hamlet.play_block" not in broken.output(), "the broken worker took a task"
        assert _health(healthy)[0] == 200
    except BaseException:
        print(broken.output()[-3000:])
        print(healthy.output()[-3000:])
        raise
    finally:
        broken.stop()
        healthy.stop()


def test_redis_restarted_under_running_blocks_stalls_no_claim(stack: Stack) -> None:
    worker = _worker(stack, "w1")
    try:
        wait_until(lambda: bots_announced(stack.stub, {"random"}), 60, "the worker's bots")
        bots = [_submit(stack, f"slow{i}", SLEEPY.format(sleep=0.01)) for i in range(2)]
        tid, total = _tournament(stack, ["random", *bots])
        running = common_pb2.MATCH_STATUS_RUNNING

        def held() -> set[str]:
            return {m.match_id for m in _matches(stack, tid) if m.status == running}

        wait_until(lambda: bool(held()), 120, "a block being played")
        playing = held()
        stack.redis.kill9()  # every message is gone, the workers' connections too
        started = time.monotonic()
        stack.redis.start()
        final = {common_pb2.MATCH_STATUS_FINISHED, common_pb2.MATCH_STATUS_FAILED}
        wait_until(
            lambda: all(m.status in final for m in _matches(stack, tid) if m.match_id in playing),
            120,
            "the blocks that were running",
        )
        recovered = time.monotonic() - started
        wait_until(lambda: stack.settled(tid), 300, "the tournament")
        _summary(
            stack,
            tid,
            "Redis restarted empty under running blocks",
            f"the {len(playing)} running matches final {recovered:.1f} s after the restart, "
            f"each by its first attempt (lease {stack.bound.lease:.0f} s, never waited out)",
        )
        stack.recorded_once(tid, total)
        # Played to the end by the attempt that held them: no lease ran out, no new attempt.
        attempts = {m.match_id: m.attempts for m in _matches(stack, tid) if m.match_id in playing}
        assert set(attempts.values()) == {1}, attempts
    except BaseException:
        print(worker.output()[-5000:])
        raise
    finally:
        worker.stop()


def test_a_sigstopped_worker_voids_the_match_and_nobody_forfeits(stack: Stack) -> None:
    worker = _worker(stack, "w1")
    try:
        wait_until(lambda: bots_announced(stack.stub, {"random"}), 60, "the worker's bots")
        bots = [_submit(stack, f"sleepy{i}", SLEEPY.format(sleep=0.05)) for i in range(2)]
        # 300 ms a decision and a 3 s bank: a stop of 6 s is longer than both.
        tid, total = _tournament(stack, [*bots], decision_ms=300)
        running = common_pb2.MATCH_STATUS_RUNNING
        wait_until(lambda: any(m.status == running for m in _matches(stack, tid)), 120, "a match")
        children = _pool(worker)
        assert children, worker.output()[-3000:]
        # Both seats' sandboxes are up (the match is being played), then well into it.
        wait_until(lambda: len(_descendants(children)) >= 4, 120, "the bots' sandboxes")
        time.sleep(1.0)
        for pid in children:
            os.kill(pid, signal.SIGSTOP)
        time.sleep(6.0)
        for pid in children:
            os.kill(pid, signal.SIGCONT)
        started = time.monotonic()
        wait_until(lambda: stack.settled(tid), 300, "the tournament")
        voided = worker.output().count("the worker was paused for")
        _summary(
            stack,
            tid,
            "worker pool SIGSTOPped for 6 s (decision 0.3 s + bank 3 s)",
            f"{voided} voided for the pause and played again; all recorded "
            f"{time.monotonic() - started:.1f} s after SIGCONT",
        )
        stack.recorded_once(tid, total)
        assert _forfeits(stack, tid) == 0
        assert "the worker was paused for" in worker.output(), "no match was voided for a pause"
    except BaseException:
        print(worker.output()[-5000:])
        raise
    finally:
        worker.stop()


def test_a_sandbox_that_comes_back_brings_its_queues_back(stack: Stack) -> None:
    from workers.sandbox_layout import bwrap_path

    real = bwrap_path()
    assert real is not None
    # Missing at start (the check fails), in a directory the sandbox's own uid can reach.
    place = Path(tempfile.mkdtemp(prefix="hamlet-bwrap-"))
    place.chmod(0o755)
    link = place / "bwrap"
    worker = _worker(stack, "w1", HAMLET_BWRAP=str(link))
    try:
        wait_until(lambda: _health(worker)[0] == 503, 60, "the worker to say it is unhealthy")
        link.symlink_to(real)  # the sandbox is back
        started = time.monotonic()
        wait_until(lambda: _health(worker)[0] == 200, 120, "the worker to consume again")
        back = time.monotonic() - started
        bots = [_submit(stack, f"up{i}", EXAMPLE.read_text()) for i in range(2)]
        tid, total = _tournament(stack, bots)
        wait_until(lambda: stack.settled(tid), 300, "the tournament")
        _summary(
            stack,
            tid,
            "sandbox back after a failed check",
            f"consuming again {back:.1f} s after it came back ({_health(worker)[1].strip()})",
        )
        stack.recorded_once(tid, total)
        assert "consuming matches again" in worker.output()
    except BaseException:
        print(worker.output()[-5000:])
        raise
    finally:
        worker.stop()
        shutil.rmtree(place, ignore_errors=True)
