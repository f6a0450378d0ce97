"""Bot time is the bot's: a pause of the worker (SIGSTOP, a frozen host) is told from a slow
bot by the worker's own progress clock, and voids the match (an infrastructure fault)
instead of forfeiting the bot it was waiting for."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from bots.api import Decision
from games import Action, State
from tests import toygame
from tests.workers.scripted import FakeClock, Scripted
from workers.model import BotKind, ForfeitReason, MatchPlan, SeatPlan
from workers.pause import PAUSE_S, PauseWatch, WorkerPausedError
from workers.runner import run_match


@pytest.fixture(autouse=True)
def _toy(monkeypatch: pytest.MonkeyPatch) -> None:
    toygame.register(monkeypatch)


def _plan() -> MatchPlan:
    seats = tuple(SeatPlan(i, f"bot{i}", 1, BotKind.UPLOADED) for i in range(2))
    return MatchPlan("m-1", toygame.NAME, "", 5, seats, 1.0, 2.0)


class Ticking(Scripted):
    """Takes ``seconds`` of the fake clock while the worker keeps ticking: a slow bot."""

    def __init__(self, clock: FakeClock, watch: PauseWatch, seconds: float) -> None:
        super().__init__(seed=1)
        self.fake, self.watch, self.took = clock, watch, seconds

    def decide(
        self, state: State, legal: Sequence[Action], decision: Decision, timeout_s: float
    ) -> int:
        end = self.fake.now + self.took
        while self.fake.now < end:
            self.fake.now += 0.1
            self.watch.tick()
        return super().decide(state, legal, decision, timeout_s)


def test_a_decision_across_a_pause_voids_the_match() -> None:
    clock = FakeClock()
    watch = PauseWatch(clock=clock)  # no ticks while the bot "decides": the worker stood still
    stopped = Scripted(clock=clock, seconds=30.0)
    with pytest.raises(WorkerPausedError, match=r"paused for 30\.0s while seat 0"):
        run_match(_plan(), [stopped, Scripted(seed=2)], clock, pauses=watch)


def test_a_slow_bot_while_the_worker_ticks_still_forfeits() -> None:
    clock = FakeClock()
    watch = PauseWatch(clock=clock)
    slow = Ticking(clock, watch, seconds=30.0)
    record = run_match(_plan(), [slow, Scripted(seed=2)], clock, pauses=watch)
    assert [f.reason for f in record.forfeits] == [ForfeitReason.TIMEOUT]


def test_a_pause_between_decisions_charges_nobody() -> None:
    clock = FakeClock()
    watch = PauseWatch(clock=clock)
    clock.now += 30.0  # paused before the decision began: nothing to void
    watch.tick()
    record = run_match(_plan(), [Scripted(seed=1), Scripted(seed=2)], clock, pauses=watch)
    assert not record.forfeits


def test_only_gaps_much_longer_than_the_tick_are_pauses() -> None:
    clock = FakeClock()
    watch = PauseWatch(clock=clock)
    for _ in range(20):
        clock.now += PAUSE_S / 2
        watch.tick()
    assert watch.paused(100.0, clock.now) == 0.0
    clock.now += 5.0
    watch.tick()
    assert watch.paused(100.0, clock.now) == pytest.approx(5.0)


CHILD = """
import sys, time
import pytest
from tests import toygame
from workers.model import BotKind, MatchPlan, SeatPlan
from workers.pause import WorkerPausedError, watch
from workers.runner import run_match
from tests.workers.scripted import Scripted

class Answers(Scripted):
    def decide(self, state, legal, decision, timeout_s):
        if self.asked == 2:
            print("deciding", flush=True)  # the test stops this process now
            time.sleep(0.3)  # the bot's own time: well within its 0.5 s
        return super().decide(state, legal, decision, timeout_s)

toygame.register(pytest.MonkeyPatch())
seats = tuple(SeatPlan(i, f"b{i}", 1, BotKind.UPLOADED) for i in range(2))
plan = MatchPlan("m", toygame.NAME, "", 3, seats, 0.5, 0.5)
pauses = watch() if sys.argv[1] == "watched" else None
time.sleep(0.3)  # the progress clock ticks
try:
    record = run_match(plan, [Answers(seed=1), Scripted(seed=2)], pauses=pauses)
except WorkerPausedError as exc:
    print("void:", exc, flush=True)
else:
    print("forfeits:", [f.reason.value for f in record.forfeits], flush=True)
"""


@pytest.mark.parametrize("mode", ["watched", "unwatched"])
def test_a_sigstopped_worker_voids_instead_of_forfeiting(mode: str) -> None:
    root = Path(__file__).parents[2]
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, mode],
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root), "HAMLET_WORKER_PAUSE_SECONDS": "1"},
    )
    assert child.stdout is not None
    try:
        assert child.stdout.readline().strip() == "deciding"
        os.kill(child.pid, signal.SIGSTOP)  # longer than decision time plus bank
        time.sleep(2.5)
        os.kill(child.pid, signal.SIGCONT)
        out = child.stdout.read()
    finally:
        child.kill()
        child.wait()
    print(f"\nSIGSTOP 2.5 s (decision 0.5 s + bank 0.5 s), {mode}: {out.strip()}")
    if mode == "watched":
        assert out.startswith("void: the worker was paused"), out
    else:  # what the progress clock prevents: the bot would have forfeited
        assert out.startswith("forfeits: ['timeout']"), out
