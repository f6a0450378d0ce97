"""Step II: activation modes, black and white banners and their decisions (C.5-C.7,
MV-DP-3..7, MV-DP-9) and the worked examples EX-3 and EX-4."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.my_village import black
from games.my_village import data as md
from games.my_village.actions import ACTION_TYPES, Black, Chronicle, WhiteMode
from games.my_village.player import PLOUGHED, Village
from games.my_village.rounds import Phase
from games.my_village.state import MyVillageState
from tests.games.my_village.helpers import (
    act,
    give,
    new,
    options,
    refresh,
    to_value,
    top,
    turn_of,
    village,
)

PARCHMENT = md.GOOD_INDEX[md.Good.PARCHMENT]
PLOUGH = md.PLOUGH


def test_MV_ACT_1_one_of_three_ways() -> None:
    """Covers: MV-ACT-1
    MV-BLK-5"""
    st = new(2)
    village(st).coins = 5
    give(st, 0, "FIELD")
    to_value(st, 7)
    kinds = {type(a) for a in st.legal_actions()}
    assert kinds == {Black, WhiteMode, Chronicle}
    act(st, "black FIELD")
    assert st.to_move() == 1  # exactly one black banner, then the turn is over
    assert len(village(st, 0).fields) == 2


def test_MV_ACT_2_either_value_or_question_mark_matches() -> None:
    for value, offered in ((5, True), (9, True), (6, False)):
        st = new(2)
        village(st).coins = 5
        to_value(st, value)
        assert ("black CH-1" in options(st)) is offered
    st = new(2)
    v = village(st)
    give(st, 0, "K29")
    v.craft_goods[PARCHMENT] = 2
    v.crafts[PARCHMENT] = "OF-3"
    st.craft_cols[PARCHMENT].remove("OF-3")
    to_value(st, 12)
    act(st, "white banners")
    assert v.served == ["K29"]  # "?" matches 12


def test_MV_ACT_3_costs_must_be_payable() -> None:
    st = new(2)
    village(st).coins = 1
    to_value(st, 7)
    assert "black CH-4" not in options(st)  # 2 coins
    st = new(2)
    village(st).coins = 2
    to_value(st, 7)
    assert "black CH-4" in options(st)
    st = new(2)
    v = village(st)
    st.monk_stacks[0] = ["M-P1"]
    to_value(st, 4)
    assert "black MONK_PEN" not in options(st)  # no parchment
    turn_of(st, 0)
    v.wildcards = 1
    to_value(st, 4)
    assert "black MONK_PEN" in options(st)


def test_MV_ACT_4_time_then_extra_cost_then_action(monkeypatch: pytest.MonkeyPatch) -> None:
    """Covers: MV-ACT-4

    The end state is the same in any order, so the three steps are watched as they happen:
    each records what was already paid when it ran."""
    st = new(2)
    v = village(st)
    v.time_pos = 9
    v.sp_tree = 4
    v.wildcards = 1
    st.monk_stacks[0] = ["M-P1"]
    steps: list[tuple[str, int, int, int]] = []  # (step, time position, wildcards, monks)

    def seen(step: str) -> None:
        steps.append((step, v.time_pos, v.wildcards, len(v.monks)))

    real_time, real_take, real_monk = black.pay_time, Village.take_good, black._monk

    def pay_time(state: MyVillageState, time: int) -> None:
        seen("time")
        real_time(state, time)

    def take_good(self: Village, good: int, source: Any) -> None:
        seen("extra cost")
        real_take(self, good, source)

    def monk(state: MyVillageState, card_id: str) -> bool:
        seen("action")
        return real_monk(state, card_id)

    monkeypatch.setattr(black, "pay_time", pay_time)
    monkeypatch.setattr(Village, "take_good", take_good)
    monkeypatch.setattr(black, "_monk", monk)
    to_value(st, 4)
    act(st, "black MONK_PEN")
    assert steps == [
        ("time", 9, 1, 0),  # nothing paid yet
        ("extra cost", 1, 1, 0),  # the 2 time paid (the bridge was crossed), the wildcard not
        ("action", 1, 0, 0),  # both paid, the monk not yet placed
    ]
    assert v.time_pos == 1 and v.pending_deaths == 1
    act(st, "bury merchant")
    assert v.wildcards == 0  # extra cost paid
    assert v.sp_house == 3 and v.monks == ["M-P1"]  # then the action


def test_MV_ACT_5_chronicle_always_legal() -> None:
    st = new(2)
    v = village(st)
    v.coins = 0
    v.villagers = [False] * 5
    st.field_stack = 0
    st.display.clear()
    st.deck.clear()
    refresh(st)
    for _ in range(3):
        idx = st.turn_idx
        house = v.sp_house + v.sp_tree
        to_value(st, 2)
        assert st.turn_idx == idx + 1  # nothing else: the chronicle was applied by itself
        assert v.sp_house == house and v.sp_tree == 0
        turn_of(st, 0)


def test_MV_BLK_1_black_banners_on_the_table() -> None:
    st = new(2)
    v = village(st)
    v.coins = 10
    st.travel_stacks[0] = ["T-A2"]
    top(st, st.craft_cols[0], "ST-2")
    to_value(st, 9)
    opts = set(options(st))
    assert {"black CH-1", "black CC-2", "black CC-3", "black ST-2", "black TRAVEL"} <= opts
    assert not any(o.startswith("black K") for o in opts)  # customers have no black banner
    assert "black HAND" not in opts and "black OVERSEER" not in opts  # 4/10 only


def test_MV_BLK_3_overseer_takes_customers_without_merchant() -> None:
    """Covers: MV-BLK-3
    MV-CUST-1
    MV-CUST-4"""
    st = new(2)
    v = village(st)
    v.villagers[md.MERCHANT] = False
    v.coins = 3
    shown = st.display[:]
    to_value(st, 10)
    act(st, "black OVERSEER")
    act(st, f"pick {shown[1]}")
    act(st, "stop picking")
    assert v.waiting == [shown[1]] and v.time_pos == 2 and v.coins == 3
    assert len(st.display) == 6 and st.to_move() == 1
    st.display.clear()
    turn_of(st, 0)
    to_value(st, 4)
    assert "black OVERSEER" not in options(st)  # empty display


def test_EX_3_overseer_three_customers() -> None:
    """EX-3 (MV-BLK-3): 3 customers cost 1 coin + 2 time; the display takes the top three
    deck cards."""
    st = new(2)
    v = village(st)
    v.coins = 1
    shown = st.display[:]
    deck_top = st.deck[-3:][::-1]
    to_value(st, 4)
    act(st, "black OVERSEER")
    for card in (shown[0], shown[2], shown[4]):
        act(st, f"pick {card}")
    assert options(st) == [f"pick {shown[5]}", "stop picking"]
    act(st, "stop picking")
    assert v.waiting == [shown[0], shown[2], shown[4]]
    assert v.coins == 0 and v.time_pos == 3
    assert st.display == [shown[1], shown[3], shown[5], *deck_top]


def test_MV_DP_4_overseer_picks_in_display_order() -> None:
    """Covers: MV-DP-4
    MV-GAP-4"""
    st = new(2)
    v = village(st)
    v.coins = 0
    shown = st.display[:]
    to_value(st, 4)
    act(st, "black OVERSEER")
    assert options(st) == [f"pick {c}" for c in shown]  # no STOP before a pick
    act(st, f"pick {shown[3]}")
    assert options(st) == [f"pick {c}" for c in shown[4:]] + ["stop picking"]
    act(st, f"pick {shown[4]}")
    assert st.to_move() == 1  # no coin: at most 2 picks, so STOP was applied by itself
    assert v.waiting == [shown[3], shown[4]] and v.time_pos == 3
    st = new(2)
    village(st).coins = 1
    shown = st.display[:]
    to_value(st, 4)
    act(st, "black OVERSEER")
    for card in shown[:4]:
        act(st, f"pick {card}")
    assert st.to_move() == 1  # a 5th pick is never offered: STOP was applied by itself
    assert village(st, 0).time_pos == 4 and village(st, 0).coins == 0


def test_MV_BLK_5_only_one_black_banner_per_turn() -> None:
    st = new(2)
    village(st).coins = 5
    to_value(st, 5)
    act(st, "black CH-1")
    assert st.to_move() == 1 and st.phase is Phase.DICE


def test_MV_WHT_1_white_banners_of_board_and_open_cards() -> None:
    """Covers: MV-WHT-1
    MV-MONK-3"""
    st = new(2)
    v = village(st)
    v.play_values = (2, 12)
    give(st, 0, "M-R1")  # 7
    give(st, 0, "T-A4")  # 6/11
    to_value(st, 7)  # neither a monk nor a travel card has a white banner
    assert "white banners" not in options(st)
    st = new(2)
    v = village(st)
    v.play_values = (3, 7)
    give(st, 0, "ST-3")  # 3/7: a craft white banner
    to_value(st, 3)
    act(st, "white banners")
    opts = options(st)
    assert {"white play", "white school NEW_LEFT", "white craft horse"} <= set(opts)


def test_MV_WHT_2_card_banners_need_their_area_active() -> None:
    st = new(2)
    v = village(st)
    give(st, 0, "CC-1")
    give(st, 0, "FIELD")
    v.villagers[md.COUNCILMAN] = False
    v.villagers[md.CRAFTSMAN] = False
    to_value(st, 3)
    assert "white chamber" not in options(st)
    act(st, "white banners")
    assert "white chamber" not in options(st)
    turn_of(st, 0)
    v.coins = 0
    to_value(st, 7)
    act(st, "white banners")  # fields need no villager
    if "white field_bare" in options(st):
        act(st, "white field_bare")
    assert v.coins == 1


def test_MV_WHT_3_any_number_each_once_in_chosen_order() -> None:
    st = new(2)
    v = village(st)
    give(st, 0, "FIELD")
    give(st, 0, "ST-3")  # 3/7
    v.coins = 0
    to_value(st, 7)
    act(st, "white banners")
    act(st, "white craft horse")
    assert "white craft horse" not in options(st)  # each banner once
    act(st, "white field_bare")
    assert v.craft_goods[0] == 1 and v.coins == 1 and st.to_move() in (0, 1)


def _meeting_point_on_12() -> tuple[MyVillageState, Village]:
    """Player 0 rolled 12 with a meeting point (white 2/12) and K07 (4/12, a beer) waiting."""
    st = new(2)
    v = village(st)
    give(st, 0, "MEETING_POINT")
    give(st, 0, "K07")  # 4/12, a beer
    v.craft_goods[md.GOOD_INDEX[md.Good.BEER]] = 1
    v.coins = 2
    to_value(st, 12)
    act(st, "white banners")
    return st, v


def test_MV_WHT_4_meeting_point_last() -> None:
    """Covers: MV-WHT-4

    Random play never reaches the meeting point's white banner (a meeting point, a
    councilman, a roll of 2 or 12 and a coin at once), so both orders are built here:
    taken first, it ends the white sequence at once (K07 stays unserved); taken after the
    customer, it is still offered, and it is the last."""
    st, v = _meeting_point_on_12()
    assert options(st) == ["white meeting_point", "white customer K07 paying building"]
    act(st, "white meeting_point")
    assert st.to_move() == 1  # the sequence ended at once; K07 was not served
    assert v.waiting == ["K07"] and v.mp_markers == [1] and v.coins == 1

    st, v = _meeting_point_on_12()
    act(st, "white customer K07 paying building")
    assert st.to_move() == 0 and v.waiting == []  # served; the white sequence goes on
    assert "white meeting_point" in options(st)
    act(st, "white meeting_point")
    assert st.to_move() == 1  # nothing may follow it
    assert v.mp_markers == [1]


def test_MV_WHT_5_play_banner_one_sp_free() -> None:
    st = new(2)
    v = village(st)
    value = v.play_values[0]
    to_value(st, value)
    act(st, "white banners")
    if "white play" in options(st):
        act(st, "white play")
    assert v.sp_tree == 1 and v.time_pos == 1


def test_MV_WHT_6_card_white_banner_pays_its_costs() -> None:
    st = new(2)
    v = village(st)
    give(st, 0, "CC-1")
    v.coins = 0
    to_value(st, 3)
    act(st, "white banners")
    act(st, "white chamber")
    assert v.coins == 2 and v.time_pos == 2


def test_MV_DP_3_mode_options_in_canonical_order() -> None:
    st = new(2)
    v = village(st)
    v.coins = 5
    give(st, 0, "ST-4")  # 4/10 white
    st.monk_stacks[0] = ["M-P1"]  # 4/9 pen, needs a parchment
    v.wildcards = 1
    st.travel_stacks[0] = ["T-A2"]  # 4/9
    to_value(st, 4)
    opts = options(st)
    assert opts[:2] == ["black OVERSEER", "black CC-3"]
    assert opts[-4:] == ["black MONK_PEN", "black TRAVEL", "white banners", "chronicle"]


def test_MV_DP_5_goods_source_asked_only_with_a_choice() -> None:
    """Covers: MV-DP-5
    MV-GAP-5"""
    st = new(2)
    v = village(st)
    st.monk_stacks[0] = ["M-P1"]
    give(st, 0, "OF-3")
    v.craft_goods[PARCHMENT] = 1
    v.wildcards = 1
    to_value(st, 4)
    act(st, "black MONK_PEN")
    assert options(st) == ["pay from building", "pay from wildcard"]
    act(st, "pay from wildcard")
    assert v.wildcards == 0 and v.craft_goods[PARCHMENT] == 1
    st = new(2)
    v = village(st)
    st.monk_stacks[0] = ["M-P1"]
    v.wildcards = 1
    to_value(st, 4)
    act(st, "black MONK_PEN")  # a single source: not asked
    assert v.wildcards == 0 and v.monks == ["M-P1"]


def test_MV_DP_6_white_sequence_options() -> None:
    st = new(2)
    v = village(st)
    give(st, 0, "FIELD")
    give(st, 0, "CC-2")
    v.wildcards = 1
    to_value(st, 9)
    act(st, "white banners")
    opts = options(st)
    assert "end white banners" not in opts  # END only after a banner
    assert "white chamber" in opts and "wildcard to field" in opts
    act(st, "white chamber")
    assert "end white banners" in options(st) and "wildcard to field" in options(st)
    act(st, "end white banners")
    assert st.to_move() == 1


def test_MV_GAP_8_wildcard_moves_only_inside_white_sequence() -> None:
    st = new(2)
    v = village(st)
    give(st, 0, "FIELD")
    give(st, 0, "CC-2")
    v.wildcards = 2
    v.coins = 0
    to_value(st, 7)
    act(st, "white banners")
    assert "wildcard to field" in options(st)  # a field banner can follow the move
    goods = v.goods_total()
    act(st, "wildcard to field")
    assert v.fields == [PLOUGHED] and v.wildcards == 1 and v.goods_total() == goods
    assert "wildcard to field" not in options(st)  # no empty plough space left
    act(st, "white field_ploughed")
    assert v.coins == 2
    # not as a first step when no banner could follow: the only banner is a customer whose
    # horse only the wildcard can pay
    st = new(2)
    v = village(st)
    give(st, 0, "FIELD")
    give(st, 0, "K02")  # 4/9, a horse
    v.wildcards = 1
    v.coins = 0
    v.villagers[md.COUNCILMAN] = False
    to_value(st, 9)
    if "white banners" in options(st):
        act(st, "white banners")
    assert "wildcard to field" not in options(st)


def test_MV_GAP_9_identical_fields_one_option_each_once() -> None:
    st = new(2)
    v = village(st)
    for _ in range(2):
        give(st, 0, "FIELD")
    v.coins = 0
    v.villagers = [False] * 5
    v.wildcards = 0
    v.play_values = (2, 12)
    to_value(st, 7)
    act(st, "white banners")  # one option (both fields are alike): the first field, applied
    assert options(st) == ["white field_bare", "end white banners"]  # the second field
    act(st, "white field_bare")
    assert st.to_move() == 1  # nothing but END was left: applied by itself
    assert v.coins == 2  # both fields were activated, once each


def test_MV_GAP_13_capacity_limited_white_banners() -> None:
    st = new(2)
    v = village(st)
    v.play_values = (2, 12)
    give(st, 0, "ST-3")
    v.craft_goods[0] = 2  # full
    to_value(st, 7)
    assert "white banners" not in options(st)
    st = new(2)
    v = village(st)
    v.play_values = (2, 12)
    give(st, 0, "CC-2")
    v.wildcards = md.WILDCARD_SPACES
    to_value(st, 9)
    assert "white banners" not in options(st)
    st = new(2)
    v = village(st)
    v.play_values = (3, 7)
    give(st, 0, "MEETING_POINT")
    v.mp_markers = [0, 0, 0]
    v.coins = 3
    to_value(st, 12)
    assert "white banners" not in options(st)
    st = new(2)
    v = village(st)
    v.play_values = (2, 12)
    give(st, 0, "CC-3")
    v.registry = [True, True, True, False, False, False]
    to_value(st, 4)
    assert "white banners" not in options(st)
    # the scriptorium stays legal with an empty story tree: nothing moves
    st = new(2)
    v = village(st)
    v.play_values = (2, 12)
    give(st, 0, "CC-4")
    to_value(st, 11)
    act(st, "white banners")
    act(st, "white chamber")
    assert "CHAMBER" in st.white_used and v.sp_house == 0


def test_MV_DP_7_card_choices() -> None:
    st = new(2)
    village(st).coins = 5
    to_value(st, 4)
    act(st, "black CC-3")
    assert options(st) == [f"registry {c.value}" for c in md.CATEGORIES]
    act(st, "registry travel")
    assert village(st, 0).registry == [False, False, False, True, False, False]
    st = new(2)
    st.monk_stacks[2] = ["M-R4"]
    to_value(st, 6)
    act(st, "black MONK_ROSARY")
    assert options(st) == ["school LEFT", "school RIGHT"]
    act(st, "school RIGHT")
    assert village(st, 0).school == [False, True]


def test_MV_DP_9_automatic_steps_never_asked() -> None:
    st = new(3)
    rng = random.Random(4)
    kinds = {"dice", "value", "mode", "overseer", "payment", "white", "choice", "death"}
    rounds_seen = st.round_no
    while not st.is_over():
        decision = st.observation(0)["decision"]
        assert isinstance(decision, dict) and decision["kind"] in kinds
        assert all(type(a) in ACTION_TYPES for a in st.legal_actions())
        st.apply(rng.choice(st.legal_actions()))
        if st.round_no != rounds_seen and not st.is_over():
            # preparation (hand SP, rolling) happened without a question
            assert st.phase is Phase.DICE and st.to_move() == st.first_player
            assert len(st.pool) == 8
            rounds_seen = st.round_no


def test_EX_4_white_banners_in_order_school_first() -> None:
    """EX-4 (MV-WHT-3, MV-SCH-3, MV-CUST-3): school LEFT -> councilman, then CC-1, then the
    "?" customer paid with 2 parchments; K01 needs a cart."""
    st = new(2)
    v = village(st)
    v.school = [True, False]
    v.villagers[md.COUNCILMAN] = False
    give(st, 0, "CC-1")
    give(st, 0, "OF-3")
    v.craft_goods[PARCHMENT] = 2
    give(st, 0, "K29")
    give(st, 0, "K01")
    v.coins = 0
    to_value(st, 3)
    act(st, "white banners")
    assert "white chamber" not in options(st)  # CC-1 before the school is illegal
    assert not any("K01" in o for o in options(st))  # no cart
    act(st, "white school LEFT_TO_COUNCILMAN")
    act(st, "white chamber")
    act(st, "white customer K29 paying building,building")
    if st.to_move() == 0:
        act(st, "end white banners")
    assert v.time_pos == 3 and v.coins == 2 and v.craft_goods[PARCHMENT] == 0
    assert v.served == ["K29"] and v.waiting == ["K01"] and v.villagers[md.COUNCILMAN]


def test_MV_DP_6_customer_once_per_payment_way_and_field_states() -> None:
    """Covers: MV-DP-6
    MV-GAP-9"""
    st = new(2)
    v = village(st)
    v.play_values = (2, 12)
    give(st, 0, "K16")  # 3/10: horse + beer
    v.craft_goods[md.GOOD_INDEX[md.Good.HORSE]] = 1
    v.craft_goods[md.GOOD_INDEX[md.Good.BEER]] = 1
    v.wildcards = 1
    to_value(st, 10)
    act(st, "white banners")
    assert [o for o in options(st) if "K16" in o] == [
        "white customer K16 paying building,building",
        "white customer K16 paying building,wildcard",
        "white customer K16 paying wildcard,building",
    ]
    st = new(2)
    v = village(st)
    v.play_values = (2, 12)
    for _ in range(3):
        give(st, 0, "FIELD")
    v.fields[0] = PLOUGHED
    to_value(st, 7)
    act(st, "white banners")
    assert options(st)[:2] == ["white field_ploughed", "white field_bare"]


def test_MV_GAP_5_field_plough_paid_from_an_activated_field_first() -> None:
    """Which field gives up its plough is not asked; an already activated one gives it."""
    st = new(2)
    v = village(st)
    v.play_values = (2, 12)
    for _ in range(2):
        give(st, 0, "FIELD")
    v.fields = [PLOUGHED, PLOUGHED]
    give(st, 0, "SM-3")
    v.craft_goods[PLOUGH] = 1
    give(st, 0, "K32")  # "?": 2 ploughs
    v.coins = 0
    to_value(st, 7)
    act(st, "white banners")
    act(st, "white field_ploughed")
    assert "white customer K32 paying building,field" in options(st)
    act(st, "white customer K32 paying building,field")
    assert "white field_ploughed" in options(st)  # the unused field kept its plough
    act(st, "white field_ploughed")
    assert v.coins == 4 and v.served == ["K32"]
