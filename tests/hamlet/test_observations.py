"""Typed observations: every game's observation dict round-trips exactly through protobuf.

The schemas in ``proto/hamlet/v1/<game>.proto`` mirror ``State.observation(seat)``; these tests
play random games of every registered game at every player count and check at every decision
that the dict comes back from the wire identical, types included (ints stay ints, ``None``
stays ``None``, absent keys stay absent, empty lists and dicts stay). ``ParseDict`` is strict,
so a key the engine adds and the schema lacks fails here.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

import games
from hamlet import codec
from hamlet.v1 import common_pb2, farmaria_pb2, my_village_pb2, shape_pb2, village_pb2

WIRE_GAMES = [g for g in games.names() if g in codec.GAME_MODULES]
SEEDS = range(3)


def typed(value: Any) -> Any:
    """``value`` with the type of every scalar, list and dict made part of it."""
    if isinstance(value, dict):
        return ("dict", sorted((k, typed(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (type(value).__name__, [typed(v) for v in value])
    return (type(value).__name__, value)


def wire_round_trip(game: str, obs: dict[str, Any]) -> dict[str, Any]:
    """``obs`` to the game's message, to bytes and back, and to a dict again."""
    msg = codec.observation_to_proto(game, obs)
    again = type(msg).FromString(msg.SerializeToString())
    return codec.observation_from_proto(game, again)


def _cases() -> list[tuple[str, int]]:
    return [
        (g, n)
        for g in WIRE_GAMES
        for n in range(games.get(g).min_players, games.get(g).max_players + 1)
    ]


@pytest.mark.parametrize(("game", "num_players"), _cases())
def test_observations_round_trip_exactly(game: str, num_players: int) -> None:
    spec = games.get(game)
    kinds: set[str] = set()
    for seed in SEEDS:
        state = spec.new_game(num_players=num_players, seed=seed)
        rng = random.Random(1000 + seed)
        steps = 0
        while True:
            seat = state.to_move()
            viewers = [0] if seat is None else [seat, (seat + 1) % num_players]
            for viewer in viewers:
                obs = state.observation(viewer)
                kinds.add(str(obs["decision"]["kind"]))  # type: ignore[index]
                back = codec.observation_from_proto(game, codec.observation_to_proto(game, obs))
                assert typed(back) == typed(obs), f"{game} seed {seed} step {steps} seat {viewer}"
            if seat is None:
                break
            if steps % 25 == 0:  # bytes on the wire too, now and then
                assert typed(wire_round_trip(game, obs)) == typed(obs)
            state.apply(rng.choice(state.legal_actions()))
            steps += 1
    assert len(kinds) > 2, f"the random games of {game} met too few kinds of decision: {kinds}"


@pytest.mark.parametrize("game", WIRE_GAMES)
def test_observation_messages_are_typed(game: str) -> None:
    descriptor = codec.game_messages(game).observation.DESCRIPTOR
    structs = [f.full_name for f in _all_fields(descriptor) if _is_struct(f)]
    assert not structs, f"{game}'s observation still carries untyped Structs: {structs}"


@pytest.mark.parametrize("game", WIRE_GAMES)
def test_unknown_observation_key_is_an_error(game: str) -> None:
    obs = games.get(game).new_game(num_players=games.get(game).min_players, seed=1).observation(0)
    with pytest.raises(codec.CodecError, match="does not fit"):
        codec.observation_to_proto(game, {**obs, "not_in_the_schema": 1})
    nested = {**obs, "decision": {**obs["decision"], "not_in_the_schema": 1}}  # type: ignore[dict-item]
    with pytest.raises(codec.CodecError, match="not_in_the_schema"):
        codec.observation_to_proto(game, nested)


@pytest.mark.parametrize("game", WIRE_GAMES)
def test_wrong_value_type_is_an_error(game: str) -> None:
    obs = games.get(game).new_game(num_players=games.get(game).min_players, seed=1).observation(0)
    with pytest.raises(codec.CodecError):
        codec.observation_to_proto(game, {**obs, "decision": {**obs["decision"], "kind": 3}})  # type: ignore[dict-item]
    with pytest.raises(codec.CodecError):
        codec.observation_to_proto(game, {**obs, "players": "many"})


def test_null_absent_and_empty_are_kept_apart() -> None:
    """The codec's shape rules on a hand-made Village observation."""
    obs = village_pb2.VillageObservation()
    obs.decision.kind = "turn"
    base = codec.message_to_dict(obs)
    assert base["next_starting_player"] is None  # null_if_unset: a key holding None
    assert "board" not in base  # an unset message: an absent key
    assert "space" not in base["decision"]  # an unset optional: an absent key
    assert "passed" not in base["decision"]  # an unset list wrapper: an absent key
    assert base["green_bag"] == {} and base["players"] == []
    filled = {
        **base,
        "decision": {"kind": "market", "player": None, "passed": []},
        "market": {"stalls": [None, "C01", ""], "queue": [], "pile": 0},
    }
    assert typed(codec.observation_from_proto("village", _to("village", filled))) == typed(filled)


def test_tuple_and_union_forms() -> None:
    die = codec.message_to_dict(my_village_pb2.MyVillageDie(colour="black", value=3))
    assert die == ["black", 3]
    card = farmaria_pb2.FarmariaItem(card="bull")
    assert codec.message_to_dict(card) == "bull"
    bundle = farmaria_pb2.FarmariaItem(bundle=farmaria_pb2.FarmariaField(outside=["cow"]))
    assert codec.message_to_dict(bundle) == {
        "bundle": {"stables": [], "outside": ["cow"], "full": False}
    }
    stack = farmaria_pb2.FarmariaMarketStack(size=0)
    assert codec.message_to_dict(stack) == {"top": None, "size": 0}
    again = farmaria_pb2.FarmariaMarketStack()
    codec.dict_to_message({"top": {"bundle": {"stables": [["hen"], []]}}, "size": 2}, again)
    assert list(again.top.bundle.stables[0].values) == ["hen"]
    assert codec.message_to_dict(again)["top"]["bundle"]["stables"] == [["hen"], []]
    with pytest.raises(Exception, match="list of 2 values"):
        codec.dict_to_message({"pool": [["white"]]}, my_village_pb2.MyVillageObservation())


