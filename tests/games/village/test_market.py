"""Market day (V-MKT, V-DP-16) and the rulebook's market example T-03."""

from __future__ import annotations

import pytest

from games.village import data as vd
from games.village.state import VillageState
from tests.games.village.helpers import (
    clear_board,
    give,
    kind,
    legal,
    new,
    play,
    put,
    strip,
    turn_of,
)

TILE = {c[0]: i for i, c in enumerate(vd.CUSTOMERS)}


def _market(s: VillageState, stalls: list[str], queue: list[str]) -> None:
    """Lay out the market (unused stall spaces stay empty); the rest forms the pile."""
    used = [TILE[t] for t in stalls + queue]
    s.stalls = [TILE[t] for t in stalls] + [-1] * (vd.STALLS - len(stalls))
    s.queue = [TILE[t] for t in queue] + [-1] * (vd.QUEUE - len(queue))
    s.pile = [t for t in range(len(vd.CUSTOMERS)) if t not in used]


def _setup(n: int) -> VillageState:
    s = new(n)
    for p in range(n):
        strip(s, p)
    clear_board(s)
    put(s, "market", "brown")
    put(s, "family", "pink")
    put(s, "family", "orange")
    return s


QUEUE5 = ["C05", "C06", "C07", "C08", "C09"]


def test_T_03_market_day_three_players() -> None:
    """Covers: T-03
    Covers: V-MKT-7"""
    s = _setup(3)
    _market(s, ["C01", "C02", "C03", "C15"], QUEUE5)
    top3 = s.pile[-3:]
    give(s, 0, goods={"horse": 1, "plough": 1, "scroll": 1}, grain=1, cubes={"green": 1})
    give(s, 1, grain=3, cubes={"green": 1})
    give(s, 2, goods={"scroll": 1})
    turn_of(s, 0)
    play(s, "take brown from market")
    assert legal(s) == [
        "serve stall 1 (free)",
        "serve stall 3 (free)",
        "serve stall 4 (free)",
        "pass",
    ]
    play(s, "serve stall 1 (free)")
    assert s.to_move() == 1 and legal(s) == ["serve stall 2 (green)", "pass"]
    play(s, "serve stall 2 (green)")
    assert s.time[1] == 1 and s.cubes[1][vd.GREEN] == 0
    # F (player 2) holds only a scroll: passes (his single option, applied for him)
    assert s.to_move() == 0 and legal(s) == ["serve stall 3 (green)", "pass"]
    play(s, "serve stall 3 (green)")
    # M and P can serve nothing more: both pass, the day ends, the market is refilled
    assert s.tiles[0] == [TILE["C01"], TILE["C03"]] and s.tiles[1] == [TILE["C02"]]
    assert s.time[0] == 1 and s.prestige == [0, 0, 0]
    names = s.public_state()["market"]
    assert names["stalls"] == ["C05", "C06", "C07", "C15"]
    assert names["queue"][:2] == ["C08", "C09"]
    assert names["queue"][2:] == [vd.CUSTOMERS[t][0] for t in reversed(top3)]
    assert s.to_move() == 1 and kind(s) == "turn"


def test_V_MKT_1_market_day_is_mandatory_also_via_the_well() -> None:
    s = _setup(2)
    _market(s, ["C02", "C22", "C23"], QUEUE5)
    give(s, 0, cubes={"pink": 3})
    give(s, 1, grain=2, cubes={"green": 1})
    turn_of(s, 0)
    play(s, "well for market")  # the payment (3 pink) is his only option: made for him
    # player 0 cannot sell (passes automatically); player 1 is asked
    assert kind(s) == "market" and s.mk_starter == 0 and s.to_move() == 1


def test_V_MKT_2_queue_customers_cannot_be_served() -> None:
    s = _setup(2)
    _market(s, ["C04", "C05", "C06"], ["C22", "C23", "C24", "C02", "C07"])
    give(s, 0, grain=5)
    turn_of(s, 0)
    play(s, "take brown from market")
    # grain-only customers wait in the queue: nothing to serve, the day ends at once
    assert s.tiles == [[], []] and s.to_move() == 1


def test_V_MKT_3_clockwise_from_starter_passed_players_are_out() -> None:
    s = _setup(3)
    _market(s, ["C22", "C22".replace("22", "23"), "C02", "C24"], QUEUE5)
    for p in range(3):
        give(s, p, grain=5, cubes={"green": 2})
    s.active = 1
    turn_of(s, 1)
    play(s, "take brown from market")
    order = []
    order.append(s.to_move())
    play(s, "pass")
    order.append(s.to_move())
    play(s, "serve stall 1 (green)")
    order.append(s.to_move())
    play(s, "pass")
    order.append(s.to_move())  # player 1 passed: back to player 2
    assert order == [1, 2, 0, 2]


