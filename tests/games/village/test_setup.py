"""Setup (V-SET) and round structure (V-RND)."""

from __future__ import annotations

from games.village import data as vd
from tests.games.village.helpers import (
    clear_board,
    count,
    give,
    kind,
    new,
    play,
    put,
    refresh,
    turn_of,
)


def test_V_SET_1_each_player_has_a_colour_with_eleven_figures_and_markers() -> None:
    """Each seat is one colour: 11 family members, 6 travel markers (8 - time - score)."""
    for n in (2, 3, 4):
        s = new(n)
        assert s.num_players == n
        for p in range(n):
            assert sum(s.mem[p]) == vd.FIGURES_PER_COLOUR
        assert vd.TRAVEL_MARKERS == vd.MARKERS_PER_COLOUR - 2
        obs = s.observation(0)
        assert len(obs["players"]) == n


def test_V_SET_2_four_first_generation_on_farmyard_rest_unborn() -> None:
    s = new(3)
    for p in range(3):
        assert count(s, p, "farmyard", 1) == 4
        assert count(s, p, "farmyard") == 4
        assert [count(s, p, "unborn", g) for g in (1, 2, 3, 4)] == [0, 3, 2, 2]


def test_V_SET_3_time_marker_on_cloud_and_prestige_zero() -> None:
    s = new(4)
    assert s.time == [0, 0, 0, 0]
    assert s.prestige == [0, 0, 0, 0]
    # the first lap is a full lap: 13 time is no death, 14 is one
    assert s.add_time(0, vd.LAP_LENGTH - 1) == 0
    assert s.add_time(0, 1) == 1


def test_V_SET_4_one_coin_each_rest_in_supply() -> None:
    for n in (2, 3, 4):
        s = new(n)
        assert s.coins == [1] * n
        assert s.sup_coins == vd.COINS - n


def test_V_SET_5_customer_pile_and_market_filled_by_player_count() -> None:
    for n, tiles in ((2, 8), (3, 9), (4, 10)):
        s = new(n)
        stalls = s.public_state()["market"]["stalls"]
        queue = s.public_state()["market"]["queue"]
        assert len(stalls) == vd.STALLS_IN_USE[n]
        assert sum(1 for t in stalls + queue if t is not None) == tiles
        assert len(s.pile) == vd.CUSTOMER_TILES - tiles


def test_V_SET_6_fewer_players_block_chronicle_spaces_and_graves() -> None:
    for n, per_cat, graves in ((2, 2, 4), (3, 3, 5), (4, 4, 6)):
        s = new(n)
        assert s.chron_free == [per_cat] * 5
        assert s.graves_free == graves


def test_V_SET_7_next_starting_player_marker_in_the_chamber() -> None:
    s = new()
    assert s.public_state()["next_starting_player"] is None
    assert s.nsp == -1


def test_V_SET_8_general_supply_and_empty_green_bag_before_seeding() -> None:
    """Goods, grain, cubes, plague and coins start in the supply; the bag starts empty:
    after round 1's seeding the bag holds exactly what was added minus what was drawn."""
    s = new(4)
    assert s.sup_goods == [8] * 5
    assert s.sup_grain == 20
    placed = sum(sum(row) for row in s.spaces)
    assert sum(s.bag) == 4 * vd.BAG_ADD_PER_COLOUR[4] + vd.PLAGUE_CUBES - placed
    for c in range(4):
        assert s.sup_cubes[c] == vd.CUBES_PER_COLOUR - vd.BAG_ADD_PER_COLOUR[4]
    assert s.sup_cubes[4] == 0


def test_V_SET_9_four_monks_in_the_black_bag() -> None:
    s = new()
    assert s.public_state()["black_bag"]["monks"] == vd.MONKS == 4
    assert all(count(s, p, "bag") == 0 for p in range(4))


def test_V_SET_10_setup_card_per_player_count() -> None:
    for n in (2, 3, 4):
        s = new(n)
        placed = [sum(row) for row in s.spaces]
        assert placed == list(vd.CUBES_PER_SPACE[n])
        assert sum(placed) == vd.ROUND_TOTAL[n]


def test_V_SET_11_seat_zero_is_the_starting_player() -> None:
    s = new()
    assert s.start == 0
    assert s.to_move() == 0


