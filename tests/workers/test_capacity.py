"""A worker consumes a queue only while it can run it (workers.capacity): a failed sandbox
check stops every queue, a runtime gone stops its queues, both are checked again with
backoff, exported as metrics and as the worker's health, and a check that passes again
brings the queues back."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterable

import pytest
from prometheus_client import CollectorRegistry

from workers import capacity
from workers.capacity import (
    FIRST_RETRY_S,
    HEALTHY_RECHECK_S,
    Capacity,
    Health,
    QueueSteward,
    assess,
    current_report,
)
from workers.metrics import WorkerMetrics, serve
from workers.sandbox import SandboxLimits, SandboxMode
from workers.sandbox_check import Guarantee, SandboxReport, SandboxTier

WANTED = ["matches", "matches.node"]
REFUSED = SandboxReport(SandboxTier.REFUSED, (), ((Guarantee.BUBBLEWRAP, "no bubblewrap"),))
PASSED = SandboxReport(SandboxTier.BWRAP_CGROUP2, (), ())


class Broker:
    """Stands in for Celery's remote control: records the consumer's queues."""

    def __init__(self, consuming: Iterable[str]) -> None:
        self.consuming = set(consuming)
        self.up = True

    def add(self, queue: str) -> bool:
        if self.up:
            self.consuming.add(queue)
        return self.up

    def cancel(self, queue: str) -> bool:
        if self.up:
            self.consuming.discard(queue)
        return self.up


class Checks:
    """The sandbox check's answers in turn (a real check needs a broken host)."""

    def __init__(self, *answers: Capacity) -> None:
        self.answers = list(answers)

    def __call__(self, limits: SandboxLimits, wanted: Iterable[str]) -> Capacity:
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


def _steward(checks: Checks, broker: Broker) -> tuple[QueueSteward, WorkerMetrics, Health]:
    metrics, health = WorkerMetrics(CollectorRegistry()), Health()
    steward = QueueSteward(
        SandboxLimits(), WANTED, WANTED, broker, metrics, health, assess_now=checks
    )
    return steward, metrics, health


def _value(metrics: WorkerMetrics, name: str) -> float:
    return float(getattr(metrics, name)._value.get())


def test_a_failed_check_stops_every_queue_and_retries_with_backoff() -> None:
    broken = Capacity("refused", (), "the sandbox check failed: bubblewrap: no bubblewrap")
    broker = Broker(WANTED)
    steward, metrics, health = _steward(Checks(broken), broker)
    delays = [steward.step() for _ in range(4)]
    assert broker.consuming == set()
    assert delays == [FIRST_RETRY_S, 2 * FIRST_RETRY_S, 4 * FIRST_RETRY_S, 8 * FIRST_RETRY_S]
    assert not health.ok and "no bubblewrap" in health.detail
    assert _value(metrics, "sandbox_ok") == 0 and _value(metrics, "queues_refused") == 2


def test_a_check_that_passes_again_brings_the_queues_back() -> None:
    broken = Capacity("refused", (), "the sandbox check failed")
    broker = Broker(WANTED)
    steward, metrics, health = _steward(
        Checks(broken, Capacity("bwrap-cgroup2", tuple(WANTED))), broker
    )
    steward.step()
    assert broker.consuming == set()
    assert steward.step() == HEALTHY_RECHECK_S
    assert broker.consuming == set(WANTED) and health.ok
    assert _value(metrics, "sandbox_ok") == 1 and _value(metrics, "queues_consumed") == 2


def test_a_runtime_gone_stops_only_its_queues() -> None:
    gone = Capacity("bwrap-cgroup2", ("matches",), "runtimes gone, not consuming matches.node")
    broker = Broker(WANTED)
    steward, metrics, health = _steward(Checks(gone), broker)
    assert steward.step() == FIRST_RETRY_S
    assert broker.consuming == {"matches"} and not health.ok
    assert _value(metrics, "queues_refused") == 1


def test_a_broker_that_does_not_confirm_is_asked_again() -> None:
    broker = Broker(WANTED)
    broker.up = False
    steward, _, health = _steward(
        Checks(Capacity("refused", (), "the sandbox check failed")), broker
    )
    steward.step()
    assert broker.consuming == set(WANTED) and not health.ok
    broker.up = True
    steward.step()
    assert broker.consuming == set()


def test_a_missing_bubblewrap_fails_the_real_check(monkeypatch: pytest.MonkeyPatch) -> None:
    # HAMLET_BWRAP is a real setting: naming a missing binary is how a test breaks a worker.
    monkeypatch.setenv("HAMLET_BWRAP", "/nonexistent/bwrap")
    monkeypatch.setattr(capacity, "_reports", {})  # this process's cache stays as it was
    found = assess(SandboxLimits(mode=SandboxMode.STRICT), WANTED)
    assert found.queues == () and not found.sandbox_ok
    assert "no bubblewrap at /nonexistent/bwrap" in found.why


def test_a_child_checks_a_refused_sandbox_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capacity, "_reports", {})
    limits = SandboxLimits()
    capacity.remember(limits, REFUSED)  # as the main process found it before the fork
    assert current_report(limits, run=lambda _: REFUSED) is REFUSED
    assert current_report(limits, run=lambda _: PASSED) is PASSED  # checked again: back
    assert current_report(limits, run=lambda _: REFUSED) is PASSED  # a pass is kept


def test_the_health_endpoint_says_why() -> None:
    health = Health(ok=False, detail="the sandbox check failed: no bubblewrap")
    port = serve(0, lambda: (health.ok, health.detail))
    url = f"http://127.0.0.1:{port}/healthz"
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(url, timeout=30)
    assert err.value.code == 503 and b"no bubblewrap" in err.value.read()
    health.ok = True
    with urllib.request.urlopen(url, timeout=30) as answer:
        assert answer.status == 200
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as answer:
        assert b"hamlet_worker" in answer.read() or answer.status == 200
