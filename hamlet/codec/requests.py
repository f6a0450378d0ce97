"""Decision requests and the common ``GameAction``/``GameObservation`` oneof wrappers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import games
from games import Action
from hamlet.codec.actions import action_from_proto, action_to_proto
from hamlet.codec.messages import CodecError
from hamlet.codec.observations import observation_from_proto, observation_to_proto
from hamlet.v1 import common_pb2


def game_action(game: str, action: Action) -> common_pb2.GameAction:
    """``action`` wrapped for the common ``GameAction`` oneof."""
    out = common_pb2.GameAction()
    if game not in out.DESCRIPTOR.fields_by_name:
        raise CodecError(f"GameAction has no field for game {game!r} (add it to common.proto)")
    getattr(out, game).CopyFrom(action_to_proto(game, action))
    return out


def game_observation(game: str, observation: Mapping[str, Any]) -> common_pb2.GameObservation:
    """``observation`` wrapped for the common ``GameObservation`` oneof."""
    out = common_pb2.GameObservation()
    if game not in out.DESCRIPTOR.fields_by_name:
        raise CodecError(f"GameObservation has no field for game {game!r} (add it to common.proto)")
    getattr(out, game).CopyFrom(observation_to_proto(game, observation))
    return out


def decision_request(
    game: str,
    match_id: str,
    seat: int,
    seat_decision_index: int,
    observation: Mapping[str, Any],
    legal: list[Action],
    time_left_ms: int,
) -> common_pb2.DecisionRequest:
    """The request a bot answers for one decision.

    ``seat_decision_index`` counts this seat's own decisions only: a match-wide count would
    tell the seat how many decisions the others were asked, some of them hidden (a defence
    asked only of a player holding the card). See docs/bot-authors.md, "What a request
    does not tell you"."""
    return common_pb2.DecisionRequest(
        match_id=match_id,
        game=game,
        seat=seat,
        seat_decision_index=seat_decision_index,
        observation=game_observation(game, observation),
        legal_actions=[game_action(game, a) for a in legal],
        time_left_ms=max(0, int(time_left_ms)),
    )


def legal_from_request(req: common_pb2.DecisionRequest) -> list[dict[str, Any]]:
    """The legal actions of a request as action dicts (``games.action_to_dict`` form)."""
    return [games.action_to_dict(action_from_proto(req.game, a)) for a in req.legal_actions]


def observation_from_request(req: common_pb2.DecisionRequest) -> dict[str, Any]:
    """The observation dict of a request."""
    return observation_from_proto(req.game, req.observation)
