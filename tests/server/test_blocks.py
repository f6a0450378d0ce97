"""Duplicate blocks as the unit of work: one claim and one report per block, exactly once
per match (a block left half played is finished by the next attempt), and a re-sent copy
of a block's message never takes a live claim over."""

from __future__ import annotations

import sqlite3
from collections import Counter

from hamlet.v1 import arena_pb2, worker_pb2
from server.services.scheduling import blocks_of
from tests.server import fakeworker
from tests.server.conftest import Running

BOTS = ["alpha", "beta", "gamma"]


def _blocks(run: Running, per_table: int = 2) -> list[list[str]]:
    fakeworker.announce(run.worker_channel, ["toy"])
    run.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=BOTS, players_per_table=per_table, rounds=1, start=True
        )
    )
    return list(blocks_of(run.queue.sent, run.store.match_routes).values())


def _results(run: Running) -> Counter[str]:
    db = run.server.settings.data_dir / "hamlet.db"
    with sqlite3.connect(db) as conn:
        return Counter(r[0] for r in conn.execute("SELECT match_id FROM results"))


def test_a_block_is_the_rotations_of_one_table(running: Running) -> None:
    blocks = _blocks(running, per_table=3)
    assert len(blocks) == 1 and len(blocks[0]) == 3
    seeds = {running.store.get_match(m).seed for m in blocks[0]}  # type: ignore[union-attr]
    assert len(seeds) == 1
    assert [running.store.get_match(m).rotation for m in blocks[0]] == [0, 1, 2]  # type: ignore[union-attr]


def test_one_claim_and_one_report_per_block(running: Running) -> None:
    for block in _blocks(running):
        claims, report = fakeworker.play_block(running.worker_channel, block)
        assert [c.match_id for c in claims.claims] == block
        assert report is not None and all(r.recorded for r in report.results)
    assert _results(running) == Counter(dict.fromkeys(running.queue.sent, 1))


def test_a_half_played_block_is_finished_by_its_redelivery(running: Running) -> None:
    block = _blocks(running)[0]
    fakeworker.play_block(running.worker_channel, block, task_id="t1", only=1)  # then dies
    claims, report = fakeworker.play_block(running.worker_channel, block, task_id="t1")
    assert [c.claim.already_final for c in claims.claims] == [True, False]
    assert report is not None and [r.recorded for r in report.results] == [True]
    assert _results(running) == Counter(dict.fromkeys(block, 1))


def test_a_resent_copy_of_a_live_block_is_skipped(running: Running) -> None:
    block = _blocks(running)[0]
    host = running.host
    first = host.ClaimBlock(worker_pb2.ClaimBlockRequest(match_ids=block, task_id="t1"))
    copy = host.ClaimBlock(worker_pb2.ClaimBlockRequest(match_ids=block, task_id="t2"))
    assert all("another queue message" in c.skipped for c in copy.claims)
    reports = [
        worker_pb2.ReportMatchRequest(
            match_id=c.match_id,
            outcome=fakeworker.play_outcome(c.claim.match),
            attempt_token=c.claim.attempt_token,
        )
        for c in first.claims
    ]
    answer = host.ReportBlock(worker_pb2.ReportBlockRequest(reports=reports))
    assert all(r.recorded for r in answer.results)
    again = host.ReportBlock(worker_pb2.ReportBlockRequest(reports=reports))
    assert all(r.duplicate and not r.recorded for r in again.results)
    assert _results(running) == Counter(dict.fromkeys(block, 1))


def test_a_forged_report_in_a_block_does_not_stop_the_others(running: Running) -> None:
    block = _blocks(running)[0]
    claims = running.host.ClaimBlock(worker_pb2.ClaimBlockRequest(match_ids=block, task_id="t"))
    reports = []
    for i, c in enumerate(claims.claims):
        outcome = fakeworker.play_outcome(c.claim.match)
        if i == 0:
            outcome.ranks[:] = list(reversed(outcome.ranks))  # not what the log says
            outcome.scores[:] = [s + 1 for s in outcome.scores]
        reports.append(
            worker_pb2.ReportMatchRequest(
                match_id=c.match_id, outcome=outcome, attempt_token=c.claim.attempt_token
            )
        )
    answer = running.host.ReportBlock(worker_pb2.ReportBlockRequest(reports=reports))
    assert answer.results[0].refused and not answer.results[0].recorded
    assert answer.results[1].recorded and not answer.results[1].refused
    assert _results(running) == Counter({block[1]: 1})
