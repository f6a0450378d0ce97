"""The mass (V-MAS, V-DP-18, V-DP-19), final scoring (V-SCO), T-04 and T-06."""

from __future__ import annotations

from games.village.mass import start_mass
from games.village.state import OVER, VillageState
from tests.games.village.helpers import (
    at_action,
    count,
    give,
    kind,
    legal,
    move,
    new,
    play,
    refresh,
    strip,
)
from tests.games.village.test_market import TILE


def _s(n: int = 3, seed: int = 0) -> VillageState:
    s = new(n, seed)
    for p in range(n):
        strip(s, p)
    return s


def _mass(s: VillageState, final: bool = False) -> None:
    start_mass(s, final=final)
    refresh(s)


def _bagged(s: VillageState) -> int:
    return sum(count(s, p, "bag") for p in range(s.n))


def test_T_04_mass_three_players() -> None:
    """Covers: T-04
    Covers: V-MAS-2
    Covers: V-MAS-4
    Covers: V-MAS-5
    Covers: V-MAS-6"""
    s = _s(3)
    s.start = 0
    move(s, 0, "farmyard", "church:2", 1)
    move(s, 0, "unborn", "bag", 2)
    move(s, 1, "unborn", "bag", 3)
    move(s, 2, "unborn", "church:2", 2)
    move(s, 2, "farmyard", "bag", 1)
    give(s, 0, coins=1, grain=3)
    give(s, 2, coins=1, grain=4)
    _mass(s)
    assert kind(s) == "buy_out" and s.to_move() == 0
    assert legal(s) == ["buy out gen2", "done"]
    play(s, "buy out gen2")
    # M has no coin: skipped; F buys his red generation-1 member
    assert s.to_move() == 2
    play(s, "buy out gen1")
    # two more pieces were drawn at random: with this seed a monk (back into the bag) and
    # M's member, as in the example; the three members stand in window 1
    assert count(s, 1, "bag") == 0 and count(s, 1, "church:1") == 1
    assert s.public_state()["black_bag"]["monks"] == 4
    assert count(s, 0, "church:1", 2) == 1 and count(s, 2, "church:1", 1) == 1
    assert kind(s) == "promotion" and s.to_move() == 0
    assert legal(s) == ["promote gen2 window 1->2", "promote gen1 window 2->3", "done"]
    play(s, "promote gen1 window 2->3")  # 2 grain
    play(s, "promote gen2 window 1->2")  # 1 grain, then nothing left: visit over
    assert s.grain[0] == 0 and s.to_move() == 2  # M has no grain: skipped
    play(s, "promote gen2 window 2->3")
    play(s, "promote gen2 window 3->4")
    assert s.grain[2] == 0 and count(s, 2, "church:4") == 1
    # P and F have two church members each; F's leftmost is higher: F gets the 2 points
    assert s.prestige == [0, 0, 2] and s.round_no == 2


def test_V_MAS_1_black_bag_draws_are_random_and_seeded() -> None:
    outcomes = set()
    for seed in range(12):
        s = _s(2, seed)
        move(s, 0, "farmyard", "bag", 1, 4)
        _mass(s)
        outcomes.add(count(s, 0, "church:1"))
        again = _s(2, seed)
        move(again, 0, "farmyard", "bag", 1, 4)
        _mass(again)
        assert count(again, 0, "church:1") == count(s, 0, "church:1")
    assert len(outcomes) > 1


def test_V_MAS_2_buy_out_in_order_at_most_four() -> None:
    """Covers: V-MAS-2
    Covers: V-DP-18"""
    s = _s(3)
    s.start = 1
    move(s, 0, "farmyard", "bag", 1, 3)
    move(s, 1, "farmyard", "bag", 1, 2)
    move(s, 1, "unborn", "bag", 2)
    give(s, 0, coins=5)
    give(s, 1, coins=5)
    _mass(s)
    assert s.to_move() == 1 and legal(s) == ["buy out gen1", "buy out gen2", "done"]
    play(s, "buy out gen2")
    play(s, "buy out gen1")
    play(s, "done")
    assert s.to_move() == 0  # player 2 has nothing in the bag: skipped; then player 0
    play(s, "buy out gen1")
    play(s, "buy out gen1")  # the 4th: no more buying, no random draw
    assert count(s, 0, "bag") == 1 and count(s, 1, "bag") == 1
    assert count(s, 0, "church:1") == 2 and count(s, 1, "church:1") == 2
    assert s.coins[0] == 3 and s.coins[1] == 3


