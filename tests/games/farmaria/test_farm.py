"""The farm: fields, space, stables, placement, moving, demolishing (FM-FARM-*)."""

from __future__ import annotations

import random

from games.farmaria.farm import (
    ROOM_CLASS,
    acquirable_types,
    can_acquire,
    farm_use,
    locations_for,
)
from games.farmaria.state import FarmariaState
from tests.games.farmaria.helpers import (
    SPEC,
    act,
    at_3a,
    at_4a,
    blank,
    d,
    farm_names,
    field,
    hand,
    put,
    strs,
)


def _full(s, p: int = 0) -> list[bool]:  # type: ignore[no-untyped-def]
    return [f["full"] for f in s.observation(p)["players"][p]["farm"]]


def test_T_13_field_capacity_and_full_fields() -> None:
    """Covers: T-13
    Covers: FM-FARM-2
    Covers: FM-CONV-3"""
    legal_full = [
        [("cow", -1, 4), ("apple", -1, 2)],
        [("hen", -1, 4), ("cow", -1, 1), ("olive", -1, 2), ("tractor", -1, 1)],
        [("stable", -1, 1), ("cow", 0, 2), ("sheep", -1, 4)],
        [("stable", -1, 1), ("hen", 0, 4), ("apple", -1, 4)],
    ]
    for contents in legal_full:
        s = blank(("michalis", "anthi"))
        for name, st, n in contents:
            put(s, 0, name, 0, st, n)
        assert _full(s) == [True]
    s = blank(("michalis", "anthi"))
    put(s, 0, "stable")
    put(s, 0, "cow", 0, 0)
    put(s, 0, "apple", n=4)
    assert _full(s) == [False]  # 5 units
    hand(s, 0, sel=["apple", "hen"])
    s.wallet[0] = 20
    at_3a(s, 0)
    assert "buy apple from hand" not in strs(s)  # 1 stable + 5 plants is illegal
    assert "buy hen from hand" in strs(s)  # the stable still has room for a small animal
    s = blank(("michalis", "anthi"))
    put(s, 0, "stable", n=3)
    hand(s, 0, sel=["apple", "stable"])
    s.wallet[0] = 20
    at_3a(s, 0)
    assert "buy apple from hand" not in strs(s) and "buy stable from hand" not in strs(s)


def test_T_21_full_field_vp() -> None:
    """Covers: T-21
    Covers: FM-FARM-8"""
    s = blank(("michalis", "anthi"))
    put(s, 0, "stable")
    put(s, 0, "cow", 0, 0, 2)
    put(s, 0, "apple", n=4)
    s.wallet[0] = 0
    at_4a(s)
    assert s.vp[0] - s.wallet[0] // 10 == 12
    s = blank(("michalis", "anthi"))
    put(s, 0, "stable")
    put(s, 0, "cow", 0, 0, 2)
    put(s, 0, "apple", n=4)
    s.wallet[0] = 0
    at_3a(s, 0)
    act(s, "sell cow F0/S0")
    s.wallet[0] = 0
    at_4a(s)
    assert s.vp[0] - s.wallet[0] // 10 == 8


def test_FM_FARM_1_hand_goods_are_not_owned() -> None:
    s = blank(("michalis", "anthi"))
    hand(s, 0, sel=["horse"], fd=["cow"])
    s.wallet[0] = 0
    at_4a(s)
    assert s.vp[0] == 0 and s.wallet[0] == 5  # no income, no upkeep, no VP from hand cards


def test_FM_FARM_3_placement_choice() -> None:
    """FM-DEC-8: the buyer chooses the field and, for an animal, a stable with room.
    Covers: FM-DEC-8"""
    s = blank(("michalis", "anthi"))
    put(s, 0, "stable")
    field(s, 0)
    hand(s, 0, sel=["cow", "apple", "field"])
    s.wallet[0] = 30
    at_3a(s, 0)
    act(s, "buy cow from hand")
    assert strs(s) == ["place F0", "place F0/S0", "place F1"]
    act(s, "place F0/S0")
    act(s, "buy apple from hand")
    assert strs(s) == ["place F0", "place F1"]
    act(s, "place F1")
    act(s, "buy field from hand")  # a field needs no place: a new field
    assert farm_names(s, 0) == [["cow", "stable"], ["apple"], []]


