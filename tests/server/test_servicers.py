"""The gRPC server over a real channel on port 0: the happy path, idempotency, and bad requests
getting the right status code with nothing written."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from hamlet.paging import all_matches
from hamlet.v1 import arena_pb2, common_pb2, worker_pb2
from tests.server import fakeworker
from tests.server.conftest import Running

BOTS = ["alpha", "beta", "gamma"]


def _tournament(run: Running, **kw: Any) -> arena_pb2.Tournament:
    fakeworker.announce(run.worker_channel, ["toy"])
    args = {
        "game": "toy",
        "bots": BOTS,
        "players_per_table": 2,
        "rounds": 1,
        "rated": True,
        "start": True,
    }
    args.update(kw)
    return run.arena.CreateTournament(arena_pb2.CreateTournamentRequest(**args))


def test_games_and_health(running: Running) -> None:
    games = running.arena.ListGames(arena_pb2.ListGamesRequest()).games
    toy = next(g for g in games if g.name == "toy")
    assert (toy.min_players, toy.max_players, toy.rules_version) == (2, 4, "toy-1")
    health = health_pb2_grpc.HealthStub(running.channel)
    for service in ("", "hamlet.v1.Arena", "hamlet.v1.MatchHost"):
        status = health.Check(health_pb2.HealthCheckRequest(service=service)).status
        assert status == health_pb2.HealthCheckResponse.SERVING
    refl = reflection_pb2_grpc.ServerReflectionStub(running.channel)
    answer = next(
        iter(
            refl.ServerReflectionInfo(
                iter([reflection_pb2.ServerReflectionRequest(list_services="")])
            )
        )
    )
    names = {s.name for s in answer.list_services_response.service}
    assert {"hamlet.v1.Arena", "hamlet.v1.MatchHost"} <= names


def test_a_tournament_end_to_end(running: Running) -> None:
    t = _tournament(running)
    assert (t.matches_total, t.status) == (
        6,
        common_pb2.TOURNAMENT_STATUS_RUNNING,
    )  # 3 tables x 2 rotations
    assert sorted(running.queue.sent) == sorted(
        m.match_id for m in all_matches(running.arena, t.tournament_id)
    )
    for i, match_id in enumerate(running.queue.sent):
        assert fakeworker.play(
            running.worker_channel, match_id, forfeit_seat=0 if i == 0 else None
        ).recorded
    events = list(
        running.arena.WatchTournament(
            arena_pb2.WatchTournamentRequest(tournament_id=t.tournament_id, include_finished=True)
        )
    )
    assert sorted(e.match.match_id for e in events if e.HasField("match")) == sorted(
        running.queue.sent
    )
    assert events[-1].tournament.status == common_pb2.TOURNAMENT_STATUS_FINISHED
    done = running.arena.GetTournament(arena_pb2.TournamentRef(tournament_id=t.tournament_id))
    assert (done.matches_finished, sum(s.matches for s in done.standings)) == (6, 12)
    assert sum(s.forfeits for s in done.standings) == 1
    board = running.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="toy"))
    assert sum(e.games for e in board.entries) == 12
    detail = running.arena.GetMatch(arena_pb2.MatchRef(match_id=running.queue.sent[1]))
    assert detail.match.status == common_pb2.MATCH_STATUS_FINISHED
    assert len(detail.decisions) == detail.match.decision_count > 0
    replay = running.arena.GetReplay(arena_pb2.MatchRef(match_id=running.queue.sent[1]))
    assert replay.matches_record
    assert len(replay.steps) == len(detail.decisions)
    assert list(replay.replayed_scores) == [s.score for s in detail.match.seats]
    forfeited = running.arena.GetMatch(arena_pb2.MatchRef(match_id=running.queue.sent[0])).match
    assert forfeited.seats[0].forfeit_reason == "crash" and forfeited.seats[0].rank == 1


def test_reports_are_idempotent(running: Running) -> None:
    t = _tournament(running)
    match_id = running.queue.sent[0]
    claim = running.host.ClaimMatch(worker_pb2.ClaimMatchRequest(match_id=match_id, worker_id="w"))
    outcome = fakeworker.play_outcome(claim.match)
    report = worker_pb2.ReportMatchRequest(
        match_id=match_id, worker_id="w", outcome=outcome, attempt_token=claim.attempt_token
    )
    first, second = running.host.ReportMatch(report), running.host.ReportMatch(report)
    assert (first.recorded, first.duplicate, second.recorded, second.duplicate) == (
        True,
        False,
        False,
        True,
    )
    again = running.host.ClaimMatch(worker_pb2.ClaimMatchRequest(match_id=match_id, worker_id="w2"))
    assert again.already_final
    board = running.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="toy"))
    assert sum(e.games for e in board.entries) == 2
    t = running.arena.GetTournament(arena_pb2.TournamentRef(tournament_id=t.tournament_id))
    assert t.matches_finished == 1


def test_void_requeues_the_match(running: Running) -> None:
    _tournament(running)
    match_id = running.queue.sent[0]
    claim = running.host.ClaimMatch(worker_pb2.ClaimMatchRequest(match_id=match_id, worker_id="w"))
    running.host.ReportMatch(
        worker_pb2.ReportMatchRequest(
            match_id=match_id, worker_id="w", void_reason="oom", attempt_token=claim.attempt_token
        )
    )
    assert running.queue.sent.count(match_id) == 2
    match = running.arena.GetMatch(arena_pb2.MatchRef(match_id=match_id)).match
    assert (match.status, match.attempts, match.void_reason) == (
        common_pb2.MATCH_STATUS_QUEUED,
        0,  # a void is the infrastructure's: no bot could have lost it, so no attempt
        "oom",
    )


def test_bot_submission(running: Running) -> None:
    req = arena_pb2.SubmitBotRequest(
        name="mine", game="toy", source="print('hi')\n", description="d"
    )
    first, second = running.arena.SubmitBot(req), running.arena.SubmitBot(req)
    assert (first.created, second.created, first.version, second.version) == (True, False, 1, 1)
    req.source = "print('v2')\n"
    third = running.arena.SubmitBot(req)
    assert (third.version, third.created) == (2, True)
    code = running.host.FetchBotCode(
        worker_pb2.FetchBotCodeRequest(code_sha256=third.code_sha256)
    ).code
    assert code == b"print('v2')\n"
    assert running.arena.RetireBot(arena_pb2.RetireBotRequest(name="mine")).retired


def _counts(run: Running) -> tuple[int, int, int]:
    bots = run.arena.ListBots(arena_pb2.ListBotsRequest(include_retired=True)).bots
    tournaments = run.arena.ListTournaments(arena_pb2.ListTournamentsRequest()).tournaments
    return len(bots), len(tournaments), sum(b.latest_version for b in bots)


Call = Callable[[Running], Any]
BIG = "x" * (300 * 1024)
BAD_REQUESTS: list[tuple[str, Call, grpc.StatusCode, str]] = [
    (
        "unknown game",
        lambda r: r.arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(game="chess", bots=BOTS)
        ),
        grpc.StatusCode.NOT_FOUND,
        "unknown game",
    ),
    (
        "unknown bot",
        lambda r: r.arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(game="toy", bots=["alpha", "zed"])
        ),
        grpc.StatusCode.NOT_FOUND,
        "unknown bot 'zed'",
    ),
    (
        "too many players",
        lambda r: r.arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(game="toy", bots=BOTS, players_per_table=5)
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "2 to 4 players",
    ),
    (
        "one player",
        lambda r: r.arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(game="toy", bots=["alpha"])
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "2 to 4 players",
    ),
    (
        "more seats than bots",
        lambda r: r.arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(
                game="toy", bots=["alpha", "beta"], players_per_table=3
            )
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "at least 3 bots",
    ),
    (
        "negative rounds",
        lambda r: r.arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(game="toy", bots=BOTS, rounds=-1)
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "rounds",
    ),
    (
        "negative players",
        lambda r: r.arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(game="toy", bots=BOTS, players_per_table=-2)
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "players",
    ),
    (
        "negative decision time",
        lambda r: r.arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(game="toy", bots=BOTS, decision_time_ms=-5)
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "decision_time_ms",
    ),
    (
        "seed too large",
        lambda r: r.arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(game="toy", bots=BOTS, seed=2**64 - 1)
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "seed",
    ),
    (
        "duplicate bot",
        lambda r: r.arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(game="toy", bots=["alpha", "alpha"])
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "twice",
    ),
    (
        "oversized bot name",
        lambda r: r.arena.CreateTournament(
            arena_pb2.CreateTournamentRequest(game="toy", bots=["a" * 5000, "beta"])
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "longer than",
    ),
    (
        "oversized source",
        lambda r: r.arena.SubmitBot(arena_pb2.SubmitBotRequest(name="big", game="toy", source=BIG)),
        grpc.StatusCode.INVALID_ARGUMENT,
        "limit",
    ),
    (
        "oversized description",
        lambda r: r.arena.SubmitBot(
            arena_pb2.SubmitBotRequest(name="d", game="toy", source="x=1", description="d" * 501)
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "description",
    ),
    (
        "bad bot name",
        lambda r: r.arena.SubmitBot(
            arena_pb2.SubmitBotRequest(name="Bad Name!", game="toy", source="x=1")
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "bad bot name",
    ),
    (
        "syntax error",
        lambda r: r.arena.SubmitBot(
            arena_pb2.SubmitBotRequest(name="s", game="toy", source="def (")
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        "does not compile",
    ),
    (
        "submit for unknown game",
        lambda r: r.arena.SubmitBot(arena_pb2.SubmitBotRequest(name="s", game="go", source="x=1")),
        grpc.StatusCode.NOT_FOUND,
        "unknown game",
    ),
    (
        "name of a built-in bot",
        lambda r: r.arena.SubmitBot(
            arena_pb2.SubmitBotRequest(name="alpha", game="toy", source="x=1")
        ),
        grpc.StatusCode.PERMISSION_DENIED,
        "built-in bot: it belongs to the system",
    ),
    (
        "start unknown tournament",
        lambda r: r.arena.StartTournament(arena_pb2.TournamentRef(tournament_id="t0")),
        grpc.StatusCode.NOT_FOUND,
        "unknown tournament",
    ),
    (
        "empty tournament id",
        lambda r: r.arena.GetTournament(arena_pb2.TournamentRef()),
        grpc.StatusCode.INVALID_ARGUMENT,
        "required",
    ),
    (
        "unknown match",
        lambda r: r.arena.GetMatch(arena_pb2.MatchRef(match_id="m0")),
        grpc.StatusCode.NOT_FOUND,
        "unknown match",
    ),
    (
        "leaderboard of unknown game",
        lambda r: r.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="chess")),
        grpc.StatusCode.NOT_FOUND,
        "unknown game",
    ),
    (
        "retire unknown bot",
        lambda r: r.arena.RetireBot(arena_pb2.RetireBotRequest(name="nobody")),
        grpc.StatusCode.NOT_FOUND,
        "unknown bot",
    ),
    (
        "claim unknown match",
        lambda r: r.host.ClaimMatch(worker_pb2.ClaimMatchRequest(match_id="m0")),
        grpc.StatusCode.NOT_FOUND,
        "unknown match",
    ),
    (
        "fetch unknown code",
        lambda r: r.host.FetchBotCode(worker_pb2.FetchBotCodeRequest(code_sha256="0" * 64)),
        grpc.StatusCode.NOT_FOUND,
        "no bot code",
    ),
    (
        "negative list limit",
        lambda r: r.arena.ListTournaments(arena_pb2.ListTournamentsRequest(limit=-1)),
        grpc.StatusCode.INVALID_ARGUMENT,
        "limit",
    ),
]


@pytest.mark.parametrize(
    ("call", "code", "text"), [c[1:] for c in BAD_REQUESTS], ids=[c[0] for c in BAD_REQUESTS]
)
def test_bad_requests_write_nothing(
    running: Running, call: Call, code: grpc.StatusCode, text: str
) -> None:
    fakeworker.announce(running.worker_channel, ["toy"])
    before = _counts(running)
    with pytest.raises(grpc.RpcError) as err:
        call(running)
    assert err.value.code() == code  # type: ignore[attr-defined]
    assert text in err.value.details()  # type: ignore[attr-defined]
    assert _counts(running) == before
    assert running.queue.sent == []


def test_bad_reports_write_nothing(running: Running) -> None:
    _tournament(running)
    match_id = running.queue.sent[0]
    claim = running.host.ClaimMatch(worker_pb2.ClaimMatchRequest(match_id=match_id, worker_id="w"))
    good = fakeworker.play_outcome(claim.match)
    bad_outcomes = {
        "seat count": worker_pb2.MatchOutcome(scores=[1, 2, 3], ranks=[0, 1, 2]),
        "rank range": worker_pb2.MatchOutcome(scores=[1, 2], ranks=[0, 7]),
        "no winner": worker_pb2.MatchOutcome(scores=[1, 2], ranks=[1, 1]),
        "forfeit seat": worker_pb2.MatchOutcome(
            scores=[1, 2],
            ranks=[0, 1],
            forfeits=[worker_pb2.Forfeit(seat=5, reason=worker_pb2.FORFEIT_REASON_CRASH)],
        ),
        "forfeit reason": worker_pb2.MatchOutcome(
            scores=[1, 2], ranks=[0, 1], forfeits=[worker_pb2.Forfeit(seat=1)]
        ),
        "too many decisions": worker_pb2.MatchOutcome(
            scores=[1, 2], ranks=[0, 1], decisions=[worker_pb2.LoggedDecision(player=0)] * 101
        ),
        "decision player": worker_pb2.MatchOutcome(
            scores=[1, 2], ranks=[0, 1], decisions=[worker_pb2.LoggedDecision(player=9)]
        ),
    }
    for name, outcome in bad_outcomes.items():
        with pytest.raises(grpc.RpcError) as err:
            running.host.ReportMatch(
                worker_pb2.ReportMatchRequest(
                    match_id=match_id, outcome=outcome, attempt_token=claim.attempt_token
                )
            )
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, name  # type: ignore[attr-defined]
        match = running.arena.GetMatch(arena_pb2.MatchRef(match_id=match_id))
        assert match.match.status == common_pb2.MATCH_STATUS_RUNNING and not match.decisions, name
    with pytest.raises(grpc.RpcError) as err:
        running.host.ReportMatch(
            worker_pb2.ReportMatchRequest(match_id=match_id, attempt_token=claim.attempt_token)
        )
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # type: ignore[attr-defined]
    assert running.host.ReportMatch(
        worker_pb2.ReportMatchRequest(
            match_id=match_id, outcome=good, attempt_token=claim.attempt_token
        )
    ).recorded


def test_cancel(running: Running) -> None:
    t = _tournament(running)
    ref = arena_pb2.TournamentRef(tournament_id=t.tournament_id)
    fakeworker.play(running.worker_channel, running.queue.sent[0])
    cancelled = running.arena.CancelTournament(ref)
    assert (cancelled.status, cancelled.matches_cancelled, cancelled.matches_finished) == (
        common_pb2.TOURNAMENT_STATUS_CANCELLED,
        5,
        1,
    )
    with pytest.raises(grpc.RpcError) as err:
        running.arena.StartTournament(ref)
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION  # type: ignore[attr-defined]
    with pytest.raises(grpc.RpcError) as err:
        running.host.ClaimMatch(worker_pb2.ClaimMatchRequest(match_id=running.queue.sent[1]))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION  # type: ignore[attr-defined]
    with pytest.raises(grpc.RpcError) as err:
        running.arena.GetReplay(arena_pb2.MatchRef(match_id=running.queue.sent[1]))
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION  # type: ignore[attr-defined]
    events = list(
        running.arena.WatchTournament(
            arena_pb2.WatchTournamentRequest(tournament_id=t.tournament_id)
        )
    )
    assert events[-1].tournament.status == common_pb2.TOURNAMENT_STATUS_CANCELLED


def test_metrics_count_calls_by_method_and_code(running: Running) -> None:
    running.arena.ListGames(arena_pb2.ListGamesRequest())
    with pytest.raises(grpc.RpcError):
        running.arena.GetMatch(arena_pb2.MatchRef(match_id="nope"))
    get = running.registry.get_sample_value
    assert get("hamlet_grpc_server_handled_total", {"method": "Arena/ListGames", "code": "OK"}) == 1
    assert (
        get("hamlet_grpc_server_handled_total", {"method": "Arena/GetMatch", "code": "NOT_FOUND"})
        == 1
    )
    _tournament(running)
    fakeworker.play(running.worker_channel, running.queue.sent[0])
    assert get("hamlet_server_matches_finished_total", {"game": "toy", "outcome": "completed"}) == 1
    assert get("hamlet_server_matches_enqueued_total") == 6
    assert get("hamlet_match_queue_depth") == 6
