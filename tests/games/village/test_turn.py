"""A turn, payments, time, the well and the generic decision rules
(V-TRN, V-PAY, V-TIME, V-WEL, V-FAQ-3..5, V-NSP, V-DP-1..6, V-DP-20, V-DP-21, T-08, T-10)."""

from __future__ import annotations

import random

from games.village import actions as va
from games.village import data as vd
from tests.games.village.helpers import (
    at_action,
    clear_board,
    count,
    give,
    kind,
    legal,
    new,
    play,
    put,
    strip,
    turn_of,
)


def _board(s, *cubes: tuple[str, str]) -> None:  # type: ignore[no-untyped-def]
    clear_board(s)
    for space, colour in cubes:
        put(s, space, colour)


def test_V_TRN_1_take_a_cube_or_use_the_well_no_pass() -> None:
    s = new()
    _board(s, ("harvest", "brown"), ("family", "pink"))
    strip(s, 0)
    give(s, 0, cubes={"green": 3})
    turn_of(s, 0)
    acts = s.legal_actions()
    assert {type(a) for a in acts} == {va.Take, va.Well}
    assert "pass" not in legal(s) and "decline" not in legal(s)


def test_V_FAQ_3_a_cube_must_be_taken_unless_the_well_is_used() -> None:
    s = new()
    _board(s, ("harvest", "brown"), ("family", "pink"))
    strip(s, 0)
    turn_of(s, 0)
    assert legal(s) == ["take brown from harvest", "take pink from family"]


def test_V_TRN_2_taken_cube_goes_to_farmyard_and_pays_at_once() -> None:
    """Covers: V-TRN-2 (G-27: the cube just taken pays for the action)."""
    s = new()
    _board(s, ("council", "green"), ("family", "pink"))
    strip(s, 0)
    give(s, 0, cubes={"green": 1})
    turn_of(s, 0)
    play(s, "take green from council")
    assert s.cubes[0][vd.GREEN] == 2
    assert "enter council gen1 pay green" in legal(s)


def test_V_TRN_3_plague_cube_returns_to_supply_and_costs_two_time() -> None:
    s = new()
    _board(s, ("harvest", "plague"), ("family", "pink"))
    turn_of(s, 0)
    sup = s.sup_cubes[vd.PLAGUE]
    play(s, "take plague from harvest")
    assert s.sup_cubes[vd.PLAGUE] == sup + 1
    assert s.time[0] == vd.PLAGUE_TIME
    assert sum(s.cubes[0]) == 0


def test_V_TRN_4_action_is_optional_except_the_market() -> None:
    s = new()
    _board(s, ("harvest", "brown"), ("market", "pink"), ("family", "green"))
    give(s, 1, grain=5, goods=dict.fromkeys(vd.GOOD_NAMES, 1))
    turn_of(s, 0)
    play(s, "take brown from harvest")
    assert "decline" in legal(s)
    play(s, "decline")
    assert s.to_move() == 1
    play(s, "take pink from market")
    assert kind(s) == "market"
    assert "decline" not in legal(s)


def test_V_FAQ_5_actions_optional_market_day_mandatory() -> None:
    s = new()
    _board(s, ("market", "brown"), ("family", "pink"))
    give(s, 0, grain=5, goods=dict.fromkeys(vd.GOOD_NAMES, 1))
    turn_of(s, 0)
    play(s, "take brown from market")
    assert kind(s) == "market" and s.mk_starter == 0
    assert all(isinstance(a, (va.Serve, va.Pass)) for a in s.legal_actions())


def test_V_TRN_5_one_action_per_turn() -> None:
    s = new()
    _board(s, ("harvest", "brown"), ("harvest", "pink"), ("family", "green"))
    turn_of(s, 0)
    play(s, "take brown from harvest")
    play(s, "harvest")
    assert s.grain[0] == 2
    assert s.to_move() == 1 and kind(s) == "turn"


def test_V_TRN_6_deaths_after_the_action_then_end_and_round_checks() -> None:
    s = new()
    _board(s, ("harvest", "plague"), ("harvest", "brown"), ("family", "pink"))
    s.time[0] = vd.LAP_LENGTH - 1
    turn_of(s, 0)
    play(s, "take plague from harvest")
    assert s.due[0] == 1 and kind(s) == "action"  # the action comes first
    play(s, "harvest")
    # the only candidates are the gen-1 farmers: resolved automatically at the turn's end
    assert s.due[0] == 0
    assert count(s, 0, "chronicle") == 1 and s.chron_cat[0][vd.CAT_FARMYARD] == 1
    assert s.to_move() == 1