def test_observation_scalars_are_int32_bool_or_string() -> None:
    allowed = {FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_BOOL, FieldDescriptor.TYPE_STRING}
    for game in WIRE_GAMES:
        descriptor = codec.game_messages(game).observation.DESCRIPTOR
        odd = [
            f.full_name
            for f in _all_fields(descriptor)
            if f.message_type is None and f.type not in allowed
        ]
        assert not odd, f"{game}: scalars other than int32/bool/string: {odd}"
    stalls = village_pb2.VillageMarket.DESCRIPTOR.fields_by_name["stalls"]
    assert stalls.message_type == shape_pb2.NullableString.DESCRIPTOR


def test_decision_request_carries_the_typed_observation() -> None:
    state = games.get("farmaria").new_game(num_players=3, seed=5)
    seat = state.to_move()
    assert seat is not None
    obs = state.observation(seat)
    req = codec.decision_request("farmaria", "m", seat, 0, obs, state.legal_actions(), 100)
    req = common_pb2.DecisionRequest.FromString(req.SerializeToString())
    assert req.observation.farmaria.year == obs["year"]
    assert typed(codec.observation_from_request(req)) == typed(obs)


def _to(game: str, obs: dict[str, Any]) -> Message:
    return codec.observation_to_proto(game, obs)


def _all_fields(descriptor: Any, seen: set[str] | None = None) -> list[Any]:
    seen = set() if seen is None else seen
    if descriptor.full_name in seen:
        return []
    seen.add(descriptor.full_name)
    out = list(descriptor.fields)
    for field in descriptor.fields:
        if field.message_type is not None and not _is_struct(field):
            out += _all_fields(field.message_type, seen)
    return out


def _is_struct(field: Any) -> bool:
    return field.message_type is not None and field.message_type.full_name.startswith(
        "google.protobuf."
    )


def _my_village_goods_payment() -> games.State:
    """My Village asking which source pays a black banner's good (MV-DP-5): random play
    almost never gets there, so the schema is checked on the rule test's set-up."""
    from games.my_village import data as md
    from tests.games.my_village.helpers import act, give, new, to_value, village

    st = new(2)
    st.monk_stacks[0] = ["M-P1"]
    give(st, 0, "OF-3")
    village(st).craft_goods[md.GOOD_INDEX[md.Good.PARCHMENT]] = 1
    village(st).wildcards = 1
    to_value(st, 4)
    act(st, "black MONK_PEN")
    assert st.observation(0)["decision"]["kind"] == "payment"
    return st


def _farmaria_demolish_while_paying() -> games.State:
    """Farmaria offering to demolish a stable during the year's payment (FM-FARM-6)."""
    from tests.games.farmaria.helpers import at_4a, strs
    from tests.games.farmaria.test_demolition import _tasos_with_stable

    st = _tasos_with_stable("tax", "merchant")
    at_4a(st)
    assert "demolish F0/S0" in strs(st)
    return st


def _my_village_meeting_point_white() -> games.State:
    """My Village offering the meeting point's white banner (MV-WHT-4), never met at random."""
    from tests.games.my_village.test_banners import _meeting_point_on_12

    st, _ = _meeting_point_on_12()
    assert "white meeting_point" in [str(a) for a in st.legal_actions()]
    return st


def _farmaria_repay_after_a_bridge_loan() -> games.State:
    """Farmaria's repayment after a bridge loan (the loan and its interest shown)."""
    from tests.games.farmaria.helpers import act, at_4a
    from tests.games.farmaria.test_demolition import _tasos_with_stable

    st = _tasos_with_stable("tax", "merchant")
    st.debt[0] = 4
    at_4a(st)
    act(st, "borrow")
    assert st.observation(0)["decision"]["kind"] == "repay_4a"
    return st


@pytest.mark.parametrize(
    ("game", "build"),
    [
        ("my_village", _my_village_goods_payment),
        ("my_village", _my_village_meeting_point_white),
        ("farmaria", _farmaria_demolish_while_paying),
        ("farmaria", _farmaria_repay_after_a_bridge_loan),
    ],
)
def test_rarely_reached_decisions_round_trip_exactly(game: str, build: Any) -> None:
    state = build()
    for player in range(state.num_players):
        obs = state.observation(player)
        assert typed(wire_round_trip(game, obs)) == typed(obs)
    for action in state.legal_actions():  # the options too, as a bot receives them
        assert codec.action_from_proto(game, codec.action_to_proto(game, action)) == action


SEAT_KEY = {"village": "player", "my_village": "player", "farmaria": "me"}


@pytest.mark.parametrize("game", sorted(SEAT_KEY))
def test_the_seat_key_of_each_game_is_the_documented_one(game: str) -> None:
    """docs/bot-authors.md's seat-key table: the key names the seat that was asked, along a
    whole random playout, for every seat."""
    assert set(SEAT_KEY) == set(games.names())
    rng = random.Random(3)
    state = games.get(game).new_game(num_players=3, seed=3)
    while not state.is_over():
        for seat in range(3):
            assert state.observation(seat)[SEAT_KEY[game]] == seat
        state.apply(rng.choice(state.legal_actions()))
