"""Phase 2 (Year Events) and the income rules of 4a."""

from __future__ import annotations

from games.farmaria.flow import bit
from games.farmaria.state import FarmariaState
from tests.games.farmaria.helpers import (
    T,
    act,
    at_3a,
    at_4a,
    at_phase2,
    blank,
    events,
    field,
    hand,
    put,
    stack_events,
    strs,
)


def net(s: FarmariaState, p: int = 0) -> int:
    """Wallet change of player p over a 4a run through the public flow."""
    before = s.wallet[p]
    at_4a(s)
    return s.wallet[p] - before


def apple_yield(evs: tuple[str, ...], tractor: bool = True, jailed: bool = False,
                char: str = "michalis", insecticide: bool = False) -> int:  # fmt: skip
    """Income of one apple tree: 4a wallet change minus permanent income plus upkeep."""
    s = blank((char, "anthi"))
    put(s, 0, "apple")
    if tractor:
        put(s, 0, "tractor")
    s.wallet[0] = 50
    events(s, *evs)
    s.jailed_now[0] = jailed
    if insecticide:
        s.played[0] |= bit(T["insecticide"])
    perm = 0 if jailed else {"michalis": 5, "argyri": 3}[char]
    return net(s) - perm + (1 if tractor else 0)


def test_T_04_tractor_and_apples() -> None:
    """Covers: T-04
    Covers: FM-INC-1
    Covers: FM-CHAR-13"""
    assert apple_yield(()) == 4
    assert apple_yield(("apple_plus",)) == 5
    assert apple_yield(("apple_minus",)) == 3
    assert apple_yield(("apple_plus", "apple_minus")) == 4
    assert apple_yield(("insects",)) == 0
    assert apple_yield(("bad_weather",)) == 0
    assert apple_yield((), jailed=True) == 3
    assert apple_yield((), tractor=False, char="argyri") == 4
    assert apple_yield(("apple_minus",), tractor=False, char="argyri") == 3


def test_T_05_identical_events() -> None:
    """Covers: T-05
    Covers: FM-EVT-2"""
    s = blank(("michalis", "anthi"))
    put(s, 0, "orange", n=2)
    s.wallet[0] = 0
    events(s, "orange_plus", "orange_plus")
    assert s.observation(0)["effective_events"] == ["orange_plus"]
    assert net(s) == 5 + 2 * 5
    assert apple_yield(("insects", "insects"), tractor=False, insecticide=True) == 3
    assert apple_yield(("insects", "insects"), tractor=False) == 0


def test_T_06_opposite_events() -> None:
    """Covers: T-06"""
    s = blank(("michalis", "anthi"))
    events(s, "apple_plus", "apple_minus")
    assert s.observation(0)["effective_events"] == []
    assert apple_yield(("apple_plus", "apple_minus"), tractor=False) == 3


def test_T_07_overriding_events() -> None:
    """Covers: T-07
    Covers: FM-EVT-8"""
    assert apple_yield(("bad_weather", "apple_minus"), tractor=False) == 0
    assert apple_yield(("bad_weather", "apple_plus"), tractor=False) == 0
    assert apple_yield(("insects", "apple_plus"), tractor=False) == 0
    for evs, tractor, want in (
        (("bad_weather",), False, 3),
        (("bad_weather",), True, 4),
        (("bad_weather", "olive_plus"), True, 5),
    ):
        s = blank(("michalis", "anthi"))
        put(s, 0, "olive")
        if tractor:
            put(s, 0, "tractor")
        events(s, *evs)
        assert net(s) - 5 + tractor == want


def test_T_08_olive_plus_minus() -> None:
    """Covers: T-08
    Covers: FM-EVT-4"""
    for ev, want in (("olive_minus", 2), ("olive_plus", 4)):
        s = blank(("michalis", "anthi"))
        put(s, 0, "olive", n=2)
        events(s, ev)
        assert net(s) - 5 == 2 * want


def test_T_09_hens_and_roosters() -> None:
    """Covers: T-09
    Covers: FM-INC-2"""
    for roosters, income, upkeep, tax, vp in ((0, 3, 0, 0, 3), (1, 6, 1, 1, 4), (2, 6, 2, 2, 5)):
        s = blank(("tasos", "anthi"))
        put(s, 0, "hen", n=3)
        put(s, 0, "rooster", n=roosters)
        s.wallet[0] = 20
        events(s, "tax")
        assert net(s) == 3 + income - upkeep - tax - 1  # the field's own tax is 1
        assert s.vp[0] - s.wallet[0] // 10 == vp


def test_FM_INC_2_male_bonus_anywhere_bad_weather_in_stable() -> None:
    """The bull's bonus counts wherever it stands; under Bad Weather only sheltered animals
    yield (FM-AMB-19)."""
    s = blank(("lambis", "anthi"))
    put(s, 0, "stable")
    put(s, 0, "cow", 0, 0)
    put(s, 0, "cow")
    field(s, 0)
    put(s, 0, "bull", 1)
    s.wallet[0] = 0
    events(s, "bad_weather")
    assert net(s) == 3 + 4  # Lambis: no animal upkeep; only the sheltered cow yields, +1


def test_FM_INC_3_goods_sold_in_4a_yield_nothing() -> None:
    s = blank(("tasos", "anthi"))
    put(s, 0, "cow")
    put(s, 0, "hen")
    s.wallet[0] = 0
    s.audit_pen[0] = 4  # P = 5, M = 3
    at_4a(s)
    act(s, "sell cow F0")  # M = 8, P = 4: pays, M = 4; only the hen yields
    assert s.wallet[0] == 4 + 1


