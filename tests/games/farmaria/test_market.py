"""The Common Market, buying and selling (FM-CM-*, FM-BUY-*, FM-SELL-*)."""

from __future__ import annotations

import random

from games.chance import derive_seed
from games.farmaria import market
from games.farmaria.farm import CTYPE
from tests.games.farmaria.helpers import (
    T,
    act,
    at_3a,
    at_phase2,
    blank,
    clear_cm,
    cm_put,
    events,
    farm_names,
    field,
    hand,
    names,
    new,
    put,
    stack_events,
    strs,
    take,
)


def tops(s) -> list[str | None]:  # type: ignore[no-untyped-def]
    return [None if not st else d_name(st[-1]) for st in s.cm]


def d_name(c: int) -> str:
    from games.farmaria import data as d

    return d.CARD_IDS[CTYPE[c]]


def test_FM_CM_1_active_positions() -> None:
    for n, k in ((2, 4), (3, 5), (4, 6), (5, 7), (6, 8)):
        s = new(("michalis", "anthi", "lambis", "irini", "tasos", "nikos")[:n])
        assert len(s.observation(0)["market"]) == k


def test_T_12_common_market_mechanics() -> None:
    """Covers: T-12
    Covers: FM-CM-2
    Covers: FM-CM-4
    Covers: FM-CM-7"""
    s = blank(("michalis", "anthi", "lambis"))
    c1, c2 = cm_put(s, "hen"), cm_put(s, "sheep")
    assert s.marker == 1 and s.observation(0)["marker"] == 2
    xs = [cm_put(s, x) for x in ("apple", "olive", "orange", "cow", "bull")]
    assert [st[-1] for st in s.cm] == [xs[3], xs[4], xs[0], xs[1], xs[2]]
    assert s.cm[0] == [c1, xs[3]] and s.cm[1] == [c2, xs[4]] and s.marker == 1
    s.wallet[0] = 20
    at_3a(s, 0)
    act(s, "buy CM1")  # x4 (the cow) bought and placed: c1 is active again
    assert s.cm[0] == [c1]
    x6 = cm_put(s, "horse")
    assert s.cm[2] == [xs[0], x6]  # position 3, on top of x1; not position 1
    s.deck = []
    c = market.draw(s)
    assert c in (c2, xs[0]) and sorted([*s.deck, c]) == sorted([c2, xs[0]])
    assert s.cm[1] == [xs[4]] and s.cm[2] == [x6]


def test_FM_CM_3_what_enters_the_cm() -> None:
    """Sales, played actions and discards enter the CM; uprooted plants do not."""
    s = blank(("michalis", "anthi"))
    put(s, 0, "cow")
    put(s, 0, "apple")
    hand(s, 0, sel=["opportunity", "hen"])
    at_3a(s, 0)
    act(s, "sell cow F0")
    act(s, "uproot apple F0")
    act(s, "play opportunity")
    if s.observation(0)["decision"]["kind"] == "opportunity_reject":
        s.apply(s.legal_actions()[0])
    entered = [d_name(st[-1]) if st else None for st in s.cm]
    assert "cow" in entered and "opportunity" in entered and "apple" not in entered[:2]
    assert any(CTYPE[c] == T["apple"] for c in s.removed)


def test_FM_CM_5_actions_in_the_cm_cannot_be_bought() -> None:
    s = blank(("michalis", "anthi"))
    cm_put(s, "doberman")
    cm_put(s, "hen")
    s.wallet[0] = 50
    at_3a(s, 0)
    assert [x for x in strs(s) if x.startswith("buy CM")] == ["buy CM2"]