def test_V_SET_12_first_round_starts_with_seeding() -> None:
    s = new()
    assert s.round_no == 1
    assert s.board_cubes == vd.ROUND_TOTAL[4]


def test_V_RND_1_round_is_player_change_seeding_turns_mass() -> None:
    """A round ends with a mass (kind buy_out/promotion or straight to the next round),
    then the next round starts with the new starting player and fresh seeding."""
    s = new(2)
    clear_board(s)
    put(s, "harvest", "brown")
    put(s, "harvest", "pink")
    s.nsp = 1  # player 1 took the next-starting-player marker this round
    turn_of(s, 0)
    play(s, "take brown from harvest")
    play(s, "decline")
    # player 1's only option (the last cube) is taken for him (V-DP-1); he declines
    assert s.to_move() == 1 and s.cubes[1][1] == 1
    play(s, "decline")
    # the mass needed no decision (nobody in bag/church): round 2 has begun
    assert s.round_no == 2
    assert s.start == 1 and s.nsp == -1
    assert s.to_move() == 1
    assert s.board_cubes == vd.ROUND_TOTAL[2]


def test_V_RND_2_seeding_adds_per_colour_and_all_plague_and_keeps_leftovers() -> None:
    s = new(3)
    left = s.bag[:]
    clear_board(s)
    sup_before = s.sup_cubes[:]
    turn_of(s, 0)
    # end the round by hand: start the next round directly
    from games.village.flow import start_round

    start_round(s)
    added = [min(vd.BAG_ADD_PER_COLOUR[3], sup_before[c]) for c in range(4)] + [sup_before[4]]
    total_in = sum(left) + sum(added)
    assert sum(s.bag) + s.board_cubes == total_in
    assert s.sup_cubes[4] == 0  # all plague cubes went into the bag
    assert s.board_cubes == vd.ROUND_TOTAL[3]


def test_V_RND_3_short_supply_and_short_bag_fill_spaces_in_order() -> None:
    s = new(4)
    clear_board(s)
    # players hoard: only 2 brown cubes left in supply, nothing else, bag empty
    for c in range(5):
        s.sup_cubes[c] += s.bag[c]
        s.bag[c] = 0
    give(s, 1, cubes={"pink": s.sup_cubes[1], "orange": s.sup_cubes[2], "green": s.sup_cubes[3]})
    give(s, 2, cubes={"brown": s.sup_cubes[0] - 2})
    s.sup_cubes[4] -= 6  # plague cubes out of play for this test
    totals_plague = 6
    from games.village.flow import seed_board

    seed_board(s)
    assert s.bag == [0, 0, 0, 0, 0]
    # harvest filled first (it needs 4): the 2 cubes land there
    assert s.spaces[0][0] == 2
    assert sum(sum(row) for row in s.spaces[1:]) == 0
    s.sup_cubes[4] += totals_plague


def test_V_RND_4_round_ends_after_turn_taking_last_cube() -> None:
    s = new(2)
    clear_board(s)
    put(s, "family", "pink")
    put(s, "harvest", "brown")
    turn_of(s, 0)
    play(s, "take brown from harvest")
    play(s, "harvest")
    assert s.round_no == 1 and s.to_move() == 1
    assert kind(s) == "action"  # the single cube left was taken for player 1
    assert s.board_cubes == 0 and s.round_no == 1
    play(s, "birth")
    assert s.round_no == 2
    refresh(s)


def test_round_without_any_cube_to_seed_ends_the_game() -> None:
    """Engine convention (documented gap): if seeding can place no cube at all (every
    influence cube hoarded in farmyards, no plague left), the game ends with the final mass."""
    s = new(2)
    clear_board(s)
    for c in range(4):
        s.sup_cubes[c] += s.bag[c]
        s.bag[c] = 0
    give(s, 0, cubes={name: s.sup_cubes[i] for i, name in enumerate(vd.COLOUR_NAMES[:4])})
    s.bag[4] += s.sup_cubes[4]
    s.sup_cubes[4] = 0
    plague = s.bag[4]
    s.bag[4] = 0
    from games.village.flow import start_round

    start_round(s)
    refresh(s)
    assert s.is_over() and s.triggered
    s.bag[4] = plague  # (restore for conservation bookkeeping only)
