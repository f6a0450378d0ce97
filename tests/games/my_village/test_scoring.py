"""Final scoring and tie-breakers (C.15) and the worked example EX-7."""

from __future__ import annotations

from games.my_village import data as md
from games.my_village.scoring import breakdown
from tests.games.my_village.helpers import end_now, give, new, village


def _blank(n: int = 2):  # type: ignore[no-untyped-def]
    st = new(n)
    st.hand_holder = n - 1  # nobody we score holds the hand unless a test says so
    end_now(st)
    return st


def test_MV_SCORE_1_church_area() -> None:
    st = _blank()
    give(st, 0, "CH-1")
    for m in ("M-R1", "M-C1", "M-P1"):
        give(st, 0, m)
    assert breakdown(st, 0)["church"] == 2 + md.WINDOW_PP[4]
    st2 = _blank()
    give(st2, 0, "CH-4")
    assert breakdown(st2, 0)["church"] == 5


def test_MV_SCORE_2_council_area() -> None:
    st = _blank()
    give(st, 0, "MEETING_POINT")
    give(st, 0, "CC-4")
    assert breakdown(st, 0)["council"] == md.MP_PP + 3


def test_MV_SCORE_3_land_registry_bonus() -> None:
    st = _blank()
    v = village(st, 0)
    give(st, 0, "CC-3")
    give(st, 0, "T-A1")
    give(st, 0, "FIELD")
    give(st, 0, "FIELD")
    v.registry[md.CATEGORIES.index(md.Category.HARVEST)] = True
    v.registry[md.CATEGORIES.index(md.Category.COUNCIL)] = True
    d = breakdown(st, 0)
    assert d["registry_bonus"] == 2 + 1 and d["council"] == 0 + 3


def test_MV_SCORE_4_harvest_one_per_field() -> None:
    st = _blank()
    for _ in range(3):
        give(st, 0, "FIELD")
    assert breakdown(st, 0)["harvest"] == 3


def test_MV_SCORE_5_travel_printed_pp() -> None:
    st = _blank()
    give(st, 0, "T-A1")
    give(st, 0, "T-B1")
    give(st, 0, "T-C1")
    assert breakdown(st, 0)["travel"] == 1 + 2 + 4


def test_MV_SCORE_6_served_customers_only() -> None:
    st = _blank()
    v = village(st, 0)
    give(st, 0, "K24")
    give(st, 0, "K01")
    v.waiting.remove("K24")
    v.served.append("K24")
    assert breakdown(st, 0)["customers"] == 7


def test_MV_SCORE_7_saved_sp() -> None:
    st = _blank()
    village(st, 0).sp_house = 11
    assert breakdown(st, 0)["saved_sp"] == 11


def test_MV_SCORE_8_day_labourers_minus_five() -> None:
    st = _blank()
    village(st, 0).day_labourers = 2
    assert breakdown(st, 0)["day_labourers"] == -10
    assert st.result().scores[0] == -10


def test_MV_SCORE_9_hand_one_pp_without_its_sp() -> None:
    st = _blank()
    st.hand_holder = 0
    st.hand_sp = 6
    assert breakdown(st, 0)["hand"] == 1 and breakdown(st, 0)["total"] == 1
    assert breakdown(st, 1)["hand"] == 0


def test_MV_SCORE_10_tree_coins_goods_buildings_monks_score_nothing() -> None:
    """Covers: MV-SCORE-10
    MV-MONK-3"""
    st = _blank()
    v = village(st, 0)
    v.sp_tree = 8
    v.coins = 9
    v.craft_goods[0] = 2
    give(st, 0, "ST-1")
    assert breakdown(st, 0)["total"] == 0
    give(st, 0, "M-R1")  # a monk only scores as a window
    assert breakdown(st, 0)["total"] == md.WINDOW_PP[1]


def test_MV_TIE_1_tie_break_coins_goods_tree_sp() -> None:
    st = _blank()
    a, b = village(st, 0), village(st, 1)
    a.sp_house = b.sp_house = 5
    a.coins, a.sp_tree, a.wildcards = 1, 1, 1
    b.coins = 2
    b.mp_markers = [0, 0, 0]  # not goods
    result = st.result()
    assert result.scores == (5, 6)
    st.hand_holder = 0
    a.sp_house = 4
    result = st.result()
    assert result.scores == (5, 5) and result.ranks == (0, 1)
    assert result.detail[0]["tiebreak"] == 3 and result.detail[1]["tiebreak"] == 2


def test_MV_TIE_2_still_tied_share_the_victory() -> None:
    st = _blank(3)
    for p in range(3):
        village(st, p).sp_house = 4
        village(st, p).coins = 1
    village(st, 2).coins = 0
    st.hand_holder = 2
    village(st, 2).sp_house = 3
    result = st.result()
    assert result.scores == (4, 4, 4) and result.ranks == (0, 0, 2)


def test_EX_7_worked_scoring_example() -> None:
    """EX-7 (MV-SCORE-1..9): 35 PP + the served customers' PP."""
    st = _blank()
    v = village(st, 0)
    st.hand_holder = 0
    give(st, 0, "CH-1")
    for m in ("M-R1", "M-C1", "M-P1"):
        give(st, 0, m)
    give(st, 0, "CC-3")
    for c in (md.Category.TRAVEL, md.Category.CUSTOMERS, md.Category.CHURCH):
        v.registry[md.CATEGORIES.index(c)] = True
    give(st, 0, "MEETING_POINT")
    give(st, 0, "FIELD")
    give(st, 0, "T-A1")
    give(st, 0, "T-B1")
    served = ["K01", "K02", "K11", "K16", "K29"]
    for c in served:
        give(st, 0, c)
        v.waiting.remove(c)
        v.served.append(c)
    v.sp_house = 7
    customers = sum(md.CUSTOMER_BY_ID[c].pp for c in served)
    d = breakdown(st, 0)
    assert d["church"] == 10
    assert d["council"] == 2 + 0 + 2 + 5 + 4
    assert (d["harvest"], d["travel"], d["saved_sp"], d["hand"]) == (1, 3, 7, 1)
    assert d["customers"] == customers
    assert d["total"] == 35 + customers
