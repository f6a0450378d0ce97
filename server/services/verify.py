"""The server's check of a reported match: replay the log through the engine.

A worker is trusted to play, not to decide. Before a result becomes final the server replays
``(game, seed, seats, actions)`` and refuses the report unless the engine gives the same
decision count, scores and ranks (forfeited seats ranked last), so not even a compromised
worker can record a result the rules did not produce.
"""

from __future__ import annotations

import json

from games.replay import LoggedStep, LogMismatchError, ranks_with_forfeits, replay_log
from server.services import validation as v
from server.services.errors import FailedPreconditionError, InvalidArgumentError
from server.storage import MatchRecord, Outcome

_REFUSED = "the reported result is not what the rules produce"


def verify_outcome(match: MatchRecord, outcome: Outcome) -> None:
    """Raise :class:`InvalidArgumentError` unless the engine reproduces ``outcome`` exactly."""
    spec = v.game_spec(match.game)
    if spec.rules_version != match.rules_version:
        raise FailedPreconditionError(
            f"match {match.match_id} was made for rules {match.rules_version}; this server's "
            f"engine plays {spec.rules_version} and cannot verify it"
        )
    steps = []
    # A match repeats a few dozen distinct actions hundreds of times: parse each text once
    # (the engine then builds each action once too: replay_log memoizes by the dict).
    parsed: dict[str, dict[str, object]] = {}
    for d in outcome.decisions:
        action = parsed.get(d.action_json)
        if action is None:
            try:
                loaded = json.loads(d.action_json)
            except ValueError:
                raise InvalidArgumentError(f"decision {d.index}: action_json is not JSON") from None
            if not isinstance(loaded, dict):
                raise InvalidArgumentError(f"decision {d.index}: action_json is not an object")
            action = parsed[d.action_json] = loaded
        steps.append(LoggedStep(d.player, action, d.legal_count))
    try:
        result = replay_log(spec, len(match.seats), match.seed, steps)
    except LogMismatchError as exc:
        raise InvalidArgumentError(f"{_REFUSED}: {exc}") from None
    forfeited = {i for i, s in enumerate(outcome.seats) if s.forfeit_reason}
    scores = [s.score for s in outcome.seats]
    ranks = [s.rank for s in outcome.seats]
    if scores != list(result.scores):
        raise InvalidArgumentError(
            f"{_REFUSED}: scores {scores}, the engine's {list(result.scores)}"
        )
    expected = list(ranks_with_forfeits(result.ranks, forfeited))
    if ranks != expected:
        raise InvalidArgumentError(f"{_REFUSED}: ranks {ranks}, the engine's {expected}")
    for i, seat in enumerate(outcome.seats):
        at = seat.forfeit_at
        if seat.forfeit_reason and at is not None and not 0 <= at <= len(steps):
            raise InvalidArgumentError(f"seat {i}: forfeit at decision {at}, outside the log")
