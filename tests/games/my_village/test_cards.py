"""Card types (C.9), goods (C.10), the school (C.8) and the gap resolutions about them."""

from __future__ import annotations

from games.my_village import data as md
from games.my_village.player import PLOUGHED
from games.my_village.rounds import Phase
from tests.games.my_village.helpers import (
    act,
    give,
    new,
    options,
    to_value,
    top,
    turn_of,
    village,
)

BEER = md.GOOD_INDEX[md.Good.BEER]
HORSE = md.GOOD_INDEX[md.Good.HORSE]
CART = md.GOOD_INDEX[md.Good.CART]
PARCHMENT = md.GOOD_INDEX[md.Good.PARCHMENT]
PLOUGH = md.PLOUGH


def _plain(st: object) -> None:
    """Give the player to move a play banner no test value uses (2 and 12 are free)."""
    village(st).play_values = (2, 12)  # type: ignore[arg-type]


def test_MV_CH_1_one_church_and_the_abbot() -> None:
    st = new(2)
    v = village(st)
    v.coins = 5
    give(st, 0, "CH-1")
    to_value(st, 8)
    assert "black CH-2" not in options(st)
    st = new(2)
    v = village(st)
    v.coins = 5
    v.villagers[md.ABBOT] = False
    to_value(st, 8)
    assert "black CH-2" not in options(st)


def test_MV_CH_2_monastery_church_window_and_monk_limit() -> None:
    st = new(2)
    v = village(st)
    give(st, 0, "CH-1")
    for m in ("M-R1", "M-R2", "M-R3", "M-C1", "M-C2"):
        give(st, 0, m)
    assert v.windows() == 6
    st.monk_stacks[2] = ["M-R4"]
    to_value(st, 6)
    assert "black MONK_ROSARY" not in options(st)  # 5 monks with the monastery church


def test_MV_CH_3_church_of_salvation_immune_to_plague() -> None:
    """Covers: MV-CH-3
    MV-RAT-3"""
    st = new(2)
    give(st, 1, "CH-2")
    st.villages[0].sp_tree = 7
    st.villages[0].sp_house = 4
    st.villages[1].sp_tree = 7
    st.hand_sp = 3
    st.rat = 11  # any roll enters the red space 0
    st.monk_stacks = [[], [], []]
    v = village(st)
    v.time_pos = 10
    to_value(st, 2)  # only the chronicle (1 time): it crosses the bridge
    assert st.phase is Phase.DEATH and v.sp_house == 11
    v.sp_tree = 7
    act(st, "bury abbot")  # +2 SP (chronicle space), then the rat: plague
    assert st.rat == 0 and st.plagues == 1
    assert v.sp_tree == 9 - 4 and v.sp_house == 11  # half of 9, rounded down, is lost
    assert st.villages[1].sp_tree == 7  # immune
    assert st.hand_sp == 3  # SP on the hand are safe


def test_MV_MONK_1_top_card_effect_once() -> None:
    st = new(2)
    v = village(st)
    st.monk_stacks[1] = ["M-C2", "M-C1"]
    v.craft_goods[BEER] = 1
    v.crafts[BEER] = "BR-3"
    st.craft_cols[BEER].remove("BR-3")
    v.coins = 0
    to_value(st, 6)
    act(st, "black MONK_CUP")
    assert v.monks == ["M-C1"] and v.coins == 3 and v.craft_goods[BEER] == 0
    assert st.monk_stacks[1] == ["M-C2"]


