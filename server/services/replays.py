"""A stored match replayed through its engine from (game, seed, log): the public state after
every decision, and whether the engine's result is the recorded one.

Pure over the records it is given (no store, no publication rules: the caller,
:meth:`server.services.matches.MatchService.replay`, decides who may see a replay and when).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import games
from games.replay import ranks_with_forfeits
from server.services import validation as v
from server.services.errors import FailedPreconditionError
from server.storage import DecisionRecord, MatchRecord


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One decision replayed: who, what, and the public state after it."""

    index: int
    player: int
    legal_count: int
    action: games.Action
    action_text: str
    by_fallback: bool
    public_state: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Replay:
    """A stored match replayed through the engine from (game, seed, log)."""

    match: MatchRecord
    initial_state: dict[str, Any]
    steps: tuple[ReplayStep, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    matches_record: bool
    #: The engine's ranks before forfeited seats are put last (what :func:`judge` takes).
    engine_ranks: tuple[int, ...] = ()


def judge(
    match: MatchRecord, scores: Sequence[int], engine_ranks: Sequence[int]
) -> tuple[tuple[int, ...], bool]:
    """The ranks the engine's result gives the match as recorded (forfeited seats last), and
    whether scores and ranks are the recorded ones. A replay cached for a final match is
    judged again against the record on every read: the record is what is checked."""
    forfeited = {s.seat for s in match.seats if s.forfeit_reason}
    ranks = tuple(ranks_with_forfeits(engine_ranks, forfeited))
    same_scores = list(scores) == [s.score for s in match.seats]
    same_ranks = list(ranks) == [s.rank for s in match.seats]
    return ranks, same_scores and same_ranks


def replay_match(match: MatchRecord, decisions: Sequence[DecisionRecord]) -> Replay:
    """Replay a finished match's log; FAILED_PRECONDITION if the log does not replay."""
    match_id = match.match_id
    spec = v.game_spec(match.game)
    state = spec.new_game(num_players=len(match.seats), seed=match.seed)
    initial = state.public_state()
    steps = []
    for d in decisions:
        try:
            action = spec.action_from_dict(json.loads(d.action_json))
            state.apply(action)
        except Exception as exc:  # a worker's log is data: it may not replay
            raise FailedPreconditionError(
                f"the log of match {match_id} does not replay at decision {d.index}: "
                f"{type(exc).__name__}"
            ) from None
        steps.append(
            ReplayStep(
                d.index,
                d.player,
                d.legal_count,
                action,
                d.action_text,
                d.by_fallback,
                state.public_state(),
            )
        )
    if not state.is_over():
        raise FailedPreconditionError(
            f"the log of match {match_id} does not reach the end of the game"
        )
    result = state.result()
    # The recorded ranks put forfeited seats last: compare like with like.
    ranks, agrees = judge(match, result.scores, result.ranks)
    return Replay(
        match=match,
        initial_state=initial,
        steps=tuple(steps),
        scores=tuple(result.scores),
        ranks=ranks,
        matches_record=agrees,
        engine_ranks=tuple(result.ranks),
    )
