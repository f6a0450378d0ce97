"""Fail closed: what a worker does when the sandbox holds, when it does not, and in insecure
mode; ``--check-sandbox``; the settings; the seccomp program's shape."""

from __future__ import annotations

import hashlib
import struct
import subprocess
import sys
from pathlib import Path

import pytest

import games
from workers import clients, seccomp
from workers.clients import CodeCache, SeatClients
from workers.config import ConfigError, WorkerConfig
from workers.model import BotKind, InfrastructureError, MatchPlan, SeatPlan
from workers.play import play_plan
from workers.reporting import outcome_to_proto
from workers.sandbox import SandboxLimits, SandboxMode
from workers.sandbox_check import (
    Guarantee,
    SandboxReport,
    SandboxTier,
    check,
    missing_kernel_features,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = (ROOT / "bots" / "examples" / "random_uploaded.py").read_bytes()


def uploaded_plan() -> tuple[MatchPlan, dict[str, bytes]]:
    sha = hashlib.sha256(EXAMPLE).hexdigest()
    seats = (
        SeatPlan(0, "up", 1, BotKind.UPLOADED, code_sha256=sha),
        SeatPlan(1, "random", 0, BotKind.BUILTIN),
    )
    rules = games.get("village").rules_version
    return MatchPlan("policy-1", "village", rules, 3, seats, 5.0, 10.0), {sha: EXAMPLE}


def test_insecure_mode_plays_and_marks_the_match_unrated(tmp_path: Path) -> None:
    plan, codes = uploaded_plan()
    seats = SeatClients(
        CodeCache(tmp_path, codes.__getitem__), SandboxLimits(mode=SandboxMode.INSECURE)
    )
    record = play_plan(plan, seats)
    assert record.unrated and record.sandbox_tier == "insecure"
    message = outcome_to_proto(record)
    assert message.unrated and message.sandbox_tier == "insecure"


def test_a_worker_missing_a_guarantee_refuses_uploaded_bots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refused = SandboxReport(
        SandboxTier.REFUSED, (), ((Guarantee.SECCOMP, "the kernel has no seccomp"),)
    )
    monkeypatch.setattr(clients, "current_report", lambda limits: refused)
    plan, codes = uploaded_plan()
    seats = SeatClients(CodeCache(tmp_path, codes.__getitem__))
    with pytest.raises(InfrastructureError, match=r"refuses uploaded bots.*no seccomp"):
        seats.open(plan)
    assert "MISSING" in "\n".join(refused.lines()) and not refused.plays_uploaded


def test_a_full_sandbox_plays_rated(tmp_path: Path) -> None:
    if missing_kernel_features():
        pytest.skip(f"kernel lacks: {missing_kernel_features()}")
    plan, codes = uploaded_plan()
    record = play_plan(plan, SeatClients(CodeCache(tmp_path, codes.__getitem__)))
    assert not record.unrated and record.sandbox_tier.startswith("bwrap-cgroup")
    assert not record.forfeits


def test_check_sandbox_prints_every_guarantee_held() -> None:
    lacking = missing_kernel_features()
    if lacking:
        pytest.skip(f"this kernel lacks what the sandbox needs: {lacking}")
    out = subprocess.run(
        [sys.executable, "-m", "workers", "worker", "--check-sandbox"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    for g in Guarantee:
        assert f"held     {g.name.lower()}" in out.stdout, out.stdout
    assert "MISSING" not in out.stdout


def test_the_check_of_insecure_mode_is_the_insecure_tier() -> None:
    report = check(SandboxLimits(mode=SandboxMode.INSECURE))
    assert report.tier is SandboxTier.INSECURE and report.unrated and report.plays_uploaded


def test_sandbox_settings() -> None:
    assert WorkerConfig.from_env({}).sandbox_mode is SandboxMode.STRICT
    config = WorkerConfig.from_env({"HAMLET_SANDBOX": "insecure", "HAMLET_SANDBOX_CGROUP": "d"})
    limits = config.sandbox_limits()
    assert limits.mode is SandboxMode.INSECURE and limits.cgroup_parent == "d"
    with pytest.raises(ConfigError, match="HAMLET_SANDBOX"):
        WorkerConfig.from_env({"HAMLET_SANDBOX": "off"})


def test_the_seccomp_program_checks_the_architecture_first() -> None:
    program = seccomp.bot_filter()
    assert len(program) % 8 == 0 and len(program) // 8 < 4096
    insns = [struct.unpack_from("<HBBI", program, i) for i in range(0, len(program), 8)]
    assert insns[0] == (0x20, 0, 0, 4)  # load seccomp_data.arch
    assert insns[1][0] == 0x15 and insns[1][3] == seccomp.AUDIT_ARCH_X86_64
    assert insns[2] == (0x06, 0, 0, seccomp.SECCOMP_RET_KILL_PROCESS)  # any other arch
    assert insns[-1] == (0x06, 0, 0, seccomp.SECCOMP_RET_ERRNO | 1)  # unlisted: EPERM