def test_MV_MONK_2_six_monks_and_abbot_no_church_needed() -> None:
    st = new(2)
    v = village(st)
    st.monk_stacks[0] = ["M-P1"]
    v.wildcards = 1
    for m in ("M-R1", "M-R2", "M-R3", "M-C1", "M-C2", "M-C3"):
        give(st, 0, m)
    to_value(st, 4)
    assert "black MONK_PEN" not in options(st)  # a 7th monk
    st = new(2)
    v = village(st)
    st.monk_stacks[2] = ["M-R1"]
    to_value(st, 7)
    assert "black MONK_ROSARY" in options(st) and not v.church  # no church card needed
    st = new(2)
    v = village(st)
    st.monk_stacks[2] = ["M-R1"]
    v.villagers[md.ABBOT] = False
    to_value(st, 7)
    assert "black MONK_ROSARY" not in options(st)


def test_MV_CC_1_one_chamber_with_councilman() -> None:
    """Covers: MV-CC-1
    EX-2"""
    st = new(2)
    v = village(st)
    v.coins = 0
    to_value(st, 3)
    act(st, "black CC-1")
    assert v.chamber == "CC-1" and v.coins == 2 and v.time_pos == 5
    turn_of(st, 0)
    v.coins = 5
    to_value(st, 9)
    assert "black CC-2" not in options(st)  # already owns a chamber
    st = new(2)
    village(st).villagers[md.COUNCILMAN] = False
    to_value(st, 3)
    assert "black CC-1" not in options(st)


def test_EX_2_treasury_with_value_three() -> None:
    """EX-2 (MV-CC-1, MV-BLK-4): value 3, 4 time, +2 coins, card open in the council area;
    illegal with a chamber already owned or without the councilman."""
    st = new(2)
    v = village(st)
    v.coins = 1
    to_value(st, 3)
    act(st, "black CC-1")
    assert (v.chamber, v.coins, v.time_pos) == ("CC-1", 3, 5)
    assert "CC-1" not in st.council_col
    st = new(2)
    give(st, 0, "CC-4")
    to_value(st, 3)
    assert "black CC-1" not in options(st)


def test_MV_MP_1_one_meeting_point_with_councilman() -> None:
    st = new(2)
    v = village(st)
    v.coins = 3
    give(st, 0, "MEETING_POINT")
    to_value(st, 8)
    assert "black MEETING_POINT" not in options(st)
    st = new(2)
    v = village(st)
    v.coins = 3
    v.villagers[md.COUNCILMAN] = False
    to_value(st, 8)
    assert "black MEETING_POINT" not in options(st)
    st = new(2)
    v = village(st)
    v.coins = 3
    to_value(st, 8)
    act(st, "black MEETING_POINT")
    assert v.meeting_point and v.mp_markers == [1] and v.coins == 2 and v.time_pos == 3


def test_MV_MP_2_markers_are_neither_goods_nor_coins() -> None:
    st = new(2)
    v = village(st)
    give(st, 0, "MEETING_POINT")
    v.mp_markers = [0, 0, 0]
    v.coins = 0
    assert v.goods_total() == 0
    st.monk_stacks[2] = ["M-R2"]  # costs 1 coin
    to_value(st, 4)
    assert "black MONK_ROSARY" not in options(st)


def test_MV_FIELD_1_any_number_no_villager() -> None:
    st = new(2)
    v = village(st)
    v.villagers = [False] * 5
    for _ in range(3):
        give(st, 0, "FIELD")
    to_value(st, 7)
    act(st, "black FIELD")
    assert len(v.fields) == 4 and v.coins == 2


def test_MV_FIELD_2_ploughs_onto_fields_never_between_fields() -> None:
    """Covers: MV-FIELD-2
    MV-GAP-7"""
    st = new(2)
    v = village(st)
    give(st, 0, "FIELD")
    top(st, st.craft_cols[PLOUGH], "SM-3")
    to_value(st, 3)
    act(st, "black SM-3")  # the smithy produces a plough: it moves onto the field
    assert v.fields == [PLOUGHED] and v.craft_goods[PLOUGH] == 0
    turn_of(st, 0)
    to_value(st, 7)
    act(st, "black FIELD")  # acquiring a field moves a waiting smithy plough too
    assert len(v.fields) == 2
    turn_of(st, 0)
    v.craft_goods[PLOUGH] = 1
    v.fields.append(0)
    st.field_stack -= 1
    to_value(st, 7)
    act(st, "black FIELD")
    assert v.fields.count(PLOUGHED) == 2 and v.craft_goods[PLOUGH] == 0


