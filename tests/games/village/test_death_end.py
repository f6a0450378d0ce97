"""Deaths (V-DTH, V-DP-17), the game end (V-END) and the examples T-02, T-05, T-11, T-12."""

from __future__ import annotations

from games.village import data as vd
from games.village.state import VillageState
from tests.games.village.helpers import (
    at_action,
    clear_board,
    count,
    give,
    kind,
    legal,
    move,
    new,
    play,
    put,
    strip,
    turn_of,
)
from tests.games.village.test_market import QUEUE5, _market


def _s(n: int = 4) -> VillageState:
    s = new(n)
    for p in range(n):
        strip(s, p)
    clear_board(s)
    put(s, "harvest", "brown")
    put(s, "family", "pink")
    put(s, "family", "orange")
    return s


def test_T_02_death_after_the_action_player_picks_the_new_smith() -> None:
    """Covers: T-02
    Covers: V-DTH-1"""
    s = _s()
    put(s, "crafts", "plague")
    s.time[0] = vd.LAP_LENGTH - 1
    move(s, 0, "farmyard", "church:1", 1, 2)
    move(s, 0, "church:1", "church:1", 1)
    turn_of(s, 0)
    play(s, "take plague from crafts")
    assert s.due[0] == 1 and kind(s) == "action"
    play(s, "train gen1 at smithy and produce plough")
    assert s.time[0] == vd.LAP_LENGTH - 1 + 2 + 3 + 3 and s.goods[0][vd.PLOUGH] == 1
    assert kind(s) == "death" and s.to_move() == 0
    assert legal(s) == ["die at farmyard", "die at building:smithy", "die at church:1"]
    play(s, "die at building:smithy")
    assert count(s, 0, "building:smithy") == 0 and s.chron_cat[0][vd.CAT_CRAFTS] == 1


def test_V_DTH_1_plague_from_the_market_space_dies_after_the_day() -> None:
    """Covers: V-DTH-1 (G-19: the crossing before the market day waits for the turn's end;
    G-32: a second crossing during the day resolves both at once)."""
    s = _s(2)
    put(s, "market", "plague")
    _market(s, ["C22", "C02", "C23"], QUEUE5)
    s.time[0] = vd.LAP_LENGTH - 1
    move(s, 0, "farmyard", "building:office", 1)
    give(s, 0, grain=5)
    give(s, 1, grain=5)
    turn_of(s, 0)
    play(s, "take plague from market")
    assert s.due[0] == 1 and kind(s) == "market"
    play(s, "serve stall 1 (free)")
    assert s.tiles[0] == [vd.CUSTOMERS.index(vd.CUSTOMERS[21])]  # C22 sold before dying
    # player 1 has no green/coin: passes; player 0 cannot pay an extra sale: day over
    assert kind(s) == "death" and s.to_move() == 0
    play(s, "die at building:office")
    assert s.due[0] == 0 and s.to_move() == 1
    t = _s(2)
    put(t, "market", "brown")
    _market(t, ["C22", "C02", "C23"], QUEUE5)
    # a death already due this turn (as from a plague cube), the marker one step short
    t.time[0] = 2 * vd.LAP_LENGTH - 1
    t.due[0] = 1
    move(t, 0, "farmyard", "building:office", 1)
    give(t, 0, grain=5, cubes={"green": 1})
    turn_of(t, 0)
    play(t, "take brown from market")
    play(t, "serve stall 1 (free)")
    play(t, "serve stall 2 (green)")  # crosses again: both deaths now
    assert kind(t) == "death" and t.due[0] == 2
    play(t, "die at building:office")
    assert t.due[0] == 0 and count(t, 0, "chronicle") == 2


def test_V_DTH_2_lowest_visible_generation_owner_chooses() -> None:
    """Covers: V-DTH-2
    Covers: V-DP-17"""
    s = _s()
    move(s, 0, "farmyard", "bag", 1, 4)
    move(s, 0, "unborn", "farmyard", 2)
    move(s, 0, "unborn", "building:office", 2)
    move(s, 0, "unborn", "town:T1", 3)
    s.due[0] = 1
    at_action(s, 0, "harvest")
    play(s, "decline")
    assert legal(s) == ["die at farmyard", "die at building:office"]
    play(s, "die at farmyard")
    assert count(s, 0, "bag", 1) == 4 and count(s, 0, "chronicle", 2) == 1