def test_T_26_no_buy_back_in_the_same_year() -> None:
    """Covers: T-26
    Covers: FM-CM-6"""
    s = blank(("michalis", "anthi"))
    put(s, 0, "cow")
    events(s, "discount", "merchant")
    hand(s, 0, sel=["diplomacy", "auction"])
    hand(s, 1, sel=["hen"])
    cm_put(s, "hen")
    at_3a(s, 0)
    act(s, "sell cow F0")
    assert s.wallet[0] == 6 + 8
    pos = f"CM{s.marker + 1}"
    assert f"buy {pos}" not in strs(s)
    act(s, "play diplomacy")
    assert "diplomacy CM1" in strs(s) and f"diplomacy {pos}" not in strs(s)
    act(s, "diplomacy P1 selected")
    act(s, "play auction")  # the only lot left is the hen: the sold cow is not offered
    assert s.observation(1)["decision"]["lot"] == "hen"
    s2 = blank(("michalis", "anthi"))
    put(s2, 0, "cow")
    events(s2, "discount", "merchant")
    at_3a(s2, 0)
    act(s2, "sell cow F0")
    act(s2, "end")
    s2.wallet[1] = 7
    at_3a(s2, 1)
    act(s2, "buy CM1")
    act(s2, "sell cow F0")
    assert s2.wallet[1] == 8 and "buy CM2" not in strs(s2)


def test_FM_CM_7_empty_deck_and_no_inactive_cards() -> None:
    """With no deck and nothing inactive the draw does not happen (FM-AMB-32)."""
    s = blank(("michalis", "anthi"))
    s.deck = []
    assert market.draw(s) == -1


def test_FM_CM_8_bundles_split_when_reshuffled() -> None:
    s = blank(("michalis", "anthi"))
    f = field(s, 0)
    put(s, 0, "apple", f, n=2)
    at_3a(s, 0)
    act(s, "sell field F1")
    bundle = s.cm[s.marker][-1]
    assert bundle in s.bundles
    cm_put(s, "hen")
    for _ in range(s.k - 1):
        cm_put(s, "olive")  # cover the bundle
    s.deck = []
    market.draw(s)
    assert bundle not in s.bundles
    assert sorted(names(s.deck)).count("apple") + sorted(names([])).count("apple") >= 1


def test_FM_CM_9_tax_audit_reshuffle() -> None:
    s = blank(("michalis", "anthi"))
    c1 = cm_put(s, "hen")
    for _ in range(s.k):
        cm_put(s, "olive")
    deck_before = len(s.deck)
    stack_events(s, "tax_audit", "merchant")
    at_phase2(s)
    assert c1 in s.deck and len(s.deck) == deck_before + 1
    assert all(len(st) <= 1 for st in s.cm)


def test_T_01_the_cow_card() -> None:
    """Covers: T-01
    Covers: FM-BUY-1
    Covers: FM-BUY-2
    Covers: FM-SELL-2
    Covers: FM-SELL-3"""
    s = blank(("michalis", "lambis"))
    hand(s, 0, sel=["cow"])
    cm_put(s, "cow")
    s.wallet[0] = 17
    at_3a(s, 0)
    act(s, "buy cow from hand")
    assert s.wallet[0] == 10
    act(s, "buy CM1")
    assert s.wallet[0] == 0
    act(s, "sell cow F0")
    assert s.wallet[0] == 5 and d_name(s.cm[s.marker][-1]) == "cow"
    events(s, "merchant")
    at_3a(s, 0)
    act(s, "sell cow F0")
    assert s.wallet[0] == 13
    s3 = blank(("michalis", "lambis"))
    cm_put(s3, "cow")
    events(s3, "discount")
    s3.wallet[0] = 7
    at_3a(s3, 0)
    act(s3, "buy CM1")
    assert s3.wallet[0] == 0
    s3.over = False


def test_FM_SELL_1_what_can_be_sold() -> None:
    s = blank(("michalis", "anthi"))
    put(s, 0, "stable")
    put(s, 0, "apple")
    put(s, 0, "hen", 0, 0)
    put(s, 0, "tractor")
    hand(s, 0, sel=["cow"])
    s.wallet[0] = 0
    at_3a(s, 0)
    sells = [x for x in strs(s) if x.startswith("sell")]
    assert sells == ["sell tractor F0", "sell hen F0/S0", "sell field F0"]


