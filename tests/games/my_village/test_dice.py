"""Step I, the banner value (C.4) and its decisions MV-DP-1 / MV-DP-2 (C.18, C.19)."""

from __future__ import annotations

from games.my_village.actions import SetValue, TakeDice
from games.my_village.rounds import Phase
from tests.games.my_village.helpers import act, new, options, refresh, set_pool, village


def test_MV_DICE_1_exactly_two_dice_leave_the_pool() -> None:
    st = new(2)
    set_pool(st, "W1 W2 W3 B4 B5")
    assert all(isinstance(a, TakeDice) for a in st.legal_actions())
    act(st, "dice W2+B4")
    assert st.public_state()["pool"] == [["white", 1], ["white", 3], ["black", 5]]
    assert st.dice_taken == 2
    assert st.dice == (2, 4)


def test_MV_DICE_2_black_dice_cost_two_time_each() -> None:
    st = new(2)
    v = village(st)
    set_pool(st, "W1 B2 B3 W6")
    act(st, "dice B2+B3")
    assert v.time_pos == 1 + 4
    st2 = new(2)
    set_pool(st2, "W1 B2 B3 W6")
    act(st2, "dice W1+B2")
    assert village(st2).time_pos == 1 + 2
    st3 = new(2)
    set_pool(st3, "W1 B2 B3 W6")
    act(st3, "dice W1+W6")
    assert village(st3).time_pos == 1


def test_MV_DICE_3_each_coin_moves_a_die_by_one() -> None:
    st = new(2)
    v = village(st)
    v.coins = 2
    set_pool(st, "W1 W4 W6 W6")
    act(st, "dice W1+W4")
    opts = options(st)
    assert "value 3 (2 coins)" in opts and "value 4 (1 coin)" in opts
    assert not any(o.startswith("value 8") for o in opts)  # 3 coins needed, only 2 owned
    act(st, "value 3 (2 coins)")
    assert v.coins == 0 and st.value == 3


def test_MV_DICE_4_meeting_point_markers_from_earlier_rounds_set_a_die() -> None:
    st = new(2)
    v = village(st)
    v.coins = 0
    v.meeting_point = True
    v.mp_markers = [1]  # placed this round: not usable yet
    set_pool(st, "W1 W1 W6 W6")
    act(st, "dice W1+W1")
    assert "value 7 (1 marker)" not in options(st)
    st = new(2)
    v = village(st)
    v.coins = 0
    v.meeting_point = True
    v.mp_markers = [0]
    set_pool(st, "W1 W1 W6 W6")
    act(st, "dice W1+W1")
    act(st, "value 7 (1 marker)")  # one die set to 6: 6 + 1 = 7 (a field)
    assert v.mp_markers == [] and st.value == 7 and v.coins == 0


def test_MV_DICE_5_banner_value_is_the_sum_of_both_dice() -> None:
    st = new(2)
    village(st).coins = 0
    set_pool(st, "W1 W2 W6 W6")
    act(st, "dice W1+W2")
    assert st.value == 3 and st.phase is Phase.MODE  # the only option, applied


def test_MV_DICE_6_value_fixed_before_step_two() -> None:
    st = new(2)
    village(st).coins = 3
    set_pool(st, "W2 W2 W6 W6")
    act(st, "dice W2+W2")
    act(st, "value 4")
    assert st.phase is Phase.MODE
    assert not any(isinstance(a, (SetValue, TakeDice)) for a in st.legal_actions())
    assert st.value == 4


def test_MV_DP_1_distinct_unordered_pairs() -> None:
    """Covers: MV-DP-1
    MV-GAP-1"""
    st = new(2)
    set_pool(st, "W1 W1 W2 B1")
    assert options(st) == ["dice W1+W1", "dice W1+W2", "dice W1+B1", "dice W2+B1"]
    set_pool(st, "W1 W2 B1 B1 B1")
    assert options(st) == ["dice W1+W2", "dice W1+B1", "dice W2+B1", "dice B1+B1"]
    set_pool(st, "W3 W2")
    assert st.phase is not Phase.DICE  # a single pair is not asked


def test_MV_DP_2_value_triples_cheapest_plans_and_effect() -> None:
    st = new(2)
    v = village(st)
    v.coins = 5
    v.meeting_point = True
    v.mp_markers = [0, 0]
    set_pool(st, "W1 W1 W6 W6")
    act(st, "dice W1+W1")
    opts = options(st)
    assert opts[0] == "value 2"  # the unmodified sum, always
    # 12: 10 coins (more than owned) or two markers (then the meeting point's 2/12)
    assert "value 12 (2 markers)" in opts
    assert not any(o.startswith("value 12 (10") for o in opts)
    # 7: one marker sets a die to 6 for free; two markers would be dominated
    assert "value 7 (1 marker)" in opts and "value 7 (2 markers)" not in opts
    # 3: a coin or a marker, neither dominates the other
    assert "value 3 (1 coin)" in opts and "value 3 (1 marker)" in opts
    act(st, "value 12 (2 markers)")
    assert v.mp_markers == [] and v.coins == 5 and st.value == 12


def test_MV_GAP_2_oldest_usable_markers_are_returned() -> None:
    st = new(2)
    st.round_no = 3
    v = village(st)
    v.coins = 0
    v.meeting_point = True
    v.mp_markers = [1, 2, 3]
    set_pool(st, "W1 W1 W6 W6")
    act(st, "dice W1+W1")
    act(st, "value 7 (1 marker)")
    assert v.mp_markers == [2, 3]


def test_MV_GAP_3_modified_values_only_for_printed_banners() -> None:
    st = new(2)
    v = village(st)
    v.coins = 10
    v.villagers = [False] * 5
    st.field_stack = 0
    st.deck.clear()
    st.display.clear()
    v.waiting.append("K29")  # a "?" customer does not make a value worth buying
    refresh(st)
    set_pool(st, "W1 W1 W6 W6")
    act(st, "dice W1+W1")
    values = {a.value for a in st.legal_actions() if isinstance(a, SetValue)}
    assert values == {2, 3, 11} | set(v.play_values)  # sum, school 3/11, play banner


def test_EX_1_building_the_value_three() -> None:
    """EX-1 (MV-DICE-1..5): white 1 + black 2 for 2 time, or white 1 + white 4 for 2 coins;
    a single die is never a banner value."""
    st = new(2)
    v = village(st)
    v.coins = 2
    set_pool(st, "W1 B2 W4 W6")
    assert all(isinstance(a, TakeDice) for a in st.legal_actions())  # always two dice
    act(st, "dice W1+B2")
    assert st.value == 3 or "value 3" in options(st)
    if st.phase is Phase.VALUE:
        act(st, "value 3")
    assert v.time_pos == 3 and v.coins == 2 and st.value == 3
    st = new(2)
    v = village(st)
    v.coins = 2
    set_pool(st, "W1 B2 W4 W6")
    act(st, "dice W1+W4")
    act(st, "value 3 (2 coins)")
    assert v.time_pos == 1 and v.coins == 0 and st.value == 3