def test_V_DTH_3_no_visible_member_the_death_lapses() -> None:
    s = _s()
    move(s, 0, "farmyard", "bag", 1, 4)
    s.due[0] = 2
    at_action(s, 0, "harvest")
    assert s.due[0] == 0 and s.to_move() == 1
    assert count(s, 0, "chronicle") == 0 and count(s, 0, "grave") == 0


def test_V_DTH_4_chronicle_of_the_category_else_a_grave() -> None:
    s = _s()
    s.chron_free[vd.CAT_FARMYARD] = 1
    s.due[0] = 2
    at_action(s, 0, "harvest")
    play(s, "decline")
    assert s.chron_cat[0][vd.CAT_FARMYARD] == 1 and count(s, 0, "grave") == 1
    assert s.chron_free[vd.CAT_FARMYARD] == 0 and s.graves_free == vd.GRAVES[4] - 1


def test_T_05_church_member_would_go_to_a_grave() -> None:
    s = _s()
    move(s, 0, "farmyard", "church:2", 1)
    move(s, 0, "farmyard", "council:1", 1)
    s.chron_free[vd.CAT_CHURCH] = 0
    s.due[0] = 1
    at_action(s, 0, "harvest")
    play(s, "decline")
    assert legal(s) == ["die at farmyard", "die at council:1", "die at church:2"]
    u = s.clone()
    play(s, "die at church:2")
    assert count(s, 0, "grave") == 1 and count(s, 0, "chronicle") == 0
    play(u, "die at council:1")
    assert count(u, 0, "chronicle") == 1 and u.chron_cat[0][vd.CAT_COUNCIL] == 1


def test_V_DTH_5_no_space_and_no_grave_member_removed() -> None:
    """Covers: V-DTH-5
    Covers: V-END-6"""
    s = _s()
    s.chron_free[vd.CAT_FARMYARD] = 0
    s.graves_free = 0
    s.triggered = True
    s.trigger_player = 3
    s.last_built = True
    s.last_queue = [1, 2]
    s.due[0] = 1
    at_action(s, 0, "harvest")
    play(s, "decline")
    assert count(s, 0, "removed") == 1 and count(s, 0, "farmyard") == 3


def test_V_DTH_6_several_deaths_one_by_one() -> None:
    s = _s()
    move(s, 0, "farmyard", "building:office", 1, 2)
    s.due[0] = 2
    at_action(s, 0, "harvest")
    play(s, "decline")
    assert kind(s) == "death"
    play(s, "die at building:office")
    assert kind(s) == "death" and s.due[0] == 1
    play(s, "die at farmyard")
    assert s.due[0] == 0 and count(s, 0, "chronicle") == 2


def test_V_DTH_7_end_checked_after_each_placement() -> None:
    """Covers: V-DTH-7
    Covers: V-END-1"""
    s = _s()
    s.chron_free = [0, 0, 0, 0, 1]
    s.due[0] = 2
    at_action(s, 0, "harvest")
    play(s, "decline")
    assert s.triggered and s.trigger_player == 0
    assert count(s, 0, "chronicle") == 1 and count(s, 0, "grave") == 1
    assert s.public_state()["end"]["trigger_player"] == 0


def test_V_END_2_trigger_player_no_more_turns_others_one_each() -> None:
    """Covers: V-END-2
    Covers: V-END-3"""
    s = _s(3)
    put(s, "harvest", "green")
    put(s, "harvest", "orange")
    s.graves_free = 1
    s.chron_free[vd.CAT_FARMYARD] = 0
    s.due[1] = 1
    at_action(s, 1, "harvest")
    play(s, "decline")
    assert s.triggered and s.trigger_player == 1
    order = []
    while not s.is_over() and kind(s) in ("turn", "action", "free_action"):
        order.append(s.to_move())
        if kind(s) == "turn":
            play(s, legal(s)[0])
        if kind(s) == "action":
            play(s, "decline")
        elif kind(s) == "free_action":
            play(s, "free action harvest")
            play(s, "decline")
    assert order[0] == 2 and set(order) == {2, 0}
    assert order == [2, 0]  # clockwise from the trigger player, exactly one turn each
    assert s.is_over()


