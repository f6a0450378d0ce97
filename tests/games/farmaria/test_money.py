"""Phase 4: money, loans, VP, the gift, returning cards, end of year and of the game."""

from __future__ import annotations

from games.farmaria.farm import interest
from tests.games.farmaria.helpers import act, at_3a, at_4a, blank, events, field, hand, put, strs


def test_T_14_4a_order_and_bridge_loan() -> None:
    """Covers: T-14
    Covers: FM-MONEY-1"""
    s = blank(("tasos", "lambis"))
    put(s, 0, "cow", n=3)
    put(s, 0, "bull")
    put(s, 0, "tractor")
    s.wallet[0] = 1
    events(s, "tax", "merchant")
    at_4a(s)
    assert "borrow" in strs(s) and "sell tractor F0" in strs(s)
    act(s, "borrow")
    assert s.wallet[0] == 1 and s.debt[0] == 0
    assert s.vp[0] == 14  # 9 + 3 + 2 + 0; "income first" would give 5 coins


def test_T_14_variant_sell_tractor() -> None:
    """Covers: T-14"""
    s = blank(("tasos", "lambis"))
    put(s, 0, "cow", n=3)
    put(s, 0, "bull")
    put(s, 0, "tractor")
    s.wallet[0] = 1
    events(s, "tax", "merchant")
    at_4a(s)
    act(s, "sell tractor F0")  # 6 coins, not the merchant's 9, in 4a
    assert s.wallet[0] == 13 and s.vp[0] == 13
    assert any(s.cm[i] for i in range(s.k))


def _next_year(s, *evs: str) -> None:  # type: ignore[no-untyped-def]
    """Re-open a finished test year as the next one (the same farm), with these events."""
    s.over = False
    s.year += 1
    s.year_limit = s.year
    events(s, *evs)


def test_T_15_rolled_over_debt() -> None:
    """Covers: T-15
    Covers: FM-LOAN-3"""
    s = blank(("tasos", "michalis"))
    put(s, 0, "cow", n=3)
    put(s, 0, "bull")
    put(s, 0, "tractor")
    s.wallet[0] = 0
    events(s, "tax", "disease")
    at_4a(s)
    act(s, "borrow")  # P = 11, M = 3: bridge 8 + 4
    act(s, "borrow")  # income 0: re-borrow 12 + 6
    assert (s.wallet[0], s.debt[0]) == (0, 18)
    _next_year(s)
    at_4a(s)
    act(s, "borrow")  # bridge 2, interest 0
    act(s, "borrow")  # D = 20, M = 12: re-borrow 8 + 4
    assert (s.wallet[0], s.debt[0]) == (0, 12)
    _next_year(s)
    at_4a(s)
    act(s, "borrow")
    act(s, "borrow")
    assert (s.wallet[0], s.debt[0]) == (0, 2)
    _next_year(s)
    at_4a(s)
    act(s, "borrow")  # D = 4 <= 12: paid, debt free
    assert (s.wallet[0], s.debt[0]) == (8, 0)
    assert s.is_over()


def test_T_03_loan_interest_table() -> None:
    """Covers: T-03"""
    loans = [1, 2, 3, 5, 6, 10, 11, 15, 16]
    assert [interest(x) for x in loans] == [0, 0, 2, 2, 4, 4, 6, 6, 8]


def test_FM_LOAN_1_interest_charged_on_a_bridge_loan() -> None:
    """An 11-coin bridge loan costs 6 interest, repaid after income."""
    s = blank(("tasos", "michalis"))
    put(s, 0, "horse", n=4)  # upkeep 4, income 8
    field(s, 0)
    put(s, 0, "cow", 1, n=4)  # upkeep 4, income 12
    s.wallet[0] = 0
    s.audit_pen[0] = 6  # P = 14, M = 3: borrow 11
    at_4a(s)
    act(s, "borrow")
    assert s.wallet[0] == 20 - 17 and s.debt[0] == 0


