"""Setup (C.1) and the round structure (C.2, C.3, C.14)."""

from __future__ import annotations

import games
from games.my_village import data as md
from games.my_village.rounds import Phase
from tests.games.my_village.helpers import (
    act,
    finish_turn,
    give,
    new,
    options,
    refresh,
    set_pool,
    to_value,
    top,
    turn_of,
    village,
)


def test_MV_SETUP_1_rat_starts_on_the_space_for_the_player_count() -> None:
    for n, start in ((2, 5), (3, 3), (4, 1)):
        st = new(n)
        assert st.rat == start == md.PLAYER_COUNTS[n].rat_start
        assert st.public_state()["rat"] == start
        assert st.rat_rolls == 0


def test_MV_SETUP_2_supply_is_unlimited() -> None:
    """The supply (markers, SP, day labourers) has no limit (R-27): coins past the 70
    printed markers are still gained."""
    st = new(2)
    v = village(st)
    v.coins = 80
    give(st, 0, "FIELD")
    to_value(st, 7)
    act(st, "white banners")
    if "white field_bare" in options(st):
        act(st, "white field_bare")
    assert v.coins == 81
    assert "supply" not in st.conserved_totals()


def test_MV_SETUP_3_closed_cards_show_black_open_cards_show_white() -> None:
    """Covers: MV-SETUP-3
    MV-BLK-4"""
    st = new(2)
    v = village(st)
    v.coins = 5
    to_value(st, 5)
    assert "black CH-1" in options(st)  # closed on the table: its black banner
    act(st, "black CH-1")
    assert v.church == "CH-1" and "CH-1" not in st.church_col
    assert v.time_pos == 1 + 3  # its black time was paid
    turn_of(st, 0)
    t = v.time_pos
    to_value(st, 9)
    act(st, "white banners")  # open in the village: its white banner
    if "white church" in options(st):
        act(st, "white church")
    assert v.sp_tree >= 1 and v.time_pos == t + 1


def test_MV_SETUP_4_church_column_every_card_available() -> None:
    st = new(2)
    assert sorted(st.public_state()["churches"]) == ["CH-1", "CH-2", "CH-3", "CH-4"]
    village(st).coins = 5
    to_value(st, 8)  # CH-2 is 3/8 wherever it lies in the column
    assert "black CH-2" in options(st)
    st2 = new(2)
    village(st2).coins = 5
    to_value(st2, 7)
    assert "black CH-4" in options(st2)


def test_MV_SETUP_5_council_column_every_card_available() -> None:
    st = new(2)
    assert sorted(st.council_col) == ["CC-1", "CC-2", "CC-3", "CC-4"]
    village(st).coins = 5
    to_value(st, 9)
    assert {"black CC-2", "black CC-3"} <= set(options(st))


def test_MV_SETUP_6_meeting_points_in_one_stack() -> None:
    st = new(2)
    assert st.mp_stack == 4 == st.public_state()["meeting_points"]
    village(st).coins = 3
    to_value(st, 6)
    act(st, "black MEETING_POINT")
    assert st.mp_stack == 3 and village(st, 0).meeting_point


def test_MV_SETUP_7_monk_stacks_only_top_card_available() -> None:
    st = new(2)
    assert [len(s) for s in st.monk_stacks] == [3, 4, 5]
    view = st.public_state()["monks"]
    assert isinstance(view, dict)
    assert view["rosary"] == {"top": st.monk_stacks[2][-1], "count": 5}
    top = st.monk_stacks[2][-1]
    value = md.MONK_BY_ID[top].values[0]
    village(st).coins = 3
    to_value(st, value)
    act(st, "black MONK_ROSARY")
    if st.phase is Phase.CHOICE:
        act(st, "school LEFT")
    assert village(st, 0).monks == [top]
    assert top not in st.monk_stacks[2] and len(st.monk_stacks[2]) == 4


def test_MV_SETUP_8_fields_in_one_stack() -> None:
    st = new(2)
    assert st.field_stack == 8
    to_value(st, 7)
    act(st, "black FIELD")
    assert st.field_stack == 7 and len(village(st, 0).fields) == 1


def test_MV_SETUP_9_customer_deck_and_display_of_six() -> None:
    st = new(2)
    assert len(st.display) == 6 and len(st.deck) == 27
    assert st.public_state()["customer_deck"] == 27
    assert "deck" not in st.public_state()


def test_MV_SETUP_10_travel_stacks_per_letter() -> None:
    st = new(2)
    assert [len(s) for s in st.travel_stacks] == [4, 4, 4, 4, 3]
    for letter, stack in zip("ABCDE", st.travel_stacks, strict=True):
        assert all(md.TRAVEL_BY_ID[c].id.startswith(f"T-{letter}") for c in stack)