def test_FM_EVT_5_insects() -> None:
    """Insects stop plant income (bonuses too) unless Insecticide or Anthi; VP stay.
    Covers: FM-CHAR-7"""
    assert apple_yield(("insects",)) == 0
    assert apple_yield(("insects",), insecticide=True) == 4
    s = blank(("anthi", "michalis"))
    put(s, 0, "apple")
    events(s, "insects")
    assert net(s) == 5 + 3
    assert s.vp[0] - s.wallet[0] // 10 == 1


def test_FM_EVT_6_disease() -> None:
    """Disease: animals yield nothing without a Vet (or Paraskevi); upkeep still due.
    Covers: FM-ACT-9
    Covers: FM-CHAR-6"""
    for char, vet, want in (("michalis", False, 5 - 1), ("michalis", True, 5 - 1 + 3),
                            ("paraskevi", False, 6 - 1 + 3)):  # fmt: skip
        s = blank((char, "anthi"))
        put(s, 0, "cow")
        events(s, "disease")
        if vet:
            s.played[0] |= bit(T["vet"])
        assert net(s) == want
        assert s.vp[0] - s.wallet[0] // 10 == 3


def test_T_18_horse_subsidy() -> None:
    """Covers: T-18
    Covers: FM-EVT-7"""
    for evs in (("horse_subsidy", "disease"), ("horse_subsidy", "horse_subsidy")):
        s = blank(("tasos", "anthi"))
        put(s, 0, "horse", n=2)
        s.jailed_now[0] = True  # FM-AMB-28: paid even in jail
        s.wallet[0] = 0
        stack_events(s, *evs)
        at_phase2(s)
        assert s.wallet[0] == 10
    s.wallet[0] = 0
    s.jailed_now[0] = False
    events(s, "horse_subsidy", "disease")
    assert net(s) == 3 - 2  # sick horses yield 0, cost 2 upkeep


def test_FM_EVT_1_reveal_tops_and_safety_reshuffle() -> None:
    s = blank(("tasos", "anthi"))
    tops = [pile[-1] for pile in s.ye_piles]
    at_phase2(s)
    assert s.ye_current == tops
    s2 = blank(("michalis", "anthi"))
    s2.ye_discard = s2.ye_piles[0] + s2.ye_piles[1]
    s2.ye_piles = [[], []]
    at_4a(s2, last=False)  # next year's 1a finds both piles empty
    assert len(s2.ye_piles[0]) + len(s2.ye_piles[1]) + len(s2.ye_current) == 36


def test_FM_EVT_3_phase_2_steps_in_order() -> None:
    s = blank(("tasos", "anthi", "lambis"))
    put(s, 1, "horse")
    s.evaded_last[0] = True
    s.evaded_amt_last[0] = 3
    hand(s, 2, sel=["insecticide"])
    hand(s, 0, sel=["doberman"])
    stack_events(s, "horse_subsidy", "tax_audit")
    s.ye_discard = [s.ye_piles[0].pop(0)]
    at_phase2(s)
    assert s.wallet[1] == 6 + 5  # step 2
    assert s.defam[0] == 1 and s.audit_pen[0] == 6  # step 3
    assert s.ye_discard == []  # step 5: used events reshuffled into the piles
    assert s.observation(0)["decision"]["kind"] == "action_3a"  # no defence card applies


def test_FM_EVT_9_tax() -> None:
    s = blank(("tasos", "michalis", "anthi"))
    for p in range(3):
        put(s, p, "stable")
        put(s, p, "apple", n=2)
        put(s, p, "hen")
    s.played[2] |= bit(T["tax_evasion"])
    events(s, "tax")
    before = list(s.wallet)
    at_4a(s)
    taxed = [s.wallet[p] - before[p] for p in range(3)]
    income = 6 + 1
    assert taxed == [3 + income - 4, 5 + income, 5 + income]


def test_FM_EVT_11_merchant_price_only_in_3a() -> None:
    s = blank(("tasos", "anthi"))
    put(s, 0, "cow")
    events(s, "merchant")
    at_3a(s, 0)
    act(s, "sell cow F0")
    assert s.wallet[0] == 6 + 8
    s2 = blank(("tasos", "anthi"))
    put(s2, 0, "cow")
    s2.wallet[0] = 0
    s2.audit_pen[0] = 4
    events(s2, "merchant")
    at_4a(s2)
    act(s2, "sell cow F0")  # emergency price 5 even with the Merchant: M = 8, P = 4
    assert s2.wallet[0] == 4


def test_FM_EVT_12_discount() -> None:
    from tests.games.farmaria.helpers import cm_put

    s = blank(("tasos", "anthi"))
    hand(s, 0, sel=["cow"])
    cm_put(s, "cow")
    s.wallet[0] = 7
    events(s, "discount")
    at_3a(s, 0)
    assert "buy CM1" in strs(s) and "buy cow from hand" in strs(s)
    act(s, "buy CM1")
    assert s.wallet[0] == 0


def test_FM_EVT_13_tax_and_audit_together() -> None:
    s = blank(("tasos", "anthi"))
    put(s, 0, "cow")
    s.evaded_last[0] = True
    s.evaded_amt_last[0] = 2
    s.wallet[0] = 20
    stack_events(s, "tax", "tax_audit")
    at_phase2(s)
    assert s.defam[0] == 1
    assert net(s) == 3 - 4 - 2 - 1 + 3  # penalty 4, tax 2, upkeep 1, income 3
