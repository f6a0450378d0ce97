"""Time, death, day labourers, the rat (C.11, C.12) and story points (C.13)."""

from __future__ import annotations

from games.my_village import data as md
from games.my_village.player import PLOUGHED
from games.my_village.rounds import Phase
from games.my_village.scoring import breakdown
from tests.games.my_village.helpers import (
    act,
    end_now,
    give,
    new,
    next_rat_roll,
    options,
    set_pool,
    to_value,
    turn_of,
    village,
)


def _chronicle_turn(st: object, time_pos: int) -> None:
    """The player to move pays exactly 1 time (the chronicle) from ``time_pos``."""
    village(st).time_pos = time_pos  # type: ignore[arg-type]
    st.monk_stacks = [[], [], []]  # type: ignore[attr-defined]
    to_value(st, 2)  # type: ignore[arg-type]


def test_MV_TIME_1_loop_of_ten_clouds() -> None:
    st = new(2)
    v = village(st)
    _chronicle_turn(st, 9)
    assert v.time_pos == 10 and v.pending_deaths == 0 and st.to_move() == 1
    turn_of(st, 0)
    _chronicle_turn(st, 10)
    assert v.time_pos == 1 and v.pending_deaths == 1  # across the bridge


def test_MV_TIME_2_time_always_payable_any_amount() -> None:
    """Covers: MV-TIME-2
    MV-GAP-18
    MV-GAP-15
    MV-DEATH-5"""
    st = new(2)
    v = village(st)
    for _ in range(7):
        give(st, 0, "FIELD")
    v.time_pos = 10
    v.play_values = (2, 12)
    v.villagers[md.COUNCILMAN] = False
    v.villagers[md.CRAFTSMAN] = False
    set_pool(st, "B3 B4 W1 W1 W2")
    act(st, "dice B3+B4")  # 4 time: the first crossing
    assert v.pending_deaths == 1
    act(st, "value 7")
    act(st, "white banners")
    for _ in range(7):
        if st.phase is Phase.WHITE:
            act(st, "white field_bare")
    assert v.time_pos == 1 and v.pending_deaths == 2  # 11 time, two crossings
    rolls = st.rat_rolls
    assert st.phase is Phase.DEATH
    act(st, "bury abbot")
    assert st.rat_rolls == rolls + 1 and st.phase is Phase.DEATH  # own roll, then the next
    act(st, "bury merchant")
    assert st.rat_rolls == rolls + 2 and st.to_move() == 1
    assert v.villagers == [False, False, True, False, False]


def test_MV_TIME_3_crossing_puts_the_reaper_on_the_marker() -> None:
    st = new(2)
    v = village(st)
    v.time_pos = 9
    set_pool(st, "B3 B4 W1 W1 W2")
    act(st, "dice B3+B4")
    view = st.observation(1)["villages"]
    assert isinstance(view, list) and view[0]["pending_deaths"] == 1 == v.pending_deaths


def test_MV_DEATH_1_choose_a_villager_school_markers_excluded() -> None:
    """Covers: MV-DEATH-1
    MV-DP-8"""
    st = new(2)
    v = village(st)
    v.school = [True, True]
    v.villagers = [False, True, False, True, False]
    _chronicle_turn(st, 10)
    assert options(st) == ["bury councilman", "bury craftsman"]
    act(st, "bury craftsman")
    assert v.pending_deaths == 0 and v.school == [True, True]
    assert v.villagers == [False, True, False, False, False]
    st = new(2)
    v = village(st)
    v.villagers = [False, False, True, False, False]
    _chronicle_turn(st, 10)
    assert not any(v.villagers) and st.to_move() == 1  # one villager: not asked


def test_MV_DEATH_2_chronicle_spaces_then_anonymous_graves() -> None:
    st = new(2)
    for expected_sp, graves in ((2, 0), (1, 0), (0, 1)):
        turn_of(st, 0)
        v = village(st)
        v.villagers = [True] * 5
        v.sp_tree = 0
        st.rat = 1  # far from red whatever the roll: 1 + 6 stops on grey 4
        _chronicle_turn(st, 10)
        act(st, "bury merchant")
        assert v.sp_tree == expected_sp and len(st.graves) == graves
    assert st.chronicle[md.MERCHANT] == [0, 0] and st.graves == [0]


def test_MV_DEATH_3_the_dead_stay_and_the_area_is_inactive() -> None:
    st = new(2)
    v = village(st)
    give(st, 0, "CH-1")
    _chronicle_turn(st, 10)
    act(st, "bury abbot")
    assert st.chronicle[md.ABBOT] == [0] and not v.villagers[md.ABBOT]
    turn_of(st, 0)
    v.play_values = (2, 12)
    to_value(st, 9)
    assert "white banners" not in options(st)  # the church banner needs the abbot