def test_FM_LOAN_2_no_credit_in_phase_3() -> None:
    """Loans exist only in 4a: a good costing more than the wallet is not offered in 3a."""
    s = blank(("tasos", "michalis"))
    hand(s, 0, sel=["cow", "hen"])
    s.wallet[0] = 5
    at_3a(s, 0)
    assert "buy hen from hand" in strs(s)
    assert "buy cow from hand" not in strs(s)
    assert "borrow" not in strs(s)


def test_T_31_4a_payment_options() -> None:
    """Covers: T-31
    Covers: FM-DEC-21"""
    s = blank(("irini", "lambis"))
    put(s, 0, "apple", n=2)
    put(s, 0, "hen")
    field(s, 0)
    put(s, 0, "cow", 1)
    s.wallet[0] = 0
    s.audit_pen[0] = 4
    events(s, "tax", "merchant")
    at_4a(s)
    assert strs(s) == ["sell hen F0", "sell field F0", "sell cow F1", "sell field F1", "borrow"]
    act(s, "sell cow F1")  # M = 9 >= P = 8: paid, no further decision
    assert s.wallet[0] == 8 and s.debt[0] == 0  # 1 + apples 3 + 3 + hen 1


def test_FM_DEC_22_repay_options() -> None:
    """After income the player still short of the debt may sell or re-borrow."""
    s = blank(("tasos", "michalis"))
    put(s, 0, "hen")
    s.wallet[0] = 0
    s.debt[0] = 30
    at_4a(s)
    assert strs(s) == ["sell hen F0", "sell field F0", "borrow"]
    act(s, "sell hen F0")
    act(s, "borrow")  # 30 - (3 + 1 income + 1 sale) = 25 re-borrowed, +10 interest
    assert s.debt[0] == 25 + 10 and s.wallet[0] == 0


def test_T_02_lambis_vp_count() -> None:
    """Covers: T-02
    Covers: FM-VP-1"""
    s = blank(("lambis", "michalis"))
    expected = []
    for goods, defam in ((["cow"], 0), (["olive"], 0), (["sheep"], 1), (["horse"], 1)):
        for g in goods:
            put(s, 0, g)
        s.defam[0] = defam
        s.wallet[0] = 0
        if s.year > 1:
            _next_year(s, "disease", "insects")
        else:
            events(s, "disease", "insects")
        at_4a(s)
        expected.append(s.vp[0])
    assert expected == [3, 4, 5, 10]


def test_T_10_coins_into_vp() -> None:
    """Covers: T-10"""
    got = []
    for target in (9, 19, 20):
        s = blank(("michalis", "anthi"))
        s.wallet[0] = target - 5
        at_4a(s)
        assert s.wallet[0] == target
        got.append(s.vp[0])
    assert got == [0, 1, 2]


def test_FM_VP_1_negative_vp_and_full_fields() -> None:
    """VP may be negative (FM-AMB-22); full fields add 1."""
    s = blank(("michalis", "anthi"))
    put(s, 0, "hen")
    s.defam[0] = 3
    s.wallet[0] = 0
    at_4a(s)
    assert s.vp[0] == 1 - 3


def test_T_19_gift_tie_break() -> None:
    """Covers: T-19
    Covers: FM-GIFT-1"""
    for c_char, expect in (("anthi", 4), ("valantis", 5)):
        s = blank(("michalis", "giannos", c_char))
        s.year = 3
        s.order = [2, 0, 1]
        s.wallet = [115, 85, 115 if c_char == "anthi" else 116]
        for p in range(3):
            hand(s, p, fd=["hen"] * 2 + ["apple"] * 2 + ["olive"])
        at_4a(s, last=False)
        assert s.vp[:3] == [12, 9, 12]
        while s.actor != 2:
            s.apply(s.legal_actions()[0])
        assert s.observation(2)["decision"]["remaining"] == expect
        assert s.observation(0)["players"][2]["hand_size"] == 6


def test_FM_P4C_1_face_down_cards_return_to_hand() -> None:
    s = blank(("michalis", "anthi"))
    hand(s, 0, sel=["hen", "cow"], fd=["apple", "olive"])
    s.wallet[1] = 100  # the gift goes to player 1
    at_4a(s)
    me = s.observation(0)["players"][0]
    assert me["selected"] == [] and me["face_down"] == ["apple", "cow", "hen", "olive"]