def test_MV_SETUP_11_craft_columns_only_first_card_visible() -> None:
    """By the Greek text only the first card of each craft column is visible and can be
    taken (the spec's R-26 would make all four available; see docs, Greek vs spec)."""
    st = new(2)
    assert [len(c) for c in st.craft_cols] == [4] * 5
    view = st.public_state()["crafts"]
    assert isinstance(view, dict)
    assert view["brewery"] == {"top": st.craft_cols[1][-1], "count": 4}
    for col, card in zip(st.craft_cols, ("ST-1", "BR-2", "SM-1", "OF-3", "WW-1"), strict=True):
        top(st, col, card)
    village(st).coins = 5
    to_value(st, 5)
    opts = set(options(st))
    assert {"black ST-1", "black SM-1", "black WW-1"} <= opts
    assert "black BR-1" not in opts and "black OF-1" not in opts  # not on top
    act(st, "black ST-1")
    assert st.craft_cols[0][-1] != "ST-1" and len(st.craft_cols[0]) == 3


def test_MV_SETUP_12_village_boards_and_figures() -> None:
    st = new(4)
    boards = [v.board for v in st.villages]
    assert len(set(boards)) == 4
    for v in st.villages:
        assert v.villagers == [True] * 5
        assert v.time_pos == 1 and v.pending_deaths == 0  # time on cloud 1, reaper on bridge
        assert v.play_values == md.PLAY_VALUES[v.board]
        assert v.school == [False, False]


def test_MV_SETUP_13_first_player_hand_and_dice_by_count() -> None:
    """Covers: MV-SETUP-13
    MV-GAP-17"""
    firsts = {games.get("my_village").new_game(4, seed).first_player for seed in range(40)}
    assert firsts == {0, 1, 2, 3}  # chosen at random
    for n, dice in ((2, 11), (3, 8), (4, 11)):
        st = games.get("my_village").new_game(n, 7)
        assert st.hand_palm and st.hand_holder == st.first_player == st.to_move()
        assert len(st.pool) == dice
        view = st.public_state()["pool"]
        assert isinstance(view, list)
        blacks = sum(1 for colour, _ in view if colour == "black")
        assert blacks == md.PLAYER_COUNTS[n].black_dice


def test_MV_SETUP_14_starting_coins_by_seat() -> None:
    for seed in range(6):
        st = games.get("my_village").new_game(4, seed)
        f = st.first_player
        assert [st.villages[(f + i) % 4].coins for i in range(4)] == [1, 2, 3, 4]


def test_MV_SETUP_15_nothing_else_at_start() -> None:
    st = new(3)
    for v in st.villages:
        assert v.sp_tree == v.sp_house == 0
        assert sum(v.craft_goods) == v.wildcards == 0
        assert v.card_count() == 0 and v.mp_markers == [] and not any(v.school)


def test_MV_ROUND_1_rounds_repeat_preparation_then_actions_then_end_check() -> None:
    st = new(3)
    assert st.round_no == 1
    for _ in range(3):
        finish_turn(st)
    assert st.round_no == 2 and len(st.pool) == 8 and st.turn_idx == 0


def test_MV_ROUND_2_preparation_adds_sp_to_hand_and_rolls_all_dice() -> None:
    """Covers: MV-ROUND-2
    MV-BLK-6
    EX-5"""
    st = new(3)
    assert st.hand_sp == 1 and len(st.pool) == 8
    view = st.public_state()["pool"]
    assert isinstance(view, list)
    assert sorted(colour for colour, _ in view) == ["black"] * 2 + ["white"] * 6
    for _ in range(3):
        finish_turn(st)
    assert st.dice_taken == 0
    # nobody took the hand: its SP stay and one more is added
    assert st.hand_sp == 2 and st.hand_palm


def test_EX_5_three_players_leave_two_dice() -> None:
    """EX-5 (MV-ROUND-2): 8 dice rolled, 2 left after the three turns."""
    st = new(3)
    for _ in range(2):
        finish_turn(st)
    assert len(st.pool) == 4  # 8 - 2 turns x 2 dice; the third turn leaves 2
    act(st, options(st)[0])
    assert len(st.pool) == 2


def test_MV_ROUND_3_three_four_players_one_turn_each_clockwise() -> None:
    st = new(4, first=2)
    seen = []
    for _ in range(4):
        seen.append(st.to_move())
        finish_turn(st)
    assert seen == [2, 3, 0, 1]
    assert st.round_no == 2


