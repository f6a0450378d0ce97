"""A block execution: one claim, the claimed matches played in order, one report."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest
from prometheus_client import CollectorRegistry

from tests import toygame
from workers.blocks import execute_block
from workers.clients import SeatClients
from workers.metrics import MatchOutcome, WorkerMetrics
from workers.model import BotKind, MatchPlan, MatchRecord, SeatPlan
from workers.reporting import BlockClaim


@dataclass
class Answer:
    recorded: bool = True
    duplicate: bool = False
    refused: str = ""


@dataclass
class FakeBlockHost:
    claims: list[BlockClaim]
    refuse: set[str] = field(default_factory=set)
    calls: list[tuple[list[str], list[tuple[str, str]]]] = field(default_factory=list)
    renewals: list[list[str]] = field(default_factory=list)
    lose: set[str] = field(default_factory=set)

    def renew(self, match_ids: Sequence[str], worker_id: str) -> dict[str, bool]:
        self.renewals.append(list(match_ids))
        return {m: m not in self.lose for m in match_ids}

    def claim_block(
        self, match_ids: Sequence[str], worker_id: str, task_id: str = ""
    ) -> list[BlockClaim]:
        assert task_id == "task-1"
        return self.claims

    def report_block(
        self, records: Sequence[MatchRecord], voids: Sequence[tuple[str, str]], worker_id: str
    ) -> dict[str, Answer]:
        self.calls.append(([r.match_id for r in records], list(voids)))
        out = {
            r.match_id: Answer(refused="gone" if r.match_id in self.refuse else "") for r in records
        }
        out.update({m: Answer(recorded=False) for m, _ in voids})
        return out


@pytest.fixture(autouse=True)
def _toy(monkeypatch: pytest.MonkeyPatch) -> None:
    toygame.register(monkeypatch)


def _plan(match_id: str, bots: tuple[str, ...] = ("first", "random")) -> MatchPlan:
    seats = tuple(SeatPlan(i, b, 0, BotKind.BUILTIN) for i, b in enumerate(bots))
    return MatchPlan(match_id, toygame.NAME, "toy-1", 99, seats, 1.0, 5.0)


def _run(host: FakeBlockHost, ids: list[str]) -> list[MatchOutcome]:
    metrics = WorkerMetrics(CollectorRegistry())
    return execute_block(ids, host, SeatClients(), "w", metrics, task_id="task-1")


def test_the_claimed_matches_are_played_and_reported_in_one_call() -> None:
    host = FakeBlockHost(
        [
            BlockClaim("b.s0", None, already_final=True),  # recorded by a dead worker
            BlockClaim("b.s1", _plan("b.s1", ("random", "first"))),
            BlockClaim("b.s2", None, skipped="held by another attempt"),
        ]
    )
    outcomes = _run(host, ["b.s0", "b.s1", "b.s2"])
    assert outcomes == [MatchOutcome.ALREADY_FINAL, MatchOutcome.RECORDED, MatchOutcome.GONE]
    assert host.calls == [(["b.s1"], [])]


def test_a_missing_bot_voids_its_match_and_the_rest_is_reported() -> None:
    host = FakeBlockHost(
        [BlockClaim("b.s0", _plan("b.s0", ("nobody", "first"))), BlockClaim("b.s1", _plan("b.s1"))],
        refuse={"b.s1"},
    )
    outcomes = _run(host, ["b.s0", "b.s1"])
    assert outcomes == [MatchOutcome.VOIDED, MatchOutcome.GONE]
    # The void is reported at once (queued again while the block plays), the rest at the end.
    (_, void), (played, voids) = host.calls
    assert void[0][0] == "b.s0" and played == ["b.s1"] and voids == []


def test_the_soft_time_limit_reports_what_was_played_and_voids_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class LateError(Exception):
        pass

    import workers.blocks as blocks

    real = blocks.play_plan
    played: list[str] = []

    def slow(plan: MatchPlan, *args: object, **kwargs: object) -> MatchRecord:
        if played:
            raise LateError()
        played.append(plan.match_id)
        return real(plan, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(blocks, "play_plan", slow)
    host = FakeBlockHost([BlockClaim(f"b.s{i}", _plan(f"b.s{i}")) for i in range(3)])
    metrics = WorkerMetrics(CollectorRegistry())
    with pytest.raises(LateError):
        execute_block(
            ["b.s0", "b.s1", "b.s2"],
            host,
            SeatClients(),
            "w",
            metrics,
            "task-1",
            reraise=(LateError,),
        )
    ((records, voids),) = host.calls
    assert records == ["b.s0"] and [m for m, _ in voids] == ["b.s1", "b.s2"]


def test_each_match_of_a_block_has_its_own_soft_limit() -> None:
    from celery.exceptions import SoftTimeLimitExceeded

    from workers.tasks import soft_limit

    with pytest.raises(SoftTimeLimitExceeded), soft_limit(0.05):
        while True:  # a match that never ends
            pass
    with soft_limit(60):  # disarmed on the way out: nothing fires later
        pass


def test_each_match_but_the_first_renews_the_claims_of_the_unreported_ones() -> None:
    ids = ["b.s0", "b.s1", "b.s2"]
    host = FakeBlockHost([BlockClaim(m, _plan(m), lease_s=3600) for m in ids])
    assert _run(host, ids) == [MatchOutcome.RECORDED] * 3
    # A lease covers one lease, not one per match: renewed as each match begins, played
    # ones included (their report comes at the end of the block).
    assert host.renewals == [ids, ids]


def test_a_match_whose_claim_was_lost_is_not_played() -> None:
    ids = ["b.s0", "b.s1"]
    host = FakeBlockHost([BlockClaim(m, _plan(m), lease_s=3600) for m in ids], lose={"b.s1"})
    assert _run(host, ids) == [MatchOutcome.RECORDED, MatchOutcome.GONE]
    assert host.calls == [(["b.s0"], [])]
    assert host.renewals == [ids]