def test_V_MKT_4_serving_returns_the_demand_and_takes_the_tile() -> None:
    s = _setup(2)
    _market(s, ["C01", "C02", "C03"], QUEUE5)
    give(s, 0, goods={"horse": 1, "plough": 1})
    sup = s.sup_goods[:]
    turn_of(s, 0)
    play(s, "take brown from market")
    play(s, "serve stall 1 (free)")
    assert s.tiles[0] == [TILE["C01"]] and s.goods[0] == [0] * 5
    assert s.sup_goods[vd.HORSE] == sup[vd.HORSE] + 1
    assert s.observation(1)["players"][0]["customers"] == ["C01"]  # public (G-39)


def test_V_MKT_5_extra_sale_costs_green_and_time() -> None:
    s = _setup(2)
    _market(s, ["C22", "C02", "C23"], QUEUE5)
    give(s, 0, grain=5, cubes={"green": 1}, coins=1)
    turn_of(s, 0)
    play(s, "take brown from market")
    play(s, "serve stall 1 (free)")
    assert s.time[0] == 0 and s.to_move() == 0  # player 1 cannot sell: passed for him
    assert legal(s) == ["serve stall 2 (green)", "serve stall 2 (coin)", "pass"]
    play(s, "serve stall 2 (coin)")
    assert s.time[0] == 1 and s.coins[0] == 0 and s.cubes[0][vd.GREEN] == 1


def test_V_MKT_6_day_ends_when_all_served_or_all_passed() -> None:
    s = _setup(2)
    _market(s, ["C22", "C02", "C24"], QUEUE5)
    give(s, 0, grain=5, cubes={"green": 2})
    give(s, 1, grain=5, cubes={"green": 2})
    turn_of(s, 0)
    play(s, "take brown from market")
    play(s, "serve stall 1 (free)")  # 2 grain
    play(s, "serve stall 3 (green)")  # player 1, 5 grain
    play(s, "serve stall 2 (green)")  # player 0, 3 grain
    assert kind(s) == "turn" and len(s.tiles[0]) == 2  # every stall customer served
    t = _setup(2)
    _market(t, ["C22", "C02", "C23"], QUEUE5)
    give(t, 0, grain=5, cubes={"green": 2})
    give(t, 1, grain=5, cubes={"green": 2})
    turn_of(t, 0)
    play(t, "take brown from market")
    play(t, "pass")
    play(t, "pass")
    assert kind(t) == "turn" and t.tiles == [[], []]


def test_V_MKT_7_exhausted_pile_leaves_spaces_empty() -> None:
    s = _setup(2)
    _market(s, ["C22", "C02", "C23"], ["C05"])
    s.pile = []
    give(s, 0, grain=2)
    turn_of(s, 0)
    play(s, "take brown from market")
    play(s, "serve stall 1 (free)")
    m = s.public_state()["market"]
    assert m["stalls"] == ["C05", "C02", "C23"] and m["queue"] == [None] * 5


def test_V_MKT_8_death_in_a_market_day_is_resolved_at_once() -> None:
    s = _setup(2)
    _market(s, ["C22", "C02", "C13"], QUEUE5)
    give(s, 0, grain=5, goods={"horse": 1}, cubes={"green": 1})
    give(s, 1, grain=5, cubes={"green": 1})
    s.time[1] = vd.LAP_LENGTH - 1
    from tests.games.village.helpers import move

    move(s, 1, "farmyard", "building:office", 1)
    turn_of(s, 0)
    play(s, "take brown from market")
    play(s, "serve stall 1 (free)")
    play(s, "serve stall 2 (green)")  # player 1 crosses the bridge
    assert kind(s) == "death" and s.to_move() == 1
    play(s, "die at building:office")
    assert s.chron_cat[1][vd.CAT_CRAFTS] == 1
    assert kind(s) == "market" and s.to_move() == 0


def test_V_MKT_9_no_stall_customer_ends_the_day_at_once() -> None:
    s = _setup(2)
    _market(s, [], QUEUE5)
    s.pile += [TILE[t] for t in ("C01", "C02", "C03")]
    give(s, 0, grain=5)
    before = s.public_state()["market"]
    turn_of(s, 0)
    play(s, "take brown from market")
    assert s.public_state()["market"] == before and s.to_move() == 1


def test_V_DP_16_identical_tiles_offered_once(monkeypatch: pytest.MonkeyPatch) -> None:
    deck = list(vd.CUSTOMERS)
    deck[TILE["C23"]] = ("C23", (0, 0, 0, 0, 0), 2, 2)  # now identical to C22
    monkeypatch.setattr(vd, "CUSTOMERS", tuple(deck))
    s = _setup(2)
    _market(s, ["C22", "C23", "C02"], QUEUE5)
    give(s, 0, grain=5, cubes={"green": 1})
    turn_of(s, 0)
    play(s, "take brown from market")
    assert legal(s) == ["serve stall 1 (free)", "serve stall 3 (free)", "pass"]
