"""The JSON framing: every message of every game survives the protobuf JSON mapping.

Whole seeded games of every game are played at random at its fewest and most players; every decision
request of every seat goes through :func:`codec.encode_message` in JSON and back and must be
the identical message (and so the identical observation dict and legal actions); every
action type's sample values do the same inside a request's ``legal_actions``.
"""

from __future__ import annotations

import io
import json
import random

import pytest

import games
from bots import sdk
from hamlet import codec
from hamlet.v1 import common_pb2
from tests.hamlet.test_codec import WIRE_GAMES, samples

JSON = codec.Framing.JSON


def round_trip(request: common_pb2.DecisionRequest) -> common_pb2.DecisionRequest:
    payload = codec.encode_message(request, JSON)
    json.loads(payload)  # plain JSON text, readable without protobuf
    return codec.decode_message(payload, common_pb2.DecisionRequest, JSON)


#: Each game at its fewest and most players (the observation's lists differ in length).
TABLES = [
    (game, players)
    for game in WIRE_GAMES
    for players in sorted({games.get(game).min_players, games.get(game).max_players})
]


@pytest.mark.parametrize(("game", "players"), TABLES)
def test_every_request_of_a_whole_game_round_trips(game: str, players: int) -> None:
    state = games.get(game).new_game(num_players=players, seed=players)
    rng = random.Random(players)
    asked = [0] * players
    while not state.is_over():
        seat = state.to_move()
        assert seat is not None
        legal = state.legal_actions()
        obs = state.observation(seat)
        request = codec.decision_request(game, "m", seat, asked[seat], obs, legal, 11_000)
        again = round_trip(request)
        assert again == request
        assert codec.observation_from_request(again) == obs
        assert codec.legal_from_request(again) == [games.action_to_dict(a) for a in legal]
        asked[seat] += 1
        state.apply(rng.choice(legal))
    assert all(asked)


@pytest.mark.parametrize("game", WIRE_GAMES)
def test_every_action_type_round_trips_in_a_request(game: str) -> None:
    state = games.get(game).new_game(num_players=games.get(game).min_players, seed=1)
    obs = state.observation(0)
    for cls in games.get(game).action_types:
        legal = samples(cls)
        request = codec.decision_request(game, "m", 0, 0, obs, legal, 0)
        again = round_trip(request)
        assert again == request
        assert [codec.action_from_proto(game, a) for a in again.legal_actions] == legal


def test_the_json_form_is_the_documented_one() -> None:
    """Field names as in the .proto files, defaults written, int64 as strings, enum names."""
    state = games.get("village").new_game(num_players=2, seed=1)
    request = codec.decision_request(
        "village", "m-1", 0, 0, state.observation(0), state.legal_actions(), 11_000
    )
    data = json.loads(codec.encode_message(request, JSON))
    assert data["seat"] == 0 and data["seat_decision_index"] == 0
    assert data["time_left_ms"] == "11000"
    assert data["game"] == "village" and data["match_id"] == "m-1"
    assert set(data["observation"]) == {"village"}
    first = data["legal_actions"][0]["village"]
    (kind,) = first
    assert kind == codec.snake(type(state.legal_actions()[0]).__name__)
    assert all(isinstance(v, str) and v.startswith("VILLAGE_") for v in first[kind].values())


@pytest.mark.parametrize("index", [0, 1, 7, 2**31 - 1])
def test_responses_round_trip_in_either_spelling(index: int) -> None:
    response = common_pb2.DecisionResponse(action_index=index)
    payload = codec.encode_message(response, JSON)
    assert json.loads(payload) == {"action_index": index}
    for text in (payload, json.dumps({"actionIndex": index}).encode()):
        assert codec.decode_message(text, common_pb2.DecisionResponse, JSON) == response


@pytest.mark.parametrize(
    "payload",
    [b"", b"3", b"not json", b'{"action_index": "x"}', b'{"index": 1}', b"\xff\xfe", b"[" * 5000],
)
def test_an_answer_that_is_no_response_is_a_codec_error(payload: bytes) -> None:
    with pytest.raises(codec.CodecError, match="json framing"):
        codec.decode_message(payload, common_pb2.DecisionResponse, JSON)


def test_protobuf_framing_is_the_binary_form() -> None:
    response = common_pb2.DecisionResponse(action_index=4)
    payload = codec.encode_message(response, codec.Framing.PROTOBUF)
    assert payload == response.SerializeToString()
    assert codec.decode_message(payload, common_pb2.DecisionResponse, codec.Framing.PROTOBUF) == (
        response
    )
    with pytest.raises(codec.CodecError, match="protobuf framing"):
        codec.decode_message(b"\xff\xff", common_pb2.DecisionResponse, codec.Framing.PROTOBUF)


def test_the_sdk_answers_json_frames() -> None:
    state = games.get("village").new_game(num_players=2, seed=3)
    request = codec.decision_request(
        "village", "m", 0, 0, state.observation(0), state.legal_actions(), 500
    )
    inp = io.BytesIO()
    codec.write_frame(inp, codec.encode_message(request, JSON))
    inp.seek(0)
    out = io.BytesIO()
    sdk.run(lambda observation, legal: len(legal) - 1, stdin=inp, stdout=out, framing=JSON)
    out.seek(0)
    frame = codec.read_frame(out)
    assert frame is not None and json.loads(frame) == {
        "action_index": len(state.legal_actions()) - 1
    }