def test_MV_FIELD_3_plough_on_field_pays_and_earns() -> None:
    """Covers: MV-FIELD-3
    MV-GOODS-1"""
    st = new(2)
    v = village(st)
    give(st, 0, "FIELD")
    v.fields[0] = PLOUGHED
    v.coins = 0
    _plain(st)
    to_value(st, 7)
    act(st, "white banners")
    assert v.coins == 2 and v.fields[0] & PLOUGHED  # +1 extra, the plough stays
    turn_of(st, 0)
    give(st, 0, "K08")  # 5/9, one plough
    to_value(st, 9)
    act(st, "white banners")
    assert v.served == ["K08"] and v.fields == [0]


def test_MV_CRAFT_1_craftsman_and_one_per_kind() -> None:
    st = new(2)
    v = village(st)
    v.coins = 5
    give(st, 0, "BR-3")
    top(st, st.craft_cols[BEER], "BR-1")
    top(st, st.craft_cols[HORSE], "ST-1")
    to_value(st, 5)
    opts = options(st)
    assert "black BR-1" not in opts and "black ST-1" in opts
    st = new(2)
    v = village(st)
    v.coins = 5
    v.villagers[md.CRAFTSMAN] = False
    to_value(st, 5)
    assert not any(o.startswith("black ST") for o in options(st))


def test_MV_CRAFT_2_black_and_white_produce_one_good() -> None:
    """Covers: MV-CRAFT-2
    MV-GOODS-2"""
    st = new(2)
    v = village(st)
    top(st, st.craft_cols[BEER], "BR-3")
    to_value(st, 3)
    act(st, "black BR-3")
    assert v.crafts[BEER] == "BR-3" and v.craft_goods[BEER] == 1
    turn_of(st, 0)
    _plain(st)
    to_value(st, 7)
    act(st, "white banners")
    assert v.craft_goods[BEER] == 2
    turn_of(st, 0)
    to_value(st, 7)
    assert "white banners" not in options(st)  # the brewery is full


def test_MV_TRAVEL_1_traveller_next_letter_only() -> None:
    st = new(2)
    v = village(st)
    give(st, 0, "T-A1")
    st.travel_stacks[0] = ["T-A3"]
    st.travel_stacks[1] = ["T-B2"]
    v.coins = 3
    to_value(st, 3)
    assert "black TRAVEL" in options(st)
    act(st, "black TRAVEL")
    assert v.travel == ["T-A1", "T-B2"]
    st = new(2)
    v = village(st)
    v.villagers[md.TRAVELLER] = False
    st.travel_stacks[0] = ["T-A1"]
    to_value(st, 3)
    assert "black TRAVEL" not in options(st)


def test_MV_TRAVEL_2_surcharge_of_the_last_card() -> None:
    st = new(2)
    v = village(st)
    give(st, 0, "T-A1")  # next stage costs 1 coin
    st.travel_stacks[1] = ["T-B2"]
    v.coins = 0
    to_value(st, 3)
    assert "black TRAVEL" not in options(st)
    st = new(2)
    v = village(st)
    give(st, 0, "T-A2")  # next stage costs 2 time
    st.travel_stacks[1] = ["T-B2"]
    to_value(st, 3)
    act(st, "black TRAVEL")
    assert v.time_pos == 1 + 3 + 2


def test_MV_TRAVEL_3_sp_on_acquire() -> None:
    st = new(2)
    v = village(st)
    st.travel_stacks[0] = ["T-A1"]
    to_value(st, 8)
    act(st, "black TRAVEL")
    assert v.sp_tree == 1 and v.time_pos == 3


