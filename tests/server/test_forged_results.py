"""Results the server verifies: only the attempt holding a claim reports, and only what the
rules produce is recorded. Each refused report changes nothing, the Elo table included."""

from __future__ import annotations

import json
from datetime import timedelta

import grpc
import pytest

from hamlet.paging import all_matches
from hamlet.v1 import arena_pb2, worker_pb2, worker_pb2_grpc
from server.storage.base import utcnow
from tests.server import fakeworker
from tests.server.conftest import Running, snapshot


def _started(run: Running, start: bool = True) -> list[str]:
    fakeworker.announce(run.worker_channel, ["toy"])
    before = len(run.queue.sent)
    t = run.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="toy", bots=["alpha", "beta"], players_per_table=2, start=start
        )
    )
    if not start:
        return [m.match_id for m in all_matches(run.arena, t.tournament_id)]
    return run.queue.sent[before:]


def _refused(call: object, code: grpc.StatusCode, text: str) -> None:
    with pytest.raises(grpc.RpcError) as err:
        call()  # type: ignore[operator]
    assert err.value.code() == code  # type: ignore[attr-defined]
    assert text in err.value.details()  # type: ignore[attr-defined]


def _report(
    match_id: str, outcome: worker_pb2.MatchOutcome, token: str
) -> worker_pb2.ReportMatchRequest:
    return worker_pb2.ReportMatchRequest(match_id=match_id, outcome=outcome, attempt_token=token)


def _claim(run: Running, match_id: str, worker: str = "w") -> worker_pb2.ClaimMatchResponse:
    return run.host.ClaimMatch(worker_pb2.ClaimMatchRequest(match_id=match_id, worker_id=worker))


def test_a_user_token_can_neither_claim_nor_report(running: Running) -> None:
    match_id = _started(running)[0]
    token, _ = running.user("mallory")
    stranger = worker_pb2_grpc.MatchHostStub(running.channel_for(token))
    claim = _claim(running, match_id)
    outcome = fakeworker.play_outcome(claim.match)
    before = snapshot(running.store)
    for call in (
        lambda: stranger.ClaimMatch(worker_pb2.ClaimMatchRequest(match_id=match_id)),
        lambda: stranger.ReportMatch(_report(match_id, outcome, claim.attempt_token)),
    ):
        _refused(call, grpc.StatusCode.PERMISSION_DENIED, "worker scope")
    anonymous = worker_pb2_grpc.MatchHostStub(running.anon_channel)
    _refused(
        lambda: anonymous.ReportMatch(_report(match_id, outcome, claim.attempt_token)),
        grpc.StatusCode.UNAUTHENTICATED,
        "worker token",
    )
    assert snapshot(running.store) == before


def test_a_stale_claim_cannot_report_after_another_worker_claimed(running: Running) -> None:
    match_id = _started(running)[0]
    matches = running.server.services.matches
    now = utcnow()
    matches.now = lambda: now
    first = _claim(running, match_id, "w1")
    outcome = fakeworker.play_outcome(first.match)
    # w1 stalls past its lease; the reaper re-queues the match and w2 claims it.
    later = now + timedelta(seconds=matches.lease.total_seconds() + 1)
    matches.now = lambda: later
    assert matches.reap().requeued == (match_id,)
    second = _claim(running, match_id, "w2")
    assert second.attempt_token != first.attempt_token
    board = running.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="toy"))
    before = snapshot(running.store)
    _refused(
        lambda: running.host.ReportMatch(_report(match_id, outcome, first.attempt_token)),
        grpc.StatusCode.FAILED_PRECONDITION,
        "does not hold match",
    )
    _refused(
        lambda: running.host.ReportMatch(
            worker_pb2.ReportMatchRequest(
                match_id=match_id, void_reason="late", attempt_token=first.attempt_token
            )
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        "does not hold match",
    )
    assert snapshot(running.store) == before
    assert running.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="toy")) == board
    assert running.host.ReportMatch(_report(match_id, outcome, second.attempt_token)).recorded
    # ... and once recorded, the stale attempt is still refused (not a "duplicate").
    _refused(
        lambda: running.host.ReportMatch(_report(match_id, outcome, first.attempt_token)),
        grpc.StatusCode.FAILED_PRECONDITION,
        "does not hold match",
    )