def test_MV_DEATH_4_overflow_beside_the_graves_still_counts() -> None:
    st = new(4)
    st.graves = [1] * 18
    st.chronicle[md.ABBOT] = [1, 2]
    _chronicle_turn(st, 10)
    act(st, "bury abbot")
    assert len(st.graves) == 19 and st.public_state()["coffins"] == 21


def test_MV_DAY_1_day_labourer_without_villagers() -> None:
    st = new(2)
    v = village(st)
    v.villagers = [False] * 5
    v.day_labourers = 4  # not limited by the printed tiles
    rolls = st.rat_rolls
    _chronicle_turn(st, 10)
    assert v.day_labourers == 5 and st.graves == [0] and v.sp_tree == 0
    assert st.rat_rolls == rolls + 1 and st.to_move() == 1


def test_MV_RAT_1_rat_stops_on_first_grey_or_red() -> None:
    """Covers: MV-RAT-1
    MV-RAT-2"""
    st = new(2)
    v = village(st)
    st.rat = 2
    v.sp_tree = 0
    roll = next_rat_roll(st)
    _chronicle_turn(st, 10)
    v.sp_tree = 6
    act(st, "bury abbot")
    assert st.rat == (4 if roll >= 2 else 3)  # grey 4 halts the rat
    assert v.sp_tree == 6 + 2 and st.plagues == 0  # a grey space does nothing else


def test_MV_RAT_4_rat_continues_from_where_it_stands() -> None:
    st = new(2)
    st.rat = 5
    first = next_rat_roll(st)
    _chronicle_turn(st, 10)
    act(st, "bury abbot")
    after_first = min(5 + first, 8)
    assert st.rat == after_first
    turn_of(st, 0)
    second = next_rat_roll(st)
    _chronicle_turn(st, 10)
    act(st, "bury merchant")
    expected = after_first
    for _ in range(second):
        expected = (expected + 1) % 12
        if expected in md.RAT_HALT:
            break
    assert st.rat == expected


def test_MV_SP_1_new_sp_go_to_the_story_tree() -> None:
    st = new(3)
    turn_of(st, 1)
    st.hand_sp = 3
    to_value(st, 4)
    act(st, "black HAND")
    v = village(st, 1)
    assert v.sp_tree == 3 and v.sp_house == 0


def test_MV_SP_2_story_tree_scores_nothing() -> None:
    """Covers: MV-SP-2
    MV-SP-3"""
    st = new(2)
    v = village(st, 0)
    v.sp_tree = 9
    v.sp_house = 4
    end_now(st)
    d = breakdown(st, 0)
    assert d["saved_sp"] == 4 and d["tiebreak"] >= 9
    assert d["total"] == 4 + d["hand"] + d["church"]


def test_MV_SP_4_chronicle_saves_every_tree_sp_for_one_time() -> None:
    st = new(2)
    v = village(st)
    v.sp_tree = 5
    v.sp_house = 2
    _chronicle_turn(st, 3)
    assert v.sp_tree == 0 and v.sp_house == 7 and v.time_pos == 4


def test_MV_SP_5_sp_are_never_a_currency() -> None:
    st = new(2)
    v = village(st)
    v.coins = 0
    v.sp_tree = 20
    v.sp_house = 20
    to_value(st, 7)
    assert "black CH-4" not in options(st)  # 2 coins: SP do not pay


def test_MV_GOODS_1_goods_for_the_tie_break() -> None:
    st = new(2)
    v = village(st)
    give(st, 0, "FIELD")
    v.fields[0] = PLOUGHED
    v.craft_goods[1] = 2
    v.wildcards = 1
    v.mp_markers = [0, 0]
    assert v.goods_total() == 4


def test_MV_GAP_15_plague_of_an_earlier_death_hits_before_the_next_one() -> None:
    """Covers: MV-GAP-15 (deaths one after another, each with its own reward and rat roll;
    a plague from the first roll is applied, to SP just gained, before the next death)."""
    st = new(2)
    v = village(st)
    v.villagers[md.CRAFTSMAN] = False  # the choice is between the others
    st.rat = 11  # any roll enters the red space 0
    v.sp_house = 0
    v.sp_tree = 0
    _chronicle_turn(st, 10)  # one crossing
    assert st.phase is Phase.DEATH and v.pending_deaths == 1
    v.pending_deaths = 2  # a second death due in the same step III
    v.sp_tree = 7
    rolls = st.rat_rolls
    act(st, "bury abbot")  # +2 SP from the chronicle space: 9 on the tree
    assert st.rat_rolls == rolls + 1 and st.rat == 0 and st.plagues == 1
    assert v.sp_tree == 9 - 4  # the plague already took half, SP just gained included
    assert st.phase is Phase.DEATH and st.to_move() == 0 and v.pending_deaths == 1
    act(st, "bury merchant")  # its own chronicle reward and its own roll
    assert st.rat_rolls == rolls + 2 and v.pending_deaths == 0
    assert st.to_move() == 1