def test_V_PAY_1_coin_replaces_any_influence_cube() -> None:
    s = new()
    strip(s, 0)
    give(s, 0, coins=2)
    at_action(s, 0, "crafts")
    assert "buy wagon at wainwright +2coin for pink 1, orange 1" in legal(s)
    play(s, "buy wagon at wainwright +2coin for pink 1, orange 1")
    assert s.coins[0] == 0 and s.goods[0][vd.WAGON] == 1

    # One coin for either cube of the wagon's price: two options, told apart by their text.
    s = new()
    strip(s, 0)
    give(s, 0, cubes={"pink": 1, "orange": 1}, coins=1)
    at_action(s, 0, "crafts")
    wagons = [t for t in legal(s) if t.startswith("buy wagon")]
    assert wagons == [
        "buy wagon at wainwright",
        "buy wagon at wainwright +1coin for orange",
        "buy wagon at wainwright +1coin for pink",
    ]
    play(s, "buy wagon at wainwright +1coin for orange")
    assert s.coins[0] == 0 and s.cubes[0][vd.PINK] == 0 and s.cubes[0][vd.ORANGE] == 1


def test_V_PAY_2_coins_buy_members_out_and_stage_four_points() -> None:
    s = new()
    strip(s, 0)
    give(s, 0, coins=2)
    from tests.games.village.helpers import move

    move(s, 0, "farmyard", "council:4", 1)
    at_action(s, 0, "council")
    play(s, "use privilege 4")
    assert s.coins[0] == 1 and s.prestige[0] == 3
    move(s, 0, "farmyard", "bag", 1)
    from games.village.mass import start_mass

    start_mass(s, final=False)
    from tests.games.village.helpers import refresh

    refresh(s)
    assert s.to_move() == 0 and "buy out gen1" in legal(s)
    play(s, "buy out gen1")
    assert s.coins[0] == 0 and count(s, 0, "church:1") == 1


def test_V_PAY_3_costs_paid_in_full_time_always_payable() -> None:
    s = new()
    strip(s, 0)
    give(s, 0, cubes={"green": 1})
    at_action(s, 0, "council")
    assert not any(x.startswith("enter council") for x in legal(s))
    at_action(s, 0, "church")
    assert legal(s)[-2:] == ["church gen1 pay time", "decline"]


def test_V_PAY_4_plague_cubes_never_pay() -> None:
    s = new()
    strip(s, 0)
    give(s, 0, cubes={"brown": 3, "pink": 3})
    _board(s, ("harvest", "plague"), ("family", "pink"))
    turn_of(s, 0)
    play(s, "well for church")
    pays = s.legal_actions()
    assert [str(a) for a in pays] == ["pay well 3 brown", "pay well 3 pink"]
    assert all(isinstance(a, va.PayWell) and a.colour is not va.Colour.PLAGUE for a in pays)
    assert len(s.cubes[0]) == 4  # a farmyard holds no plague cube at all


def test_V_TIME_1_each_hourglass_moves_the_marker_one_space() -> None:
    s = new()
    strip(s, 0)
    at_action(s, 0, "church")
    play(s, "church gen1 pay time")
    assert s.time[0] == vd.CHURCH_TIME


def test_V_TIME_2_each_bridge_crossing_is_one_death() -> None:
    s = new()
    s.time[0] = vd.LAP_LENGTH - 1
    assert s.add_time(0, vd.LAP_LENGTH + 2) == 2
    assert s.due[0] == 2
    assert s.add_time(0, 1) == 0


def test_V_TIME_3_others_spend_time_only_in_a_market_day() -> None:
    s = new(2)
    _board(s, ("market", "brown"), ("family", "pink"))
    strip(s, 0)
    strip(s, 1)
    give(s, 1, cubes={"green": 1}, grain=5, goods=dict.fromkeys(vd.GOOD_NAMES, 1))
    turn_of(s, 0)
    play(s, "take brown from market")
    # player 0 cannot sell: passes automatically; player 1 sells at 1 green + 1 time
    assert s.to_move() == 1
    play(s, next(x for x in legal(s) if x.startswith("serve")))
    assert s.time[1] == vd.EXTRA_SALE_TIME and s.time[0] == 0


def test_V_WEL_1_three_cubes_of_one_colour_for_any_action_even_empty() -> None:
    s = new()
    _board(s, ("harvest", "brown"), ("harvest", "pink"))
    strip(s, 0)
    give(s, 0, cubes={"pink": 3})
    turn_of(s, 0)
    play(s, "well for church")
    assert s.cubes[0][vd.PINK] == 0
    assert kind(s) == "action" and "church gen1 pay time" in legal(s)


