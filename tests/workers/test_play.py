"""One task execution (claim, play, report) against a fake server, and the task's retries."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from tests import toygame
from workers import tasks
from workers.clients import SeatClients
from workers.config import WorkerConfig
from workers.metrics import MatchOutcome, WorkerMetrics
from workers.model import BotKind, MatchPlan, MatchRecord, SeatPlan
from workers.play import execute
from workers.reporting import Claim, HostUnavailableError, MatchGoneError


@pytest.fixture(autouse=True)
def _toy(monkeypatch: pytest.MonkeyPatch) -> None:
    toygame.register(monkeypatch)


@dataclass
class Reported:
    recorded: bool = True
    duplicate: bool = False


@dataclass
class FakeHost:
    plan: MatchPlan | None = None
    final: bool = False
    gone: bool = False
    duplicate: bool = False
    reports: list[MatchRecord] = field(default_factory=list)
    voids: list[str] = field(default_factory=list)

    def claim(self, match_id: str, worker_id: str, task_id: str = "") -> Claim:
        if self.gone:
            raise MatchGoneError("NOT_FOUND: no such match")
        return Claim(None if self.final else self.plan, self.final)

    def report(self, record: MatchRecord, worker_id: str) -> Reported:
        self.reports.append(record)
        return Reported(not self.duplicate, self.duplicate)

    def void(self, match_id: str, worker_id: str, reason: str) -> Reported:
        self.voids.append(reason)
        return Reported(False, False)


def plan(*bots: str) -> MatchPlan:
    seats = tuple(SeatPlan(i, b, 0, BotKind.BUILTIN) for i, b in enumerate(bots))
    return MatchPlan("m-7", toygame.NAME, "toy-1", 99, seats, 1.0, 5.0)


def sample(registry: CollectorRegistry, outcome: str, game: str = toygame.NAME) -> float:
    value = registry.get_sample_value(
        "hamlet_worker_matches_total", {"game": game, "outcome": outcome}
    )
    return value or 0.0


def test_played_and_recorded_once() -> None:
    registry = CollectorRegistry()
    host = FakeHost(plan("greedy", "random"))
    outcome = execute("m-7", host, SeatClients(), "w1", WorkerMetrics(registry))
    assert outcome is MatchOutcome.RECORDED
    assert len(host.reports) == 1 and host.reports[0].match_id == "m-7"
    assert sample(registry, "recorded") == 1
    assert registry.get_sample_value("hamlet_worker_decision_seconds_count", {"kind": "builtin"})


def test_duplicate_and_redelivered_executions_are_no_ops() -> None:
    registry = CollectorRegistry()
    metrics = WorkerMetrics(registry)
    assert execute("m-7", FakeHost(final=True), SeatClients(), "w", metrics) is (
        MatchOutcome.ALREADY_FINAL
    )
    assert execute("m-7", FakeHost(gone=True), SeatClients(), "w", metrics) is MatchOutcome.GONE
    dup = FakeHost(plan("random", "random"), duplicate=True)
    assert execute("m-7", dup, SeatClients(), "w", metrics) is MatchOutcome.DUPLICATE


def test_infrastructure_faults_void_the_match() -> None:
    registry = CollectorRegistry()
    host = FakeHost(plan("random", "no_such_bot"))
    assert execute("m-7", host, SeatClients(), "w", WorkerMetrics(registry)) is (
        MatchOutcome.VOIDED
    )
    assert host.reports == [] and "no_such_bot" in host.voids[0]
    assert sample(registry, "voided") == 1


def test_forfeits_are_counted_by_reason() -> None:
    registry = CollectorRegistry()
    metrics = WorkerMetrics(registry)
    from workers.model import Forfeit, ForfeitReason

    record = MatchRecord(
        "m", "toy", 1, (1, 2), (1, 0), (Forfeit(0, ForfeitReason.TIMEOUT, "slow", 3),), (), 0.5
    )
    metrics.played(plan("random", "random"), record)
    assert (
        registry.get_sample_value(
            "hamlet_worker_forfeits_total", {"game": "toy", "reason": "timeout"}
        )
        == 1
    )
    assert (
        registry.get_sample_value("hamlet_worker_match_duration_seconds_count", {"game": "toy"})
        == 1
    )


class _RetryError(Exception):
    pass


def test_task_retries_with_backoff_only_when_the_server_is_unreachable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = WorkerConfig(retry_backoff_base=2.0, retry_backoff_max=60.0, max_task_retries=4)
    retried: list[dict[str, Any]] = []

    def retry(**kwargs: Any) -> Exception:
        retried.append(kwargs)
        return _RetryError()

    task = SimpleNamespace(
        app=SimpleNamespace(conf={"hamlet_worker_config": config}),
        request=SimpleNamespace(retries=3),
        retry=retry,
    )

    def unreachable(*args: Any, **kwargs: Any) -> MatchOutcome:
        raise HostUnavailableError("UNAVAILABLE")

    monkeypatch.setattr(tasks, "execute", unreachable)
    monkeypatch.setattr("workers.celery_app.worker_config", lambda app: config)
    with pytest.raises(_RetryError):
        tasks.play_match(task, "m-1")  # type: ignore[arg-type]
    assert retried[0]["max_retries"] == 4
    assert 1.0 <= retried[0]["countdown"] <= 16.0


def test_retry_delay_grows_and_is_capped() -> None:
    rng = random.Random(1)
    delays = [tasks.retry_delay(n, 2.0, 60.0, rng) for n in range(10)]
    assert all(1.0 <= d <= 60.0 for d in delays)
    assert max(delays[:2]) <= 4.0 and max(delays[6:]) > 8.0


def test_the_soft_time_limit_voids_the_match(monkeypatch: pytest.MonkeyPatch) -> None:
    from celery.exceptions import SoftTimeLimitExceeded

    config = WorkerConfig()
    host = FakeHost()
    monkeypatch.setattr(
        tasks,
        "_child_context",
        lambda cfg: tasks._Context(0, "w", host, SeatClients()),  # type: ignore[arg-type]
    )
    monkeypatch.setattr("workers.celery_app.worker_config", lambda app: config)

    def too_long(*args: Any, **kwargs: Any) -> MatchOutcome:
        assert SoftTimeLimitExceeded in kwargs["reraise"]
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(tasks, "execute", too_long)
    task = SimpleNamespace(app=None, request=SimpleNamespace(retries=0))
    assert tasks.play_match(task, "m-9") == "voided"  # type: ignore[arg-type]
    assert host.voids and "soft time limit" in host.voids[0]


def test_play_command_prints_a_local_match(capsys: pytest.CaptureFixture[str]) -> None:
    from workers.__main__ import main

    assert main(["play", toygame.NAME, "greedy", "random", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "seat 1: greedy" in out and "decisions in" in out  # seats and places from 1
