"""hamlet.codec: every action type of every registered game round-trips through protobuf."""

from __future__ import annotations

import dataclasses
import enum
import io
import itertools
import random
import typing
from typing import Any

import pytest

import games
from hamlet import codec
from hamlet.v1 import common_pb2

WIRE_GAMES = [g for g in games.names() if g in codec.GAME_MODULES]


def _values(hint: Any) -> list[Any]:
    """Sample values for one field annotation (every member of an enum)."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is tuple:
        inner = _values(args[0])
        return [(), tuple(inner[:2]), tuple(inner[-1:] * 3)]
    if type(None) in args:
        return [None, *_values(next(a for a in args if a is not type(None)))]
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return list(hint)
    if hint is bool:
        return [False, True]
    if hint is int:
        return [0, 3, -1, 2**31 - 1]
    if hint is str:
        return ["", "x", "Ελληνικά"]
    raise AssertionError(f"no sample values for {hint!r}")


def samples(cls: type[games.Action]) -> list[games.Action]:
    """Instances covering every value of every field (not a full product: one field varies)."""
    hints = typing.get_type_hints(cls)
    fields = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
    options = {name: _values(hints[name]) for name in fields}
    base = {name: vals[0] for name, vals in options.items()}
    out = [cls(**base)]
    for name, vals in options.items():
        out += [cls(**{**base, name: v}) for v in vals[1:]]
    return out


def test_every_registered_game_has_wire_messages() -> None:
    missing = [g for g in games.names() if g not in codec.GAME_MODULES]
    assert not missing, f"registered games without a proto file / codec line: {missing}"


@pytest.mark.parametrize("game", WIRE_GAMES)
def test_every_action_type_has_a_message(game: str) -> None:
    assert codec.missing_action_messages(game) == []


@pytest.mark.parametrize("game", WIRE_GAMES)
def test_every_action_type_round_trips(game: str) -> None:
    for cls in games.get(game).action_types:
        for action in samples(cls):
            wrapped = codec.action_to_proto(game, action)
            again = type(wrapped).FromString(wrapped.SerializeToString())
            assert codec.action_from_proto(game, again) == action
            common = codec.game_action(game, action)
            again_common = common_pb2.GameAction.FromString(common.SerializeToString())
            assert codec.action_from_proto(game, again_common) == action


@pytest.mark.parametrize("game", WIRE_GAMES)
def test_decision_requests_carry_observation_and_legal_actions(game: str) -> None:
    spec = games.get(game)
    state = spec.new_game(num_players=spec.min_players, seed=11)
    rng = random.Random(3)
    for index in range(40):
        if state.is_over():
            break
        seat = state.to_move()
        assert seat is not None
        legal = state.legal_actions()
        obs = state.observation(seat)
        req = codec.decision_request(game, "m-1", seat, index, obs, legal, 750)
        req = common_pb2.DecisionRequest.FromString(req.SerializeToString())
        assert (req.game, req.match_id, req.seat, req.seat_decision_index, req.time_left_ms) == (
            game,
            "m-1",
            seat,
            index,
            750,
        )
        assert codec.observation_from_request(req) == obs
        assert codec.legal_from_request(req) == [games.action_to_dict(a) for a in legal]
        state.apply(rng.choice(legal))


def test_missing_message_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests import toygame

    toygame.register(monkeypatch)
    village = codec.game_messages("village")
    codec.register_messages("toy", village)  # a wrapper without a `play` field
    try:
        assert codec.missing_action_messages("toy") == ["Play"]
        with pytest.raises(codec.CodecError, match="no field 'play'"):
            codec.action_to_proto("toy", toygame.Play(3))
    finally:
        codec.unregister_messages("toy")


def test_unknown_game_has_no_messages() -> None:
    with pytest.raises(codec.CodecError, match="no protobuf messages"):
        codec.game_messages("chess")


def test_wrong_game_in_wrapper_is_rejected() -> None:
    action = games.get("village").action_types[0]
    sample = samples(action)[0]
    msg = codec.game_action("village", sample)
    other = next((g for g in WIRE_GAMES if g != "village"), None)
    if other is None:
        pytest.skip("only one game on the wire")
    with pytest.raises(codec.CodecError, match="expected a"):
        codec.action_from_proto(other, msg)
    with pytest.raises(codec.CodecError, match="carries no action"):
        codec.action_from_proto("village", codec.game_messages("village").action())


def test_struct_keeps_whole_numbers_as_ints() -> None:
    data = {"a": 1, "b": [1.5, 2, {"c": True, "d": None, "e": "x"}]}
    assert codec.struct_to_dict(codec.dict_to_struct(data)) == data


@pytest.mark.parametrize("sizes", [[0], [1, 5, 0, 70000], [3] * 10])
def test_frames_round_trip(sizes: list[int]) -> None:
    stream = io.BytesIO()
    payloads = [bytes([i % 251]) * n for i, n in enumerate(sizes)]
    for p in payloads:
        codec.write_frame(stream, p)
    stream.seek(0)
    got = list(iter(lambda: codec.read_frame(stream), None))
    assert got == payloads


def test_frame_errors() -> None:
    with pytest.raises(codec.FrameError, match="exceeds"):
        codec.read_frame(io.BytesIO((100).to_bytes(4, "big") + b"x" * 100), max_bytes=10)
    with pytest.raises(codec.FrameError, match="header"):
        codec.read_frame(io.BytesIO(b"\x00\x00"))
    with pytest.raises(codec.FrameError, match="after 2 of 5"):
        codec.read_frame(io.BytesIO((5).to_bytes(4, "big") + b"ab"))
    assert codec.read_frame(io.BytesIO(b"")) is None


def test_names() -> None:
    assert codec.snake("PayWellCoins") == "pay_well_coins"
    assert codec.camel("my_village") == "MyVillage"
    assert codec.upper_snake("building:wainwright") == "BUILDING_WAINWRIGHT"
    assert list(itertools.islice(codec.GAME_MODULES, 1)) == ["village"]