def test_V_END_4_no_round_mass_only_the_final_mass() -> None:
    """Covers: V-END-4
    Covers: V-END-7
    Covers: T-12"""
    s = _s(3)
    clear_board(s)
    put(s, "harvest", "brown")
    s.chron_free = [0, 0, 0, 0, 1]
    s.due[0] = 1
    move(s, 0, "farmyard", "church:1", 1)
    mass_no, round_no = s.mass_no, s.round_no
    turn_of(s, 0)  # takes the last cube (his only option)
    play(s, "decline")
    play(s, "die at farmyard")
    assert s.triggered and s.board_cubes == 0
    assert s.round_no == round_no and s.mass_no == mass_no  # no reseeding, no mass
    assert kind(s) == "free_action" and s.to_move() == 1
    play(s, "free action harvest")
    play(s, "harvest")
    assert s.to_move() == 2 and kind(s) == "free_action"
    play(s, "free action family")
    play(s, "birth")
    # then the final mass (nothing to decide) and the scoring
    assert s.is_over() and s.mass_no == mass_no + 1
    assert s.prestige[0] == vd.MAJORITY_POINTS  # the final mass's majority
    res = s.result()
    assert res.scores[0] == vd.MAJORITY_POINTS + vd.WINDOW_POINTS[0]


def _t11(starter_triggers: bool) -> VillageState:
    s = _s(3)
    put(s, "market", "brown")
    _market(s, ["C22", "C02", "C23", "C24"], QUEUE5)
    s.graves_free = 1
    s.chron_free[vd.CAT_FARMYARD] = 0
    give(s, 0, grain=5, cubes={"green": 1})
    give(s, 1, grain=5, cubes={"green": 1})
    give(s, 2, grain=5, cubes={"green": 1})
    s.time[0 if starter_triggers else 1] = vd.LAP_LENGTH - 1
    turn_of(s, 0)
    play(s, "take brown from market")
    return s


def test_T_11_end_during_another_players_market_day() -> None:
    """Covers: T-11
    Covers: V-END-5
    Covers: V-MKT-8"""
    s = _t11(starter_triggers=False)
    play(s, "serve stall 1 (free)")  # A
    play(s, "serve stall 2 (green)")  # B crosses: his farmer fills the last grave
    assert s.triggered and s.trigger_player == 1
    assert kind(s) == "market" and s.to_move() == 2  # the day goes on: C may sell
    play(s, "serve stall 3 (green)")
    while kind(s) == "market":
        play(s, "pass")
    assert s.to_move() == 1 and kind(s) == "turn"
    assert s.last_queue == [2, 0]  # B, C, A: every player, A last
    t = _t11(starter_triggers=True)
    play(t, "serve stall 1 (free)")
    play(t, "pass")
    play(t, "pass")
    play(t, "serve stall 2 (green)")  # A's own extra sale fills the last grave
    while kind(t) == "market":
        play(t, "pass")
    assert t.trigger_player == 0 and t.to_move() == 1 and t.last_queue == [2]


def test_V_END_1_last_grave_triggers() -> None:
    s = _s()
    s.graves_free = 1
    s.chron_free[vd.CAT_FARMYARD] = 0
    s.due[2] = 1
    at_action(s, 2, "harvest")
    play(s, "decline")
    assert s.triggered and s.trigger_player == 2 and s.graves_free == 0
    assert s.to_move() == 3


def test_V_END_3_last_turns_take_cubes_while_the_board_has_some() -> None:
    s = _s(2)
    s.graves_free = 1
    s.chron_free[vd.CAT_FARMYARD] = 0
    s.due[0] = 1
    at_action(s, 0, "harvest")
    play(s, "decline")
    assert kind(s) == "turn" and s.to_move() == 1
    assert legal(s)[0].startswith("take")


def test_V_END_6_deaths_in_last_turns_remove_members() -> None:
    s = _s(2)
    s.graves_free = 1
    s.chron_free = [0, 0, 0, 0, 0]
    s.due[0] = 1
    at_action(s, 0, "harvest")
    play(s, "decline")
    assert s.triggered
    s.due[1] = 1
    play(s, "take brown from harvest")
    play(s, "decline")
    assert count(s, 1, "removed") == 1


def test_V_END_7_final_scoring_after_the_final_mass() -> None:
    s = _s(2)
    s.graves_free = 1
    s.chron_free[vd.CAT_FARMYARD] = 0
    give(s, 1, coins=3)
    s.due[0] = 1
    at_action(s, 0, "harvest")
    play(s, "decline")
    play(s, "take brown from harvest")
    play(s, "decline")
    assert s.is_over() and s.to_move() is None and s.legal_actions() == []
    res = s.result()
    assert res.scores == (0, 3) and res.ranks == (1, 0)
