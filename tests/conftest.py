"""Every test starts with no credentials of the person running the suite: no HAMLET_TOKEN,
and a private config directory, so `hamlet login` state on this machine never leaks in.

Hypothesis checks properties, not speed: on a loaded CI machine its timing health check and
per-example deadline would fail tests for the machine's load, so both are off.

For the same reason a worker's pause threshold is 5 s here (HAMLET_WORKER_PAUSE_SECONDS,
inherited by the workers the tests start): on a busy two-core CI machine a test process can go
unscheduled for over a second, which a worker rightly treats as a pause (the match is voided
and replayed), but tests that play a match directly would see it as an error. The tests of the
pause itself set their own threshold, and stop a worker for longer than this one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("hamlet", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("hamlet")
os.environ.setdefault("HAMLET_WORKER_PAUSE_SECONDS", "5")


@pytest.fixture(autouse=True)
def _no_ambient_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HAMLET_TOKEN", raising=False)
    monkeypatch.delenv("HAMLET_WORKER_TOKEN", raising=False)
    monkeypatch.delenv("HAMLET_WORKER_TOKEN_FILE", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