def test_MV_ROUND_4_two_players_alternate_two_turns_each() -> None:
    st = new(2, first=1)
    seen = []
    for _ in range(4):
        seen.append(st.to_move())
        finish_turn(st)
    assert seen == [1, 0, 1, 0] and st.round_no == 2


def test_MV_ROUND_5_hand_taker_is_next_first_player() -> None:
    st = new(3)
    finish_turn(st)
    to_value(st, 4)
    act(st, "black HAND")
    assert st.hand_holder == 1 and st.first_player == 0
    finish_turn(st)
    assert st.round_no == 2 and st.first_player == 1 and st.to_move() == 1


def test_MV_TURN_1_steps_in_order_dice_value_banner_death() -> None:
    st = new(2)
    v = village(st)
    v.time_pos = 9
    set_pool(st, "W1 W2 B3 B4")
    assert st.phase is Phase.DICE
    act(st, "dice B3+B4")  # 4 time: crosses the bridge, death waits for step III
    assert v.pending_deaths == 1 and all(v.villagers)
    assert st.phase is Phase.VALUE
    act(st, "value 7")
    assert st.phase is Phase.MODE and all(v.villagers)
    act(st, "chronicle")
    assert st.phase is Phase.DEATH and st.to_move() == 0
    act(st, "bury abbot")
    assert not v.villagers[0] and v.pending_deaths == 0 and st.to_move() == 1


def test_MV_TURN_2_cards_only_through_banner_actions() -> None:
    st = new(2)
    v = village(st)
    before = v.card_count()
    set_pool(st, "W2 W3 W6 W6 W6")
    act(st, "dice W2+W3")
    assert v.card_count() == before  # building the value adds nothing
    if st.phase is Phase.VALUE:
        act(st, "value 5")
    act(st, "chronicle")
    assert v.card_count() == before


def test_MV_END_1_game_ends_after_the_round_reaching_the_threshold() -> None:
    st = new(2)
    st.graves = [0] * 9  # threshold for 2 players
    finish_turn(st)
    assert not st.is_over()  # the round is played to its end
    for _ in range(3):
        finish_turn(st)
    assert st.is_over() and st.to_move() is None and st.round_no == 1


def test_MV_GAP_16_round_safeguard_marks_the_game_unfinished() -> None:
    st = new(2)
    st.round_no = md.MAX_ROUNDS
    for _ in range(4):
        finish_turn(st)
    assert st.is_over() and st.unfinished
    assert all(d["unfinished"] == 1 for d in st.result().detail)


def test_MV_BLK_2_hand_rules_three_players() -> None:
    st = new(3)
    to_value(st, 4)
    assert "black HAND" not in options(st)  # the first player may not take it
    act(st, "chronicle")
    to_value(st, 10)
    act(st, "black HAND")
    v = village(st, 1)
    assert v.sp_tree == 1 and st.hand_sp == 0 and not st.hand_palm and st.hand_holder == 1
    assert v.time_pos == 1  # no time
    to_value(st, 4)
    assert "black HAND" not in options(st)  # back side up: nobody can take it


def test_EX_6_two_player_hand_availability() -> None:
    """EX-6 (MV-BLK-2): A first; not in A's first turn, B in either, A in his second."""
    st = new(2)
    to_value(st, 4)
    assert "black HAND" not in options(st)
    act(st, "chronicle")
    to_value(st, 4)
    assert "black HAND" in options(st)  # B, first turn
    act(st, "chronicle")
    to_value(st, 10)
    assert "black HAND" in options(st)  # A, second turn
    act(st, "black HAND")
    assert st.hand_holder == 0 and not st.hand_palm
    to_value(st, 4)
    assert "black HAND" not in options(st)  # B's second turn: back side up
    refresh(st)


def test_MV_BLK_6_taken_hand_is_closed_to_the_others_this_round() -> None:
    """Covers: MV-BLK-6 (once the hand is taken, nobody else can take it that round)."""
    control = new(3)
    finish_turn(control)
    finish_turn(control)
    to_value(control, 4)
    assert control.to_move() == 2 and "black HAND" in options(control)  # still free
    st = new(3)
    finish_turn(st)
    to_value(st, 4)
    act(st, "black HAND")  # player 1 takes it (back side up)
    assert st.hand_holder == 1 and not st.hand_palm
    assert st.to_move() == 2
    to_value(st, 4)
    assert "black HAND" not in options(st)  # player 2 cannot take it any more
    to_value(st, 10)
    assert "black HAND" not in options(st)