def test_T_28_one_move_per_good() -> None:
    """Covers: T-28
    Covers: FM-FARM-4
    Covers: FM-FARM-6
    Covers: FM-DEC-9
    Covers: FM-DEC-10"""
    s = blank(("michalis", "anthi"))
    put(s, 0, "cow")
    put(s, 0, "stable")
    put(s, 0, "sheep", 0, 0, 2)
    f2 = field(s, 0)
    put(s, 0, "stable", f2)
    at_3a(s, 0)
    act(s, "move cow F0")
    assert strs(s) == ["place F1", "place F1/S0"]  # every legal location except its own
    act(s, "place F1/S0")
    assert "move cow F1/S0" not in strs(s)  # moved once this 3a
    assert "move sheep F0/S0" in strs(s)
    act(s, "demolish F0/S0")
    assert s.observation(0)["decision"]["kind"] == "relocate"
    # FM-AMB-46: another field (F1, its outside or its stable beside the cow), never F0
    assert strs(s) == ["place F1", "place F1/S0", "sell it"]
    act(s, "place F1/S0")
    assert strs(s) == ["place F1", "sell it"]  # the second sheep: F0 is still not offered
    act(s, "sell it")
    assert farm_names(s, 0) == [[], ["cow", "sheep", "stable"]]
    assert s.wallet[0] == 6 + 3
    assert "move sheep F1/S0" in strs(s)  # relocation was not a move (FM-AMB-49)
    assert len(s.removed) == 1  # the stable left the game, not to the CM


def test_FM_FARM_5_one_tractor() -> None:
    s = blank(("michalis", "argyri"))
    put(s, 0, "tractor")
    hand(s, 0, sel=["tractor", "apple"])
    hand(s, 1, sel=["tractor", "apple"])
    s.wallet = [30, 30]
    at_3a(s, 0)
    assert "buy tractor from hand" not in strs(s)
    at_3a(s, 1)
    assert "buy tractor from hand" not in strs(s)  # Argyri never owns one


def test_FM_FARM_7_animals_only_sold() -> None:
    """Owned animals and the tractor can leave the farm only by a sale."""
    s = blank(("michalis", "anthi"))
    put(s, 0, "cow")
    put(s, 0, "tractor")
    at_3a(s, 0)
    about = [x for x in strs(s) if "cow" in x or "tractor" in x]
    assert about == ["sell tractor F0", "sell cow F0"] or about == [
        "sell cow F0",
        "sell tractor F0",
    ]


def test_FM_DEC_8_room_counts_match_the_location_lists() -> None:
    """Covers: FM-DEC-8
    Covers: FM-FARM-3

    The option lists count room (``farm_use``, ``acquirable_types``) instead of listing
    locations: both must agree with ``locations_for`` / ``can_acquire`` on real farms."""
    checked = 0
    for n, seed in ((2, 3), (4, 5), (6, 7)):
        s = SPEC.new_game(num_players=n, seed=seed)
        rng = random.Random(seed)
        while not s.is_over():
            assert isinstance(s, FarmariaState)
            for p in range(s.n):
                _, _, rooms = farm_use(s.farm[p])
                mask = acquirable_types(s, p)
                for t in range(d.NUM_GOODS):
                    assert bool(mask >> t & 1) == can_acquire(s, p, t)
                    if t != d.FIELD:
                        assert rooms[ROOM_CLASS[t]] == len(locations_for(s.farm[p], t))
                checked += 1
            legal = s.legal_actions()
            s.apply(legal[rng.randrange(len(legal))])
    assert checked > 1000
