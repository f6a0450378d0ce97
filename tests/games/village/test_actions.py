"""The actions A-G (V-HAR, V-FAM, V-CRF, V-TRV, V-CNC, V-CHU), their decision points
(V-DP-7 ... V-DP-15), the FAQ clarifications and the examples T-01, T-07, T-09."""

from __future__ import annotations

from games.village import data as vd
from tests.games.village.helpers import at_action, count, give, kind, legal, move, new, play, strip


def _fresh(n: int = 4):  # type: ignore[no-untyped-def]
    s = new(n)
    strip(s, 0)
    return s


# --- harvest ----------------------------------------------------------------------------


def test_V_HAR_1_harvest_needs_a_member_on_the_farmyard() -> None:
    s = _fresh()
    move(s, 0, "farmyard", "building:office", 1, 4)
    at_action(s, 0, "harvest")
    # only DECLINE was left: applied automatically, the turn is over
    assert s.to_move() == 1 and s.grain[0] == 0


def test_V_HAR_2_two_three_or_four_grain() -> None:
    for goods, gain in (({}, 2), ({"horse": 1, "plough": 1}, 3), ({"ox": 1, "plough": 1}, 4)):
        s = _fresh()
        give(s, 0, goods=goods | {"horse": 1} if gain == 4 else goods)
        at_action(s, 0, "harvest")
        play(s, "harvest")
        assert s.grain[0] == gain
        assert sum(s.goods[0]) == sum(goods.values()) + (1 if gain == 4 else 0)


def test_V_HAR_3_never_more_than_five_grain() -> None:
    """Covers: V-HAR-3 (G-28: harvest with 5 grain stays legal and gains nothing)."""
    s = _fresh()
    give(s, 0, grain=4, goods={"ox": 1, "plough": 1})
    at_action(s, 0, "harvest")
    play(s, "harvest")
    assert s.grain[0] == 5
    at_action(s, 0, "harvest")
    play(s, "harvest")
    assert s.grain[0] == 5


def test_V_DP_7_harvest_options() -> None:
    s = _fresh()
    at_action(s, 0, "harvest")
    assert legal(s) == ["harvest", "decline"]


# --- family -----------------------------------------------------------------------------


def test_V_FAM_1_birth_or_return_a_placed_member() -> None:
    s = _fresh()
    move(s, 0, "farmyard", "town:T1", 1)
    at_action(s, 0, "family")
    assert legal(s) == ["birth", "return gen1 from town:T1", "decline"]
    play(s, "return gen1 from town:T1")
    assert count(s, 0, "farmyard", 1) == 4
    at_action(s, 0, "family")
    play(s, "birth")
    assert count(s, 0, "farmyard", 2) == 1


def test_T_07_birth_takes_the_lowest_generation() -> None:
    s = _fresh()
    move(s, 0, "unborn", "farmyard", 2, 2)  # supply: one 2, two 3s, two 4s
    at_action(s, 0, "family")
    play(s, "birth")
    assert count(s, 0, "farmyard", 2) == 3 and count(s, 0, "unborn", 2) == 0
    assert count(s, 0, "unborn", 3) == 2


def test_V_FAM_2_members_in_the_black_bag_cannot_be_returned() -> None:
    s = _fresh()
    move(s, 0, "farmyard", "bag", 1)
    at_action(s, 0, "family")
    assert legal(s) == ["birth", "decline"]


def test_V_FAM_3_returned_traveller_leaves_markers() -> None:
    s = _fresh()
    give(s, 0, cubes={"brown": 2}, goods={"wagon": 1})
    at_action(s, 0, "travel")
    play(s, "travel gen1 farmyard -> town:T1")
    assert s.markers[0] == 1
    at_action(s, 0, "family")
    play(s, "return gen1 from town:T1")
    assert s.markers[0] == 1 and count(s, 0, "town:T1") == 0


def test_V_FAM_4_members_sent_out_come_from_the_farmyard() -> None:
    """Placing on the board or in the bag only offers farmyard members (any generation)."""
    s = _fresh()
    move(s, 0, "farmyard", "council:1", 1, 3)
    move(s, 0, "unborn", "farmyard", 4)
    at_action(s, 0, "church")
    assert legal(s) == ["church gen1 pay time", "church gen4 pay time", "decline"]