def test_V_MAS_3_random_draw_completes_four_pieces() -> None:
    for seed in range(8):
        s = _s(2, seed)
        move(s, 0, "farmyard", "bag", 1, 4)
        move(s, 1, "farmyard", "bag", 1, 4)
        _mass(s)
        drawn = 8 - _bagged(s)
        assert 0 <= drawn <= 4
        assert count(s, 0, "church:1") + count(s, 1, "church:1") == drawn


def test_V_MAS_4_monks_return_members_to_window_one_rest_stay() -> None:
    """Four pieces leave the bag (V-MAS-3); a drawn monk goes back and is one of the four, a
    drawn member stands on window 1 (church:1, nowhere else), and the members not drawn stay
    in the bag and can be drawn at the next mass."""
    drawn_by_seed = []
    for seed in range(12):
        s = _s(2, seed)
        move(s, 0, "farmyard", "bag", 1, 4)
        move(s, 1, "farmyard", "bag", 1, 4)
        _mass(s)
        drawn = count(s, 0, "church:1") + count(s, 1, "church:1")
        assert s.public_state()["black_bag"]["monks"] == 4  # every drawn monk is back
        assert _bagged(s) == 8 - drawn  # the others stay in the bag
        for window in ("church:2", "church:3", "church:4"):
            assert count(s, 0, window) + count(s, 1, window) == 0
        drawn_by_seed.append(drawn)
        if drawn < 4:
            # a monk took one of the four draws; the members left in the bag are drawn at the
            # next mass, onto window 1 beside the first ones
            _mass(s)
            again = count(s, 0, "church:1") + count(s, 1, "church:1")
            assert again > drawn and _bagged(s) == 8 - again
    # members were drawn at every seed, and at some seeds a monk took a draw
    assert min(drawn_by_seed) >= 1 and min(drawn_by_seed) < 4 and max(drawn_by_seed) <= 4


def test_V_MAS_5_promotion_even_with_only_monks_and_several_windows() -> None:
    """Covers: V-MAS-5
    Covers: V-DP-19"""
    s = _s(2)
    move(s, 0, "farmyard", "church:1", 1)
    give(s, 0, grain=5)
    _mass(s)  # nothing in the bag: only monks are drawn
    assert kind(s) == "promotion"
    assert legal(s) == ["promote gen1 window 1->2", "done"]
    play(s, "promote gen1 window 1->2")
    play(s, "promote gen1 window 2->3")
    play(s, "promote gen1 window 3->4")
    assert count(s, 0, "church:4") == 1 and s.grain[0] == 0


def test_V_MAS_6_majority_ties_leftmost_then_all() -> None:
    s = _s(3)
    move(s, 0, "farmyard", "church:1", 1, 2)
    move(s, 1, "farmyard", "church:3", 1)
    move(s, 1, "farmyard", "church:1", 1)
    _mass(s)
    assert s.prestige == [0, 2, 0]
    t = _s(3)
    move(t, 0, "farmyard", "church:2", 1)
    move(t, 2, "farmyard", "church:2", 1)
    _mass(t)
    assert t.prestige == [2, 0, 2]
    u = _s(3)
    _mass(u)
    assert u.prestige == [0, 0, 0]
    v = _s(3)
    move(v, 1, "farmyard", "bag", 1, 4)
    v.chance = v.chance.reseeded(__import__("random").Random(1))
    _mass(v)
    # members still in the bag are not in the church
    assert v.prestige[1] == (2 if count(v, 1, "church:1") else 0)


def test_V_MAS_7_final_mass_is_a_full_mass_from_the_final_rounds_starter() -> None:
    s = _s(3)
    s.start = 2
    move(s, 0, "farmyard", "bag", 1)
    move(s, 2, "farmyard", "bag", 1)
    give(s, 0, coins=1, grain=1)
    give(s, 2, coins=1)
    _mass(s, final=True)
    assert s.to_move() == 2
    play(s, "buy out gen1")
    play(s, "buy out gen1")
    assert kind(s) == "promotion" and s.to_move() == 0
    play(s, "promote gen1 window 1->2")
    assert s.phase == OVER and s.prestige == [2, 0, 0]


def _over(s: VillageState) -> None:
    s.phase = OVER
    refresh(s)