def test_FM_EOY_1_end_of_year_bookkeeping() -> None:
    from games.farmaria.flow import bit

    s = blank(("lambis", "anthi"))
    put(s, 0, "cow")
    hand(s, 0, fd=["hen"] * 6)
    hand(s, 1, fd=["apple"] * 5)
    events(s, "tax", "merchant")
    s.played[0] |= bit(17 + 5)  # tax evasion played this year
    s.jailed_next[1] = True
    s.stole[0] = True
    at_4a(s, last=False)
    obs = s.observation(0)
    assert sorted(obs["used_events"]) == ["merchant", "tax"]  # step 1
    assert s.evaded_last[0] and s.evaded_amt_last[0] == 2  # step 2: field + cow
    assert s.jailed_now[1] and not s.jailed_next[1]  # step 3
    assert s.played[0] == 0 and not s.stole[0]  # step 4
    assert s.year == 2 and not s.is_over()  # steps 5-6
    assert s.order == [1, 0]


def test_FM_END_1_year_limit_and_vp_threshold() -> None:
    """(a) the year limit and (b) the VP threshold end the game after the year."""
    s = blank(("michalis", "anthi", "lambis"))
    s.year = 12
    at_4a(s, last=False)
    assert s.is_over()
    s = blank(("michalis", "anthi", "lambis"))
    s.wallet[1] = 295  # + 5 income = 300 coins: 30 VP
    at_4a(s, last=False)
    assert s.vp[1] == 30 and s.is_over() and s.year == 1


def test_FM_END_1_full_fields_latched() -> None:
    """(c) two full fields at once latch the end even if one stops being full."""
    s = blank(("michalis", "anthi", "lambis"))
    put(s, 0, "cow", n=2)
    put(s, 0, "sheep", n=4)
    field(s, 0)
    put(s, 0, "apple", 1, n=5)
    hand(s, 0, sel=["apple"])
    s.wallet[0] = 10
    at_3a(s, 0)
    act(s, "buy apple from hand")
    assert s.observation(1)["end_triggered"]
    act(s, "sell cow F0")
    assert s.end_triggered
    act(s, "end")
    assert not s.is_over() and s.actor != 0  # FM-END-2: the year goes on


def test_FM_END_2_year_always_completed() -> None:
    s = blank(("michalis", "anthi"))
    s.end_triggered = True
    hand(s, 1, sel=["hen"], fd=["hen", "apple"])
    s.wallet[1] = 10
    at_3a(s, 0)
    act(s, "end")
    assert s.to_move() == 1 and not s.is_over()  # the next player still plays phase 3
    act(s, "buy hen from hand")
    act(s, "end")
    while not s.is_over():
        s.apply(s.legal_actions()[-1])
    assert s.year == 1 and s.vp[1] == 1 + 13 // 10  # hen + coins


def test_FM_END_3_winner_and_tie_breaks() -> None:
    s = blank(("michalis", "anthi", "lambis", "irini"))
    s.over = True
    s.vp = [10, 10, 10, 9]
    s.wallet = [5, 8, 8, 50]
    s.debt = [0, 3, 0, 0]
    s.defam = [0, 1, 0, 0]
    r = s.result()
    assert r.ranks == (1, 2, 0, 3)  # net 8 first; net 5 twice: fewer defamations
    s2 = blank(("michalis", "anthi"))
    s2.over = True
    s2.vp = [7, 7]
    s2.wallet = [3, 3]
    assert s2.result().ranks == (0, 0)  # shared victory
    assert s2.result().scores == (7, 7)


def test_FM_END_4_longer_games_option() -> None:
    from tests.games.farmaria.helpers import SPEC

    st = SPEC.new_variant(2, 3, year_limit=20)  # type: ignore[attr-defined]
    st2 = blank(("michalis", "anthi"))
    st2.year_limit = 20
    st2.year = 18
    at_4a(st2, last=False)
    assert st.year_limit == 20 and not st2.is_over() and st2.year == 19