def test_V_DP_8_family_options() -> None:
    s = _fresh()
    for g in (2, 3, 4):
        move(s, 0, "unborn", "farmyard", g, vd.GENERATIONS[g - 1])
    move(s, 0, "farmyard", "church:2", 3)
    move(s, 0, "farmyard", "building:stables", 2)
    at_action(s, 0, "family")
    assert legal(s) == [
        "return gen2 from building:stables",
        "return gen3 from church:2",
        "decline",
    ]


# --- crafts -----------------------------------------------------------------------------


def test_T_01_wainwright_train_and_build_or_buy() -> None:
    """Covers: T-01
    Covers: V-CRF-2"""
    s = _fresh()
    at_action(s, 0, "crafts")
    play(s, "train gen1 at wainwright and produce wagon")
    assert s.time[0] == 4 and s.goods[0][vd.WAGON] == 1
    assert count(s, 0, "building:wainwright") == 1
    t = _fresh()
    give(t, 0, cubes={"orange": 1, "pink": 1})
    at_action(t, 0, "crafts")
    play(t, "buy wagon at wainwright")
    assert t.time[0] == 0 and t.goods[0][vd.WAGON] == 1 and sum(t.cubes[0]) == 0


def test_V_CRF_1_one_good_or_the_mill_once() -> None:
    s = _fresh()
    give(s, 0, grain=5, cubes={"orange": 4})
    at_action(s, 0, "crafts")
    play(s, "buy plough at smithy")
    assert s.goods[0][vd.PLOUGH] == 1 and s.to_move() == 1


def test_V_CRF_2_trained_members_stay_and_produce_for_produce_time() -> None:
    s = _fresh()
    at_action(s, 0, "crafts")
    play(s, "train gen1 at office")
    assert s.time[0] == 1 and count(s, 0, "building:office") == 1
    at_action(s, 0, "crafts")
    assert "train gen1 at office" in legal(s)  # a second member is allowed (G-20)
    play(s, "produce scroll at office")
    assert s.time[0] == 1 + 4 and s.goods[0][vd.SCROLL] == 1


def test_V_CRF_3_buy_with_cubes_or_grain() -> None:
    s = _fresh()
    give(s, 0, grain=3)
    at_action(s, 0, "crafts")
    assert "buy horse at stables" in legal(s) and "buy ox at stables" in legal(s)
    play(s, "buy ox at stables")
    assert s.grain[0] == 0 and s.goods[0][vd.OX] == 1


def test_V_FAQ_1_buying_needs_no_member_on_the_building() -> None:
    s = _fresh()
    move(s, 0, "farmyard", "church:1", 1, 4)
    give(s, 0, cubes={"pink": 2})
    at_action(s, 0, "crafts")
    play(s, "buy scroll at office")
    assert s.goods[0][vd.SCROLL] == 1


def test_V_CRF_4_members_produce_only_their_buildings_goods() -> None:
    s = _fresh()
    move(s, 0, "farmyard", "building:stables", 1)
    move(s, 0, "farmyard", "building:smithy", 1)
    at_action(s, 0, "crafts")
    produce = [x for x in legal(s) if x.startswith("produce")]
    assert produce == [
        "produce horse at stables",
        "produce ox at stables",
        "produce plough at smithy",
    ]


def test_V_CRF_5_mill_two_time_two_grain_two_coins() -> None:
    s = _fresh()
    give(s, 0, grain=2)
    move(s, 0, "farmyard", "church:1", 1, 4)
    at_action(s, 0, "crafts")
    assert not any("mill" in x and "train" in x for x in legal(s))
    play(s, "mill")
    assert s.time[0] == 2 and s.grain[0] == 0 and s.coins[0] == 2


def test_V_CRF_6_goods_storage_unlimited() -> None:
    s = _fresh()
    give(s, 0, cubes={"orange": 16})
    for _ in range(8):
        at_action(s, 0, "crafts")
        play(s, "buy plough at smithy")
    assert s.goods[0][vd.PLOUGH] == 8


def test_V_CRF_7_goods_need_supply_training_stays_legal_mill_pays_what_is_left() -> None:
    s = _fresh()
    give(s, 1, goods={"wagon": 8})
    give(s, 0, cubes={"orange": 1, "pink": 1}, grain=2)
    s.sup_coins, s.coins[2] = 1, s.coins[2] + s.sup_coins - 1
    at_action(s, 0, "crafts")
    opts = legal(s)
    assert not any("wagon" in x for x in opts)
    assert "train gen1 at wainwright" in opts
    play(s, "mill")
    assert s.coins[0] == 1 and s.sup_coins == 0