def test_T_06_final_scoring_example_totals_39() -> None:
    """Covers: T-06
    Covers: V-SCO-1
    Covers: V-SCO-2
    Covers: V-SCO-3
    Covers: V-SCO-4
    Covers: V-SCO-5
    Covers: V-SCO-6"""
    s = _s(4)
    s.markers[0] = 0b111  # 3 towns: 6
    move(s, 0, "farmyard", "council:2", 1)  # 2
    move(s, 0, "unborn", "church:4", 2)  # 6
    move(s, 0, "farmyard", "chronicle", 1, 3)
    move(s, 0, "unborn", "chronicle", 2)  # 4 members: 7
    s.tiles[0] = [TILE["C01"], TILE["C04"], TILE["C12"]]  # 6 + 6 + 4 = 16
    s.pile = [t for t in s.pile if t not in s.tiles[0]]
    give(s, 0, coins=2)
    _over(s)
    d = s.result().detail[0]
    assert (d["travel"], d["council"], d["church"], d["chronicle"]) == (6, 2, 6, 7)
    assert (d["customers"], d["coins"]) == (16, 2)
    assert d["total"] == 39 == s.result().scores[0]


def test_V_SCO_1_travel_by_towns_marked() -> None:
    s = _s(2)
    s.markers = [0b111111, 0b1]
    _over(s)
    assert [d["travel"] for d in s.result().detail] == [18, 1]


def test_V_SCO_2_council_stage_one_scores_nothing() -> None:
    s = _s(2)
    for stage in (1, 2, 3, 4):
        move(s, 0, "farmyard", f"council:{stage}", 1)
    _over(s)
    assert s.result().detail[0]["council"] == 0 + 2 + 4 + 6


def test_V_SCO_3_church_windows_bag_scores_nothing() -> None:
    s = _s(2)
    for w in (1, 2, 3):
        move(s, 0, "farmyard", f"church:{w}", 1)
    move(s, 0, "farmyard", "bag", 1)
    move(s, 0, "unborn", "church:4", 2)
    _over(s)
    assert s.result().detail[0]["church"] == 2 + 3 + 4 + 6


def test_V_SCO_4_chronicle_table() -> None:
    for k, pts in ((2, 0), (3, 4), (4, 7), (5, 12), (6, 12)):
        s = _s(2)
        move(s, 0, "farmyard", "chronicle", 1, 4)
        move(s, 0, "chronicle", "farmyard", 1, 4 - min(k, 4))
        if k > 4:
            move(s, 0, "unborn", "chronicle", 2, k - 4)
        _over(s)
        assert s.result().detail[0]["chronicle"] == pts


def test_V_SCO_5_customer_points() -> None:
    s = _s(2)
    s.tiles[1] = [TILE["C24"], TILE["C02"]]
    _over(s)
    assert s.result().detail[1]["customers"] == 5 + 3


def test_V_SCO_6_one_point_per_coin() -> None:
    s = _s(2)
    give(s, 1, coins=4)
    _over(s)
    assert s.result().detail[1]["coins"] == 4 and s.result().scores[1] == 4


def test_V_SCO_7_prestige_during_play_counts() -> None:
    s = _s(2)
    give(s, 0, cubes={"brown": 2}, goods={"wagon": 1})
    at_action(s, 0, "travel")
    play(s, "travel gen1 farmyard -> town:T1")
    _over(s)
    d = s.result().detail[0]
    assert d["during_play"] == 3 and d["total"] == 3 + 1


def test_V_SCO_8_ties_customers_then_living_members_then_shared() -> None:
    s = _s(3)
    s.tiles[0] = [TILE["C22"]]  # 2 points, 1 tile
    s.tiles[1] = [TILE["C02"]]  # 3 points
    s.prestige[0] = 1
    s.tiles[2] = []
    s.prestige[2] = 3
    _over(s)
    assert s.result().scores == (3, 3, 3)
    # P0 and P1 have one tile each; P2 none. P0 and P1 have 4 living members each.
    assert s.result().ranks == (0, 0, 2)
    move(s, 1, "farmyard", "grave", 1)
    assert s.result().ranks == (0, 1, 2)


def test_V_FAQ_7_high_generations_outlive_low_ones() -> None:
    """The strategy hint rests on the death rule: with generation-1 members visible a
    generation-4 church member never dies."""
    s = _s(2)
    move(s, 0, "unborn", "church:4", 4)
    s.due[0] = 1
    at_action(s, 0, "harvest")
    play(s, "decline")
    assert count(s, 0, "church:4", 4) == 1 and count(s, 0, "chronicle", 1) == 1