def test_V_WEL_2_well_only_while_a_cube_is_on_the_board() -> None:
    s = new()
    clear_board(s)
    strip(s, 1)
    give(s, 1, cubes={"pink": 3})
    s.triggered = True
    s.trigger_player = 0
    s.last_built = True
    s.last_queue = []
    s.active = 1
    from games.village.flow import begin_turn
    from tests.games.village.helpers import refresh

    begin_turn(s)
    refresh(s)
    assert kind(s) == "free_action"
    assert not any(x.startswith("well") for x in legal(s))


def test_V_WEL_3_a_well_turn_takes_no_cube() -> None:
    s = new()
    _board(s, ("harvest", "brown"), ("family", "pink"))
    strip(s, 0)
    give(s, 0, cubes={"orange": 3})
    turn_of(s, 0)
    play(s, "well for harvest")
    assert s.board_cubes == 2 and s.spaces[0][vd.BROWN] == 1


def test_V_WEL_4_coins_stand_in_for_well_cubes() -> None:
    """Coins in the well payment, and the exact option list.
    Covers: V-WEL-4
    Covers: V-DP-5"""
    s = new()
    _board(s, ("harvest", "brown"), ("family", "pink"))
    strip(s, 0)
    give(s, 0, cubes={"pink": 2}, coins=3)
    turn_of(s, 0)
    play(s, "well for family")
    assert legal(s) == ["pay well 2 pink +1coin", "pay well 1 pink +2coin", "pay well 3 coins"]
    play(s, "pay well 2 pink +1coin")
    assert s.cubes[0][vd.PINK] == 0 and s.coins[0] == 2


def test_V_DP_5_well_payment_options() -> None:
    s = new()
    _board(s, ("harvest", "brown"), ("family", "pink"))
    strip(s, 0)
    give(s, 0, cubes={"brown": 3, "green": 4})
    turn_of(s, 0)
    play(s, "well for harvest")
    assert legal(s) == ["pay well 3 brown", "pay well 3 green"]


def test_V_FAQ_4_plague_moves_marker_returns_cube_action_allowed() -> None:
    s = new()
    _board(s, ("crafts", "plague"), ("family", "pink"))
    turn_of(s, 0)
    sup = s.sup_cubes[vd.PLAGUE]
    play(s, "take plague from crafts")
    assert s.time[0] == 2 and s.sup_cubes[vd.PLAGUE] == sup + 1
    assert kind(s) == "action" and "mill" not in legal(s) and "decline" in legal(s)


def test_T_10_plague_from_harvest_then_harvest() -> None:
    s = new()
    _board(s, ("harvest", "plague"), ("family", "pink"))
    strip(s, 0)
    turn_of(s, 0)
    sup = s.sup_cubes[vd.PLAGUE]
    play(s, "take plague from harvest")
    assert s.time[0] == 2 and s.sup_cubes[vd.PLAGUE] == sup + 1
    play(s, "harvest")
    assert s.grain[0] == 2


def test_T_08_council_two_green_as_green_and_coin_or_two_coins() -> None:
    s = new()
    strip(s, 0)
    give(s, 0, cubes={"green": 1}, coins=2)
    from tests.games.village.helpers import move

    move(s, 0, "farmyard", "council:1", 1)
    at_action(s, 0, "council")
    adv = [x for x in legal(s) if x.startswith("advance")]
    assert adv == [
        "advance gen1 council 1->2 pay green +1coin",
        "advance gen1 council 1->2 pay green +2coin",
    ]
    play(s, "advance gen1 council 1->2 pay green +1coin")
    assert s.cubes[0][vd.GREEN] == 0 and s.coins[0] == 1
    assert count(s, 0, "council:2") == 1


def test_V_NSP_1_marker_only_through_stage_one_privilege() -> None:
    s = new()
    strip(s, 0)
    give(s, 0, cubes={"green": 2})
    at_action(s, 0, "council")
    play(s, "enter council gen1 pay green")
    assert legal(s) == ["privilege 1", "no privilege"]
    play(s, "privilege 1")
    assert s.nsp == 0
    assert s.public_state()["next_starting_player"] == 0


def test_V_NSP_2_holder_starts_next_round_marker_returns() -> None:
    s = new(3)
    _board(s, ("harvest", "brown"), ("harvest", "pink"))
    s.nsp = 2
    turn_of(s, 0)
    play(s, "take brown from harvest")
    play(s, "decline")
    play(s, "decline")  # player 1 got the last cube automatically
    assert s.round_no == 2 and s.start == 2 and s.nsp == -1 and s.to_move() == 2


def test_V_DP_1_every_decision_has_two_or_more_options() -> None:
    """Single options are applied automatically; every asked list has >= 2 entries and
    ends with an always-legal option or is a turn/death/choice list."""
    for seed in range(3):
        s = new(3, seed)
        rng = random.Random(seed)
        while not s.is_over():
            acts = s.legal_actions()
            assert len(acts) >= 2
            s.apply(rng.choice(acts))