def test_V_DP_9_crafts_options() -> None:
    s = _fresh()
    give(s, 0, grain=3)
    move(s, 0, "farmyard", "building:office", 1, 3)
    at_action(s, 0, "crafts")
    assert legal(s) == [
        "buy horse at stables",
        "buy ox at stables",
        "produce scroll at office",
        "train gen1 at wainwright and produce wagon",
        "train gen1 at wainwright",
        "train gen1 at stables and produce horse",
        "train gen1 at stables and produce ox",
        "train gen1 at stables",
        "train gen1 at office and produce scroll",
        "train gen1 at office",
        "train gen1 at smithy and produce plough",
        "train gen1 at smithy",
        "mill",
        "decline",
    ]


# --- travel -----------------------------------------------------------------------------


def test_T_09_first_trip_north_pays_and_scores_three() -> None:
    """Covers: T-09
    Covers: V-TRV-1"""
    s = _fresh()
    give(s, 0, cubes={"brown": 2, "pink": 2}, goods={"wagon": 1})
    at_action(s, 0, "travel")
    assert legal(s) == [
        "travel gen1 farmyard -> town:T1",
        "travel gen1 farmyard -> town:T2",
        "decline",
    ]
    play(s, "travel gen1 farmyard -> town:T1")
    assert s.time[0] == 2 and s.goods[0][vd.WAGON] == 0 and s.cubes[0][vd.BROWN] == 0
    assert s.markers[0] == 1 and s.prestige[0] == 3 and count(s, 0, "town:T1") == 1


def test_V_TRV_2_new_member_or_move_one_to_an_adjacent_town() -> None:
    s = _fresh()
    give(s, 0, cubes={"orange": 2, "pink": 2, "brown": 2}, goods={"wagon": 1})
    move(s, 0, "farmyard", "town:T1", 1)
    at_action(s, 0, "travel")
    assert legal(s) == [
        "travel gen1 farmyard -> town:T1",
        "travel gen1 farmyard -> town:T2",
        "travel gen1 town:T1 -> town:T3",
        "travel gen1 town:T1 -> town:T4",
        "decline",
    ]


def test_V_TRV_3_path_cost_time_wagon_cubes() -> None:
    s = _fresh()
    give(s, 0, cubes={"pink": 2}, goods={"wagon": 2})
    at_action(s, 0, "travel")
    play(s, "travel gen1 farmyard -> town:T2")
    assert s.time[0] == 2 and s.goods[0][vd.WAGON] == 1 and s.cubes[0][vd.PINK] == 0
    assert s.coins[0] == 1  # T2's reward (placeholder): 1 coin


def test_V_TRV_4_reward_only_once_per_town() -> None:
    s = _fresh()
    give(s, 0, cubes={"brown": 4}, goods={"wagon": 2})
    at_action(s, 0, "travel")
    play(s, "travel gen1 farmyard -> town:T1")
    at_action(s, 0, "travel")
    play(s, "travel gen1 farmyard -> town:T1")
    assert s.prestige[0] == 3 and count(s, 0, "town:T1") == 2 and s.markers[0] == 1


def test_V_TRV_5_towns_shared_at_most_six_markers() -> None:
    s = _fresh()
    move(s, 1, "farmyard", "town:T1", 1)
    give(s, 0, cubes={"brown": 2}, goods={"wagon": 1})
    at_action(s, 0, "travel")
    play(s, "travel gen1 farmyard -> town:T1")
    assert count(s, 1, "town:T1") == 1 and count(s, 0, "town:T1") == 1
    assert vd.TRAVEL_MARKERS == 6 == len(vd.TOWN_NAMES)


def test_V_TRV_6_one_path_per_action_never_back_to_the_village() -> None:
    s = _fresh()
    give(s, 0, cubes={"orange": 4, "pink": 4, "brown": 4}, goods={"wagon": 3})
    move(s, 0, "farmyard", "town:T1", 1, 4)
    at_action(s, 0, "travel")
    assert all("farmyard" not in x.split("->")[-1] for x in legal(s))
    play(s, "travel gen1 town:T1 -> town:T3")
    assert count(s, 0, "town:T3") == 1 and s.goods[0][vd.WAGON] == 2 and s.time[0] == 2


