"""The per-match limit follows the time control: a slow but legal match (bots using most of
their decision time on every decision) is played, not voided, where a fixed limit would void
it; the limit is the legal worst case with a margin, never below the configured floor."""

from __future__ import annotations

import time
from collections.abc import Sequence

import pytest
from prometheus_client import CollectorRegistry

from bots.api import Decision
from games import Action, State
from hamlet.timelimits import match_limit_s
from tests import toygame
from tests.workers.scripted import Scripted
from tests.workers.test_blocks import FakeBlockHost
from workers.blocks import execute_block
from workers.config import WorkerConfig
from workers.metrics import MatchOutcome, WorkerMetrics
from workers.model import BotKind, MatchPlan, SeatPlan
from workers.reporting import BlockClaim
from workers.tasks import match_soft_limit, soft_limit

DECISION_S = 0.05
USED_S = 0.04  # 80% of the decision time, every decision


class _Slow(Scripted):
    """Answers legally after most of its decision time (real time)."""

    def decide(
        self, state: State, legal: Sequence[Action], decision: Decision, timeout_s: float
    ) -> int:
        time.sleep(USED_S)
        return super().decide(state, legal, decision, timeout_s)


class _SlowSeats:
    def __init__(self) -> None:
        self.asked = 0
        self.clients: list[_Slow] = []

    def open(self, plan: MatchPlan) -> list[_Slow]:
        self.clients = [_Slow(seed=i) for i in range(len(plan.seats))]
        return self.clients


@pytest.fixture(autouse=True)
def _toy(monkeypatch: pytest.MonkeyPatch) -> None:
    toygame.register(monkeypatch)


def _plan() -> MatchPlan:
    seats = tuple(SeatPlan(i, f"slow{i}", 0, BotKind.BUILTIN) for i in range(2))
    return MatchPlan("b.s0", toygame.NAME, "toy-1", 7, seats, DECISION_S, 10 * DECISION_S)


#: A fixed soft limit far shorter than the slow match (the worker's 540 s in small numbers).
FIXED = WorkerConfig(match_time_limit=1.0, match_soft_time_limit=0.2)


def _play(limit_of: object) -> tuple[MatchOutcome, FakeBlockHost, _SlowSeats]:
    host = FakeBlockHost([BlockClaim("b.s0", _plan())])
    seats = _SlowSeats()
    (outcome,) = execute_block(
        ["b.s0"],
        host,
        seats,
        "w",
        WorkerMetrics(CollectorRegistry()),
        task_id="task-1",
        per_match=limit_of,  # type: ignore[arg-type]
    )
    return outcome, host, seats


def test_a_slow_legal_match_is_played_not_voided() -> None:
    outcome, host, seats = _play(lambda plan: soft_limit(match_soft_limit(FIXED, plan)))
    assert outcome is MatchOutcome.RECORDED
    ((played, voids),) = host.calls
    assert played == ["b.s0"] and voids == []
    asked = sum(c.asked for c in seats.clients)
    assert asked * USED_S > FIXED.match_soft_time_limit, "the match was not slow: nothing tested"


def test_a_fixed_limit_would_have_voided_it() -> None:
    from celery.exceptions import SoftTimeLimitExceeded

    host = FakeBlockHost([BlockClaim("b.s0", _plan())])
    with pytest.raises(SoftTimeLimitExceeded):
        execute_block(
            ["b.s0"],
            host,
            _SlowSeats(),
            "w",
            WorkerMetrics(CollectorRegistry()),
            task_id="task-1",
            reraise=(SoftTimeLimitExceeded,),
            per_match=lambda plan: soft_limit(FIXED.match_soft_time_limit),
        )
    ((played, voids),) = host.calls
    assert played == [] and [m for m, _ in voids] == ["b.s0"]


def test_the_limit_is_the_legal_worst_case_and_never_below_the_floor() -> None:
    plan = _plan()
    worst = match_limit_s(toygame.ToySpec.max_decisions, 2, DECISION_S, 10 * DECISION_S)
    assert worst > toygame.ToySpec.max_decisions * DECISION_S + 2 * 10 * DECISION_S
    assert match_soft_limit(FIXED, plan) == worst
    assert match_soft_limit(WorkerConfig(), plan) == WorkerConfig().match_soft_time_limit
    # A four-seat game at 1 s over 680 decisions (the slow match of the issue) gets its time.
    assert match_limit_s(680, 4, 1.0, 10.0) > 680 * 0.8 + 4 * 10.0


def test_a_match_never_outlives_what_the_blocks_hard_limit_leaves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from workers import tasks

    asked: list[float] = []
    monkeypatch.setattr(tasks, "soft_limit", lambda s: asked.append(s) or soft_limit(s))
    config = WorkerConfig(match_time_limit=8.0, match_soft_time_limit=6.0)
    limits = tasks._limits(config)
    plan = _plan()  # its own legal worst case: above the block's 32 s hard limit
    with limits(plan):
        pass
    assert match_soft_limit(config, plan) > config.block_time_limit
    assert 25.0 < asked[0] <= config.block_time_limit - 2.0