def test_V_DP_2_members_named_by_generation_and_location() -> None:
    s = new()
    from tests.games.village.helpers import move

    move(s, 0, "farmyard", "building:smithy", 1, 2)
    at_action(s, 0, "family")
    assert legal(s) == ["birth", "return gen1 from building:smithy", "decline"]


def test_V_DP_3_payment_split_options() -> None:
    s = new()
    strip(s, 0)
    give(s, 0, cubes={"pink": 1}, coins=2)
    at_action(s, 0, "crafts")
    buys = [a for a in s.legal_actions() if isinstance(a, va.Buy)]
    assert [(a.good.value, a.coins) for a in buys] == [
        ("wagon", (0, 1)),
        ("wagon", (1, 1)),
        ("scroll", (1,)),
        ("scroll", (2,)),
        ("plough", (2,)),
    ]


def test_V_DP_4_turn_options_take_each_colour_and_well_per_space() -> None:
    s = new()
    _board(
        s, ("harvest", "brown"), ("harvest", "brown"), ("harvest", "plague"), ("church", "green")
    )
    strip(s, 0)
    give(s, 0, coins=3)
    turn_of(s, 0)
    assert legal(s) == [
        "take brown from harvest",
        "take plague from harvest",
        "take green from church",
    ] + [f"well for {sp}" for sp in vd.SPACE_NAMES]


def test_V_DP_6_free_last_action_on_an_empty_board() -> None:
    s = new()
    clear_board(s)
    s.triggered = True
    s.trigger_player = 0
    s.last_built = True
    s.last_queue = [2]
    s.active = 1
    from games.village.flow import begin_turn
    from tests.games.village.helpers import refresh

    begin_turn(s)
    refresh(s)
    assert legal(s) == [f"free action {sp}" for sp in vd.SPACE_NAMES]
    play(s, "free action harvest")
    play(s, "harvest")
    assert s.grain[1] == 2 and s.to_move() == 2


def test_V_DP_20_sequence_turn_action_death_next_turn_mass_round() -> None:
    s = new(2)
    _board(s, ("harvest", "plague"), ("harvest", "brown"))
    s.time[0] = vd.LAP_LENGTH - 1
    from tests.games.village.helpers import move

    move(s, 0, "farmyard", "building:office", 1)
    turn_of(s, 0)
    seen = [kind(s)]
    play(s, "take plague from harvest")
    seen.append(kind(s))
    play(s, "decline")
    seen.append(kind(s))
    play(s, "die at building:office")
    seen.append(kind(s))
    assert seen == ["turn", "action", "death", "action"]  # player 1 got the last cube
    assert s.to_move() == 1
    play(s, "decline")
    assert s.round_no == 2  # mass (nothing to decide) then a new round


def test_V_DP_21_canonical_order_of_options() -> None:
    s = new()
    strip(s, 0)
    give(s, 0, cubes={"green": 2}, goods={"scroll": 1}, coins=1)
    from tests.games.village.helpers import move

    move(s, 0, "unborn", "farmyard", 2)
    move(s, 0, "farmyard", "council:1", 1)
    at_action(s, 0, "council")
    assert legal(s) == [
        "enter council gen1 pay scroll",
        "enter council gen1 pay green",
        "enter council gen1 pay green +1coin",
        "enter council gen2 pay scroll",
        "enter council gen2 pay green",
        "enter council gen2 pay green +1coin",
        "advance gen1 council 1->2 pay scroll",
        "advance gen1 council 1->2 pay green",
        "advance gen1 council 1->2 pay green +1coin",
        "use privilege 1",
        "decline",
    ]


def test_V_TIME_2_time_paid_across_the_bridge_makes_a_death_due() -> None:
    """Covers: V-TIME-2 (through the public API: a time payment that crosses the bridge
    once makes exactly one death due, and it is resolved for the active player)."""
    s = new()
    strip(s, 0)
    s.time[0] = vd.LAP_LENGTH - 1
    before = sum(count(s, 0, "farmyard", g) for g in range(1, 5))
    at_action(s, 0, "church")
    play(s, "church gen1 pay time")  # 3 time: t goes from L-1 to L+2, one crossing
    assert s.time[0] == vd.LAP_LENGTH + 2
    # one member into the bag, one generation-1 member died (only choice: auto-applied)
    assert count(s, 0, "bag", 1) == 1
    assert sum(count(s, 0, "farmyard", g) for g in range(1, 5)) == before - 2
    assert s.due[0] == 0