def test_V_TRV_7_rewards_from_an_empty_supply() -> None:
    """A coin reward from an empty coin supply gives nothing, the marker is placed anyway;
    a cube reward gives what the supply holds (one cube -> one, taken automatically).
    Covers: V-TRV-7"""
    s = _fresh()
    give(s, 0, cubes={"pink": 2}, goods={"wagon": 1})
    s.coins[3] += s.sup_coins
    s.sup_coins = 0
    at_action(s, 0, "travel")
    play(s, "travel gen1 farmyard -> town:T2")
    assert s.markers[0] == 0b10 and s.coins[0] == 0
    t = _fresh()
    give(t, 0, coins=2, goods={"wagon": 1})
    move(t, 0, "farmyard", "town:T2", 1)
    t.markers[0] = 0b10
    for c in range(4):
        t.cubes[3][c] += t.sup_cubes[c]
        t.sup_cubes[c] = 0
    t.cubes[3][vd.PINK] -= 1
    t.sup_cubes[vd.PINK] = 1
    at_action(t, 0, "travel")
    play(t, "travel gen1 town:T2 -> town:T5 +2coin")
    assert t.cubes[0][vd.PINK] == 1 and t.markers[0] & (1 << 4)
    assert t.to_move() == 1


def test_V_DP_10_travel_options_with_splits() -> None:
    s = _fresh()
    give(s, 0, cubes={"brown": 1}, goods={"wagon": 1}, coins=2)
    at_action(s, 0, "travel")
    assert legal(s) == [
        "travel gen1 farmyard -> town:T1 +1coin",
        "travel gen1 farmyard -> town:T1 +2coin",
        "travel gen1 farmyard -> town:T2 +2coin",
        "decline",
    ]


def test_V_DP_13_cubes_of_choice_pairs() -> None:
    s = _fresh()
    give(s, 0, cubes={"pink": 2}, goods={"wagon": 2})
    move(s, 0, "farmyard", "town:T2", 1)
    s.markers[0] = 0b10
    give(s, 0, cubes={"brown": 2})
    at_action(s, 0, "travel")
    play(s, "travel gen1 town:T2 -> town:T5")
    assert kind(s) == "cubes_of_choice"
    assert legal(s) == [
        "cubes brown+brown",
        "cubes brown+pink",
        "cubes brown+orange",
        "cubes brown+green",
        "cubes pink+pink",
        "cubes pink+orange",
        "cubes pink+green",
        "cubes orange+orange",
        "cubes orange+green",
        "cubes green+green",
    ]
    play(s, "cubes pink+green")
    assert s.cubes[0][vd.PINK] == 3 and s.cubes[0][vd.GREEN] == 1


# --- council ----------------------------------------------------------------------------


def test_V_CNC_1_enter_advance_or_use() -> None:
    s = _fresh()
    give(s, 0, goods={"scroll": 2})
    at_action(s, 0, "council")
    play(s, "enter council gen1 pay scroll")
    assert s.time[0] == 1 and count(s, 0, "council:1") == 1
    play(s, "privilege 1")
    at_action(s, 0, "council")
    play(s, "advance gen1 council 1->2 pay scroll")
    assert s.time[0] == 1 + 2 and count(s, 0, "council:2") == 1
    assert kind(s) == "privilege"
    play(s, "no privilege")
    at_action(s, 0, "council")
    assert "use privilege 2" in legal(s) and "use privilege 1" not in legal(s)


def test_V_CNC_2_one_privilege_per_action() -> None:
    s = _fresh()
    give(s, 0, goods={"scroll": 1})
    move(s, 0, "farmyard", "council:2", 1)
    at_action(s, 0, "council")
    play(s, "advance gen1 council 2->3 pay scroll")
    play(s, "privilege 3")
    play(s, "take ox")
    assert s.to_move() == 1 and s.goods[0][vd.OX] == 1 and sum(s.cubes[0]) == 0


def test_V_CNC_3_stage_one_takes_the_marker_if_still_there() -> None:
    s = _fresh()
    move(s, 0, "farmyard", "council:1", 1)
    move(s, 0, "farmyard", "council:2", 1)
    s.nsp = 2
    at_action(s, 0, "council")
    assert "use privilege 1" not in legal(s)
    s.nsp = -1
    at_action(s, 0, "council")
    play(s, "use privilege 1")
    assert s.nsp == 0


def test_V_CNC_4_stage_two_two_cubes_of_choice() -> None:
    s = _fresh()
    move(s, 0, "farmyard", "council:2", 1)
    at_action(s, 0, "council")
    play(s, "use privilege 2")
    play(s, "cubes orange+orange")
    assert s.cubes[0][vd.ORANGE] == 2


