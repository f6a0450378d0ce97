"""A stand-in worker for server tests: claims over gRPC, plays random legal moves in process,
reports over gRPC. (The real workers live in ``workers/``; the server never imports them.)"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import grpc

import games
from hamlet.v1 import worker_pb2, worker_pb2_grpc

#: The dispatch window of servers whose tests play matches with this stand-in: every waiting
#: block is sent at once (``queue.sent`` holds them all), as the tests expect; the window's
#: own behaviour is tested in tests/server/test_dispatch.py.
FAKE_WORKER_WINDOW = 100_000


def announce(
    channel: grpc.Channel, game_names: list[str], bots: tuple[str, ...] = ("alpha", "beta", "gamma")
) -> None:
    """Register built-in bots that play ``game_names`` (``channel`` carries a worker token)."""
    stub = worker_pb2_grpc.MatchHostStub(channel)
    stub.AnnounceWorker(
        worker_pb2.AnnounceWorkerRequest(
            worker_id="fake",
            builtin_bots=[
                worker_pb2.BuiltinBot(name=b, games=game_names, description=f"{b} bot")
                for b in bots
            ],
        )
    )


def play(
    channel: grpc.Channel,
    match_id: str,
    forfeit_seat: int | None = None,
    edit: Callable[[worker_pb2.MatchSpec, worker_pb2.MatchOutcome], None] | None = None,
) -> worker_pb2.ReportMatchResponse:
    """Claim, play and report one match; ``forfeit_seat`` crashes at its first decision;
    ``edit`` changes the outcome before it is reported (e.g. adds seat traces)."""
    stub = worker_pb2_grpc.MatchHostStub(channel)
    claim = stub.ClaimMatch(worker_pb2.ClaimMatchRequest(match_id=match_id, worker_id="fake"))
    if claim.already_final:
        return worker_pb2.ReportMatchResponse(duplicate=True)
    outcome = play_outcome(claim.match, forfeit_seat)
    if edit is not None:
        edit(claim.match, outcome)
    return stub.ReportMatch(
        worker_pb2.ReportMatchRequest(
            match_id=match_id,
            worker_id="fake",
            outcome=outcome,
            attempt_token=claim.attempt_token,
        )
    )


def play_outcome(
    spec: worker_pb2.MatchSpec, forfeit_seat: int | None = None
) -> worker_pb2.MatchOutcome:
    """Play a match spec with random legal moves (seeded by the match seed)."""
    state = games.get(spec.game).new_game(num_players=len(spec.seats), seed=spec.seed)
    rng = random.Random(spec.seed)
    decisions = []
    forfeits = []
    while not state.is_over():
        player = state.to_move()
        assert player is not None
        legal = state.legal_actions()
        action = rng.choice(legal)
        fallback = forfeit_seat == player
        if fallback and not forfeits:
            forfeits.append(
                worker_pb2.Forfeit(
                    seat=player,
                    reason=worker_pb2.FORFEIT_REASON_CRASH,
                    detail="boom",
                    at_decision=len(decisions),
                )
            )
        decisions.append(
            worker_pb2.LoggedDecision(
                player=player,
                legal_count=len(legal),
                action_json=json.dumps(games.action_to_dict(action)),
                action_text=str(action),
                seconds=0.001,
                by_fallback=fallback,
            )
        )
        state.apply(action)
    result = state.result()
    ranks = list(result.ranks)
    if forfeit_seat is not None:
        ranks[forfeit_seat] = len(ranks) - 1
        if 0 not in ranks:
            ranks = [0 if i != forfeit_seat else r for i, r in enumerate(ranks)]
    return worker_pb2.MatchOutcome(
        scores=list(result.scores),
        ranks=ranks,
        forfeits=forfeits,
        decisions=decisions,
        duration_seconds=0.01,
    )


def honest_trace(
    spec: worker_pb2.MatchSpec, outcome: worker_pb2.MatchOutcome, seat: int, stderr: str = ""
) -> worker_pb2.SeatTrace:
    """The trace a worker would report for ``seat`` of a played outcome: per decision the
    index of the logged action (the fault at a forfeit), and ``stderr`` at each."""
    state = games.get(spec.game).new_game(num_players=len(spec.seats), seed=spec.seed)
    steps = []
    forfeit = next((f for f in outcome.forfeits if f.seat == seat), None)
    for i, d in enumerate(outcome.decisions):
        legal = state.legal_actions()
        action = games.get(spec.game).action_from_dict(json.loads(d.action_json))
        if d.player == seat and (not d.by_fallback or (forfeit and forfeit.at_decision == i)):
            fault = "crash: boom" if d.by_fallback else ""
            steps.append(
                worker_pb2.TracedDecision(
                    seat_decision=len(steps),
                    answer=-1 if fault else legal.index(action),
                    milliseconds=1,
                    stderr=stderr,
                    fault=fault,
                )
            )
        state.apply(action)
    return worker_pb2.SeatTrace(seat=seat, decisions=steps, stderr_tail=stderr)


def play_block(
    channel: grpc.Channel, match_ids: list[str], task_id: str = "task", only: int | None = None
) -> tuple[worker_pb2.ClaimBlockResponse, worker_pb2.ReportBlockResponse | None]:
    """Claim a block, play its claimed matches (the first ``only`` of them, if given: a
    worker dying part-way) and report them in one ReportBlock call."""
    stub = worker_pb2_grpc.MatchHostStub(channel)
    claims = stub.ClaimBlock(
        worker_pb2.ClaimBlockRequest(match_ids=match_ids, worker_id="fake", task_id=task_id)
    )
    playable = [c for c in claims.claims if not c.skipped and not c.claim.already_final]
    reports = [
        worker_pb2.ReportMatchRequest(
            match_id=c.match_id,
            worker_id="fake",
            outcome=play_outcome(c.claim.match),
            attempt_token=c.claim.attempt_token,
        )
        for c in playable[:only]
    ]
    if not reports:
        return claims, None
    return claims, stub.ReportBlock(
        worker_pb2.ReportBlockRequest(worker_id="fake", reports=reports)
    )