def test_MV_CUST_2_trade_church_takes_one_customer_and_refills() -> None:
    """Covers: MV-CUST-2
    MV-GAP-10
    MV-CUST-4 (the customer taken this turn is not offered for serving this turn)"""
    st = new(2)
    v = village(st)
    give(st, 0, "CH-3")
    if "K33" not in st.display:  # a "?" customer (2 carts) in the display
        st.deck[st.deck.index("K33")] = st.display[2]
        st.display[2] = "K33"
    shown = st.display[:]
    top = st.deck[-1]
    _plain(st)
    v.craft_goods[CART] = 2  # it could be served at once, but for MV-CUST-4
    to_value(st, 10)
    act(st, "white banners")
    act(st, f"white church {shown[2]}")
    assert v.waiting == [shown[2]] and st.display == shown[:2] + shown[3:] + [top]
    assert not any(shown[2] in o for o in options(st))  # not in the same turn


def test_MV_CUST_3_serving_needs_merchant_and_exact_goods() -> None:
    st = new(2)
    v = village(st)
    give(st, 0, "K24")  # 6/9, horse + beer + plough, 1 time, 7 PP
    v.craft_goods[HORSE] = 1
    v.craft_goods[BEER] = 1
    v.craft_goods[PLOUGH] = 1
    v.villagers[md.MERCHANT] = False
    _plain(st)
    to_value(st, 9)
    assert "white banners" not in options(st)
    turn_of(st, 0)
    v.villagers[md.MERCHANT] = True
    to_value(st, 9)
    act(st, "white banners")
    assert v.served == ["K24"] and v.waiting == [] and v.craft_goods == [0] * 5
    assert v.time_pos == 2


def test_MV_GOODS_3_paying_returns_goods_to_supply() -> None:
    """Covers: MV-GOODS-3
    MV-GOODS-4"""
    st = new(2)
    v = village(st)
    give(st, 0, "K12")  # 3/8, 2 beer
    v.craft_goods[BEER] = 1
    v.wildcards = 1
    v.coins = 9  # coins never buy goods
    _plain(st)
    to_value(st, 8)
    act(st, "white banners")  # the only way to pay: the beer and the wildcard
    assert v.served == ["K12"]
    assert v.craft_goods[BEER] == 0 and v.wildcards == 0 and v.coins == 9


def test_MV_GAP_6_up_to_n_sp_moves_as_many_as_possible() -> None:
    st = new(2)
    v = village(st)
    v.sp_tree = 2
    st.monk_stacks[0] = ["M-P1"]
    v.wildcards = 1
    to_value(st, 4)
    act(st, "black MONK_PEN")
    assert v.sp_house == 2 and v.sp_tree == 0


def test_MV_GAP_11_monastery_church_with_six_monks() -> None:
    st = new(2)
    v = village(st)
    for m in ("M-R1", "M-R2", "M-R3", "M-C1", "M-C2", "M-C3"):
        give(st, 0, m)
    to_value(st, 5)
    act(st, "black CH-1")
    assert v.church == "CH-1" and v.windows() == 7
    from games.my_village.scoring import breakdown

    assert breakdown(st, 0)["church"] == 2 + md.WINDOW_PP[6]


def test_MV_GAP_12_effect_lapses_when_it_cannot_be_done() -> None:
    st = new(2)
    v = village(st)
    v.school = [True, True]
    st.monk_stacks[2] = ["M-R5"]
    to_value(st, 8)
    act(st, "black MONK_ROSARY")
    assert v.monks == ["M-R5"] and v.school == [True, True] and st.to_move() == 1
    st = new(2)
    v = village(st)
    v.school = [True, False]
    st.monk_stacks[2] = ["M-R5"]
    to_value(st, 8)
    act(st, "black MONK_ROSARY")  # one empty space: not asked
    assert v.school == [True, True]