def test_T_20_selling_a_field_bundle() -> None:
    """Covers: T-20
    Covers: FM-SELL-4"""
    s = blank(("michalis", "anthi"))
    f2 = field(s, 0)
    put(s, 0, "stable", f2)
    put(s, 0, "sheep", f2, 0, n=2)
    put(s, 0, "apple", f2, n=2)
    put(s, 0, "tractor", f2)
    s.wallet[0] = 0
    at_3a(s, 0)
    act(s, "move tractor F1")
    assert farm_names(s, 0)[0] == ["tractor"]
    act(s, "sell field F1")
    assert s.wallet[0] == 15
    b = s.cm[s.marker][-1]
    from games.farmaria.auction import opening
    from games.farmaria.farm import price

    assert price(s, b, "cm") == 45 and price(s, b, "item") == 27
    assert opening(s, b, -1) == 23
    events(s, "discount")
    assert opening(s, b, -1) == 14
    s2 = blank(("michalis", "anthi"))
    put(s2, 0, "tractor")
    f = field(s2, 0)
    put(s2, 0, "apple", f, n=2)
    events(s2, "merchant")
    at_3a(s2, 0)
    act(s2, "sell field F1")
    assert s2.wallet[0] == 6 + 6 + 5 + 5
    act(s2, "end")
    s2.wallet[1] = 100
    put(s2, 1, "tractor")
    at_3a(s2, 1)
    act(s2, "buy CM1")  # a tractor owner may buy a bundle without a tractor
    assert len(s2.farm[1]) == 2 and farm_names(s2, 1)[1] == ["apple", "apple"]


def test_T_25_ioanna_discount() -> None:
    """Covers: T-25
    Covers: FM-CHAR-12"""
    s = blank(("ioanna", "anthi"))
    cm_put(s, "cow")
    cm_put(s, "sheep")
    s.wallet[0] = 15
    at_3a(s, 0)
    act(s, "buy CM1 at item price")
    assert s.wallet[0] == 8
    assert "buy CM2 at item price" not in strs(s)
    act(s, "buy CM2")
    assert s.wallet[0] == 0
    s2 = blank(("ioanna", "anthi"))
    cm_put(s2, "cow")
    events(s2, "discount")
    s2.wallet[0] = 7
    at_3a(s2, 0)
    assert "buy CM1" in strs(s2) and "buy CM1 at item price" not in strs(s2)


def test_FM_BUY_1_only_selected_goods() -> None:
    s = blank(("michalis", "anthi"))
    hand(s, 0, sel=["hen"], fd=["sheep"])
    s.wallet[0] = 50
    at_3a(s, 0)
    assert "buy hen from hand" in strs(s) and "buy sheep from hand" not in strs(s)
    clear_cm(s)
    assert take(s, "sheep") >= 0


def test_FM_CM_7_exhausted_deck_reshuffles_the_inactive_cards() -> None:
    """Covers: FM-CM-7

    Five cards are drawn from a deck of two: the two are drawn, the deck is exhausted, and
    the covered (inactive) CM cards become the new deck, shuffled, while the active tops and
    the marker stay; the next three draws come from it. The new deck's order is exactly
    ``random.Random.shuffle``'s on stream ``deck``/n (the engine inlines that shuffle, and the
    golden games rely on the order), checked on other sizes too."""
    s = blank(("michalis", "anthi"))
    covered = [cm_put(s, "hen") for _ in range(s.k)]  # one round of the CM, then covered
    tops = [cm_put(s, "olive") for _ in range(s.k)]
    marker = s.marker
    last_two = [take(s, "cow"), take(s, "sheep")]
    s.deck = list(last_two)
    shuffles = s.deck_shuffles
    expected = sorted(covered)
    random.Random(derive_seed(s.chance.seed, "deck", shuffles)).shuffle(expected)
    drawn = market.draw_many(s, 5)
    assert drawn[:2] == last_two[::-1]  # the last deck cards first (top = end of the list)
    assert sorted(drawn[2:]) == sorted(expected[-3:])  # then the reshuffled covered cards
    assert drawn[2:] == expected[::-1][:3] and s.deck == expected[:-3]
    assert s.deck_shuffles == shuffles + 1
    assert s.cm == [[c] for c in tops]  # active cards stay
    assert s.marker == marker
    for size in (0, 1, 2, 3, 36, 150, 186):
        for seed in range(20):
            ours, theirs = list(range(size)), list(range(size))
            market.shuffle(random.Random(seed), ours)
            random.Random(seed).shuffle(theirs)
            assert ours == theirs