def test_an_expired_claim_cannot_report_even_before_anyone_else_claims(running: Running) -> None:
    match_id = _started(running)[0]
    matches = running.server.services.matches
    now = utcnow()
    matches.now = lambda: now
    claim = _claim(running, match_id)
    outcome = fakeworker.play_outcome(claim.match)
    later = now + timedelta(seconds=matches.lease.total_seconds() + 1)
    matches.now = lambda: later
    before = snapshot(running.store)
    _refused(
        lambda: running.host.ReportMatch(_report(match_id, outcome, claim.attempt_token)),
        grpc.StatusCode.FAILED_PRECONDITION,
        "expired",
    )
    assert snapshot(running.store) == before


def test_reports_nobody_claimed_or_of_tournaments_not_running(running: Running) -> None:
    started = _started(running)
    waiting = _started(running, start=False)
    spec = worker_pb2.MatchSpec(game="toy", seed=1, seats=[worker_pb2.SeatSpec()] * 2)
    outcome = fakeworker.play_outcome(spec)
    before = snapshot(running.store)
    _refused(
        lambda: running.host.ReportMatch(_report(started[0], outcome, "")),
        grpc.StatusCode.FAILED_PRECONDITION,
        "attempt token",
    )
    _refused(
        lambda: running.host.ReportMatch(_report(started[0], outcome, "made-up")),
        grpc.StatusCode.FAILED_PRECONDITION,
        "does not hold match",
    )
    _refused(
        lambda: _claim(running, waiting[0]),
        grpc.StatusCode.FAILED_PRECONDITION,
        "tournament is not running",
    )
    _refused(
        lambda: running.host.ReportMatch(_report(waiting[0], outcome, "made-up")),
        grpc.StatusCode.FAILED_PRECONDITION,
        "does not hold match",
    )
    assert snapshot(running.store) == before


def _forge(outcome: worker_pb2.MatchOutcome, how: str) -> worker_pb2.MatchOutcome:
    forged = worker_pb2.MatchOutcome()
    forged.CopyFrom(outcome)
    if how == "ranks":
        forged.ranks[:] = list(reversed(outcome.ranks))
        if list(forged.ranks) == list(outcome.ranks):
            forged.ranks[:] = [0, 1]
            forged.scores[:] = [999, 0]
    elif how == "scores":
        forged.scores[0] += 1
    elif how == "action":
        first = json.loads(forged.decisions[0].action_json)
        first["card"] = 10  # no such card in the toy game
        forged.decisions[0].action_json = json.dumps(first)
    elif how == "truncated":
        del forged.decisions[-1]
    elif how == "legal count":
        forged.decisions[0].legal_count += 1
    elif how == "not json":
        forged.decisions[0].action_json = "{"
    return forged


@pytest.mark.parametrize(
    "how", ["ranks", "scores", "action", "truncated", "legal count", "not json"]
)
def test_a_log_that_does_not_reproduce_the_result_is_refused(running: Running, how: str) -> None:
    match_id = _started(running)[0]
    claim = _claim(running, match_id)
    honest = fakeworker.play_outcome(claim.match)
    board = running.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="toy"))
    before = snapshot(running.store)
    _refused(
        lambda: running.host.ReportMatch(
            _report(match_id, _forge(honest, how), claim.attempt_token)
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "" if how == "not json" else "not what the rules produce",
    )
    assert snapshot(running.store) == before
    assert running.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="toy")) == board
    assert running.host.ReportMatch(_report(match_id, honest, claim.attempt_token)).recorded


def test_a_forfeit_is_verified_with_the_forfeited_seat_ranked_last(running: Running) -> None:
    match_id = _started(running)[0]
    claim = _claim(running, match_id)
    outcome = fakeworker.play_outcome(claim.match, forfeit_seat=0)
    assert outcome.ranks[0] == 1
    assert running.host.ReportMatch(_report(match_id, outcome, claim.attempt_token)).recorded