def test_V_CNC_5_stage_three_goods_tile_of_choice() -> None:
    """Covers: V-CNC-5
    Covers: V-DP-14"""
    s = _fresh()
    move(s, 0, "farmyard", "council:3", 1)
    give(s, 1, goods={"horse": 8})
    at_action(s, 0, "council")
    play(s, "use privilege 3")
    assert legal(s) == ["take scroll", "take plough", "take ox", "take wagon"]
    play(s, "take wagon")
    assert s.goods[0][vd.WAGON] == 1


def test_V_CNC_6_stage_four_one_coin_for_three_points() -> None:
    s = _fresh()
    move(s, 0, "farmyard", "council:4", 1)
    at_action(s, 0, "council")
    assert "use privilege 4" not in legal(s)  # no coin: no effect (G-35)
    give(s, 0, coins=1)
    at_action(s, 0, "council")
    play(s, "use privilege 4")
    assert s.coins[0] == 0 and s.prestige[0] == 3


def test_V_CNC_7_no_limit_per_stage() -> None:
    s = _fresh()
    give(s, 0, goods={"scroll": 4})
    for _ in range(4):
        at_action(s, 0, "council")
        play(s, "enter council gen1 pay scroll")
        if kind(s) == "privilege":
            play(s, "no privilege")
    assert count(s, 0, "council:1") == 4
    move(s, 1, "farmyard", "council:1", 1)
    assert count(s, 1, "council:1") == 1


def test_V_DP_11_council_options() -> None:
    s = _fresh()
    give(s, 0, goods={"scroll": 1})
    move(s, 0, "farmyard", "council:3", 1, 3)
    at_action(s, 0, "council")
    assert legal(s) == [
        "enter council gen1 pay scroll",
        "advance gen1 council 3->4 pay scroll",
        "use privilege 1",
        "use privilege 2",
        "use privilege 3",
        "decline",
    ]


def test_V_DP_12_privilege_after_moving() -> None:
    s = _fresh()
    give(s, 0, cubes={"green": 2}, coins=1)
    move(s, 0, "farmyard", "council:3", 1)
    s.nsp = 1
    at_action(s, 0, "council")
    play(s, "advance gen1 council 3->4 pay green")
    assert s.time[0] == 3
    assert legal(s) == ["privilege 2", "privilege 3", "privilege 4", "no privilege"]
    play(s, "privilege 4")
    assert s.prestige[0] == 3


# --- church -----------------------------------------------------------------------------


def test_V_CHU_1_member_into_the_black_bag() -> None:
    """Covers: V-CHU-1
    Covers: V-DP-15"""
    s = _fresh()
    give(s, 0, cubes={"brown": 1}, coins=1)
    move(s, 0, "unborn", "farmyard", 2)
    at_action(s, 0, "church")
    assert legal(s) == [
        "church gen1 pay brown",
        "church gen1 pay coin",
        "church gen1 pay time",
        "church gen2 pay brown",
        "church gen2 pay coin",
        "church gen2 pay time",
        "decline",
    ]
    play(s, "church gen2 pay brown")
    assert count(s, 0, "bag", 2) == 1 and s.cubes[0][vd.BROWN] == 0
    assert s.public_state()["players"][0]["members"]["bag"] == [0, 1, 0, 0]


def test_V_DP_14_good_of_choice_lists_supply_goods() -> None:
    s = _fresh()
    move(s, 0, "farmyard", "council:3", 1)
    at_action(s, 0, "council")
    play(s, "use privilege 3")
    assert legal(s) == [f"take {g}" for g in vd.GOOD_NAMES]


def test_V_DP_15_church_options_without_brown_or_coin() -> None:
    s = _fresh()
    at_action(s, 0, "church")
    assert legal(s) == ["church gen1 pay time", "decline"]


def test_V_FAQ_2_any_generation_may_be_placed() -> None:
    s = _fresh()
    move(s, 0, "unborn", "farmyard", 3)
    at_action(s, 0, "crafts")
    play(s, "train gen3 at office")
    assert count(s, 0, "building:office", 3) == 1


def test_V_FAQ_6_members_stay_until_returned_or_dead() -> None:
    s = _fresh()
    at_action(s, 0, "crafts")
    play(s, "train gen1 at office")
    at_action(s, 0, "council")
    # the office worker cannot be moved to the council: only farmyard members enter
    give(s, 0, goods={"scroll": 1})
    at_action(s, 0, "council")
    assert all("gen1" in x for x in legal(s) if x.startswith("enter"))
    assert count(s, 0, "building:office") == 1
    at_action(s, 0, "family")
    play(s, "return gen1 from building:office")
    assert count(s, 0, "building:office") == 0