def test_MV_GAP_14_running_out() -> None:
    st = new(4)
    v = village(st)
    st.field_stack = 0
    st.travel_stacks[0] = []
    st.travel_stacks[1] = ["T-B1"]
    st.monk_stacks[2] = []
    to_value(st, 7)
    opts = options(st)
    assert "black FIELD" not in opts and "black TRAVEL" not in opts
    assert "black MONK_ROSARY" not in opts
    st.display.clear()
    st.deck.clear()
    turn_of(st, st.player)
    give(st, st.player, "CH-3")
    to_value(st, 10)
    assert "black OVERSEER" not in options(st)
    assert not any(o.startswith("white church") for o in options(st))
    assert v is not None


def test_MV_SCH_1_school_banner_values() -> None:
    for value, offered in ((3, True), (11, True), (7, False)):
        st = new(2)
        _plain(st)
        village(st).coins = 0
        st.field_stack = 0
        to_value(st, value)
        if "white banners" in options(st):
            act(st, "white banners")
        assert (village(st, 0).school[0]) is offered


def test_MV_SCH_2_empty_school_new_left_free() -> None:
    st = new(2)
    v = village(st)
    _plain(st)
    to_value(st, 3)
    act(st, "white banners")
    assert v.school == [True, False] and v.time_pos == 1


def test_MV_SCH_3_left_only_to_right_or_villager() -> None:
    st = new(2)
    v = village(st)
    _plain(st)
    v.school = [True, False]
    v.villagers[md.MERCHANT] = False
    to_value(st, 3)
    act(st, "white banners")
    assert options(st) == ["white school LEFT_TO_RIGHT", "white school LEFT_TO_MERCHANT"]
    act(st, "white school LEFT_TO_MERCHANT")
    assert v.school == [False, False] and v.villagers[md.MERCHANT] and v.time_pos == 2


def test_MV_SCH_4_right_only_new_left_or_graduate_with_sp() -> None:
    st = new(2)
    v = village(st)
    _plain(st)
    v.school = [False, True]
    v.villagers[md.ABBOT] = False
    to_value(st, 11)
    act(st, "white banners")
    assert options(st) == ["white school NEW_LEFT", "white school RIGHT_TO_ABBOT"]
    act(st, "white school RIGHT_TO_ABBOT")
    assert v.school == [False, False] and v.villagers[md.ABBOT]
    assert v.sp_tree == 2 and v.time_pos == 2


def test_MV_SCH_5_both_occupied_move_either() -> None:
    st = new(2)
    v = village(st)
    _plain(st)
    v.school = [True, True]
    v.villagers[md.ABBOT] = False
    to_value(st, 3)
    act(st, "white banners")
    assert options(st) == ["white school LEFT_TO_ABBOT", "white school RIGHT_TO_ABBOT"]
    act(st, "white school LEFT_TO_ABBOT")
    assert v.school == [False, True] and v.sp_tree == 0 and v.time_pos == 2


def test_MV_SCH_6_no_empty_villager_space() -> None:
    st = new(2)
    v = village(st)
    _plain(st)
    v.school = [True, True]
    to_value(st, 3)
    assert "white banners" not in options(st)
    st = new(2)
    v = village(st)
    _plain(st)
    v.school = [True, False]
    to_value(st, 3)
    act(st, "white banners")
    assert v.school == [False, True]  # only LEFT_TO_RIGHT was possible


def test_MV_SCH_7_graduate_is_a_villager_at_once() -> None:
    st = new(2)
    v = village(st)
    _plain(st)
    v.school = [True, False]
    v.villagers[md.CRAFTSMAN] = False
    give(st, 0, "ST-3")  # 3/7 craft banner
    to_value(st, 3)
    act(st, "white banners")
    assert "white craft horse" not in options(st)
    act(st, "white school LEFT_TO_CRAFTSMAN")
    assert "white craft horse" in options(st)
    assert st.phase is Phase.WHITE
