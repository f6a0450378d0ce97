"""The 14 characters (FM-CHAR-1..14)."""

from __future__ import annotations

from games.farmaria import flow, rules
from games.farmaria.farm import CTYPE
from tests.games.farmaria.helpers import (
    T,
    act,
    at_3a,
    at_4a,
    blank,
    cm_put,
    d,
    deck_top,
    events,
    farm_names,
    hand,
    names,
    new,
    put,
    strs,
)


def test_FM_CHAR_1_vangelis_starts_with_a_stable() -> None:
    s = new(("vangelis", "anthi"))
    assert farm_names(s, 0) == [["stable"]] and farm_names(s, 1) == [[]]
    assert s.conserved_totals()["cards_stable"] == 10
    in_deck = sum(1 for c in s.deck if CTYPE[c] == T["stable"])
    in_hands = sum(1 for p in range(2) for c in s.sel[p] + s.fd[p] if CTYPE[c] == T["stable"])
    assert in_deck + in_hands + sum(1 for st in s.cm for c in st if CTYPE[c] == T["stable"]) == 9
    s = blank(("vangelis", "anthi"))
    s.wallet[0] = 0
    at_3a(s, 0)
    assert "demolish F0/S0" in strs(s)
    at_4a(s)
    assert s.vp[0] == 1


def test_FM_CHAR_2_alexandros_draws_one_extra() -> None:
    """Covers: FM-DEC-20"""
    s = blank(("alexandros", "anthi"))
    hand(s, 0, sel=["hen", "cow", "apple"], fd=["olive"])
    s.wallet[0] = 10
    deck_top(s, "doberman", "sheep", "apple")
    at_3a(s, 0)
    act(s, "buy hen from hand")
    act(s, "end")
    act(s, "discard cow")  # minimum discard
    act(s, "stop")  # 2 cards are needed: 3 are drawn
    assert s.observation(0)["decision"]["kind"] == "alexandros_reject"
    assert s.observation(0)["decision"]["drawn"] == ["apple", "doberman", "sheep"]
    assert "drawn" not in s.observation(1)["decision"]
    act(s, "reject doberman")
    assert names(s.fd[0]) == ["apple", "olive", "sheep"] and names(s.sel[0]) == ["apple"]
    assert CTYPE[s.cm[s.marker][-1]] == T["doberman"]
    s = blank(("alexandros", "anthi"))
    hand(s, 0, sel=["opportunity", "cow"], fd=["olive"])
    deck_top(s, "hen", "hen", "hen", "sheep", "apple", "olive")
    at_3a(s, 0)
    act(s, "play opportunity")
    act(s, "reject apple")
    act(s, "end")
    while s.observation(0)["decision"]["kind"].startswith("discard"):
        s.apply(s.legal_actions()[0])
    assert s.to_move() == 1  # no extra card to choose from in an Opportunity year
    assert s.observation(1)["players"][0]["hand_size"] == 4


def test_FM_CHAR_3_lambis_no_animal_upkeep() -> None:
    s = blank(("lambis", "anthi"))
    put(s, 0, "cow", n=2)
    put(s, 0, "tractor")
    s.wallet[0] = 10
    at_4a(s)
    assert s.wallet[0] == 10 + 3 - 1 + 6


def test_FM_CHAR_4_michalis_tax_exempt() -> None:
    s = blank(("michalis", "anthi"))
    put(s, 0, "cow", n=2)
    hand(s, 0, sel=["tax_evasion"])
    events(s, "tax")
    at_3a(s, 0)
    assert "play tax_evasion" not in strs(s)
    s.wallet[0] = 0
    at_4a(s)
    assert s.wallet[0] == 5 - 2 + 6 and not s.evaded_last[0]


def test_FM_CHAR_5_irini_cannot_be_robbed() -> None:
    s = blank(("michalis", "irini"))
    put(s, 1, "cow")
    hand(s, 0, sel=["animal_thief", "burglar"])
    at_3a(s, 0)
    assert not any(x.startswith("play") for x in strs(s))
    assert s.defam[0] == 0


def test_FM_CHAR_6_paraskevi_cures_disease() -> None:
    s = blank(("paraskevi", "anthi"))
    put(s, 0, "sheep", n=2)
    s.wallet[0] = 0
    events(s, "disease")
    at_4a(s)
    assert s.wallet[0] == 6 - 2 + 4


def test_FM_CHAR_7_anthi_permanent_insecticide() -> None:
    s = blank(("anthi", "michalis"))
    put(s, 0, "orange", n=2)
    put(s, 1, "orange", n=2)
    s.wallet = [0, 0]
    events(s, "insects")
    at_4a(s)
    assert s.wallet == [5 + 8, 5]


def test_FM_CHAR_8_giannos() -> None:
    """Covers: FM-DEC-19"""
    s = blank(("giannos", "michalis"))
    hand(s, 0, sel=["hen", "cow"], fd=["olive"])
    hand(s, 1, sel=["diplomacy", "hen"])
    horse = cm_put(s, "horse")
    cm_put(s, "auction")
    s.wallet[0] = 3
    at_3a(s, 0)
    act(s, "buy hen from hand")
    act(s, "end")  # the cow is discarded (forced) to CM3: his own, so not pickable
    assert strs(s) == ["pick CM1", "pick CM2", "none"]
    deck = len(s.deck)
    act(s, "pick CM1")
    # the horse is one of his 4 refill cards (face down, with the olive); 2 come from the deck
    assert horse in s.fd[0] and horse not in s.cm[0] and "olive" in names(s.fd[0])
    assert deck - len(s.deck) == 2
    assert len(s.fd[0]) == 4 and s.observation(1)["players"][0]["hand_size"] == 4
    at_3a(s, 1)
    act(s, "play diplomacy")
    assert not any("P0" in x for x in strs(s))  # immune to Diplomacy option (b)


def test_FM_CHAR_8_giannos_not_after_diplomacy_attack() -> None:
    s = blank(("giannos", "michalis"))
    hand(s, 0, sel=["diplomacy", "cow"], fd=["olive"])
    hand(s, 1, sel=["hen"])
    cm_put(s, "horse")
    at_3a(s, 0)
    act(s, "play diplomacy")
    act(s, "diplomacy P1 selected")
    act(s, "end")  # cow discarded (forced); no pick after a Diplomacy attack
    assert s.to_move() == 1 and len(s.fd[0]) == 4


def test_FM_CHAR_9_valantis_selects_four() -> None:
    s = blank(("valantis", "michalis"))
    hand(s, 0, fd=["hen", "cow", "apple", "olive", "sheep"])
    hand(s, 1, fd=["hen"] * 4)
    flow.begin_select(s, 0)
    rules.settle(s)
    assert s.observation(0)["decision"]["remaining"] == 4


def test_FM_CHAR_10_tasos_sees_the_events() -> None:
    """Covers: FM-CHAR-10
    Covers: FM-P1-2
    Covers: FM-DEC-4"""
    s = new(("tasos", "michalis", "anthi"), seed=4)
    from games.farmaria.market import ETYPE

    coming = [d.EVENTS[ETYPE[pile[-1]]][0] for pile in s.ye_piles]
    assert s.observation(0)["foresight"] == coming
    assert "foresight" not in s.observation(1) and "foresight" not in s.observation(2)
    assert "foresight" not in s.public_state()
    t = new(("tasos", "michalis", "anthi"), seed=4, tasos_may_tell=True)
    assert t.to_move() == 0 and strs(t) == ["tell P1", "tell P2", "tell nobody"]
    act(t, "tell P2")
    assert t.observation(2)["foresight"] == coming and "foresight" not in t.observation(1)


def test_FM_CHAR_11_babis() -> None:
    """Covers: FM-DEC-14"""
    s = blank(("babis", "michalis", "anthi"))
    hand(s, 0, sel=["diplomacy", "hen", "cow"])
    hand(s, 1, sel=["horse", "sheep"], fd=["olive"])
    hand(s, 2, sel=["apple"])
    at_3a(s, 0)
    act(s, "play diplomacy")
    assert "diplomacy P1 selected+selected" in strs(s)
    assert "diplomacy P1 selected+face_down" in strs(s)
    assert "diplomacy P2 selected" in strs(s)  # a single card: that pool only
    act(s, "diplomacy P1 selected+selected")
    assert sorted(strs(s)) == ["keep horse", "keep sheep"]
    act(s, "keep horse")
    assert names(s.fd[0]) == ["horse"] and names(s.sel[1]) == ["sheep"]
    act(s, "end")
    assert s.observation(0)["decision"]["kind"] == "discard_more"  # optional discard
    act(s, "stop")
    assert s.to_move() == 1


def test_FM_CHAR_12_ioanna_optional_discard() -> None:
    s = blank(("ioanna", "anthi"))
    hand(s, 0, sel=["hen", "cow", "olive"])
    cm_put(s, "cow")
    s.wallet[0] = 7
    at_3a(s, 0)
    assert "buy CM1 at item price" in strs(s) and "buy CM1" not in strs(s)
    market_before = [list(stack) for stack in s.cm]
    act(s, "end")
    assert strs(s) == ["discard olive", "discard hen", "discard cow", "stop"]  # stop at once
    act(s, "stop")  # no discard at all: allowed for Ioanna
    assert names(s.sel[0]) == ["cow", "hen", "olive"] and s.cm == market_before


def test_FM_CHAR_13_argyri() -> None:
    s = blank(("argyri", "michalis"))
    put(s, 0, "apple")
    put(s, 0, "orange")
    put(s, 0, "olive")
    hand(s, 0, sel=["tractor", "insecticide"])
    cm_put(s, "tractor")
    s.wallet[0] = 30
    events(s, "insects")
    at_3a(s, 0)
    assert not any("tractor" in x or "insecticide" in x for x in strs(s))
    events(s)
    s.wallet[0] = 0
    at_4a(s)
    assert s.wallet[0] == 3 + 4 + 5 + 3


def test_FM_CHAR_14_nikos_free_auction() -> None:
    """Covers: FM-DEC-15"""
    s = blank(("nikos", "michalis", "anthi"))
    hand(s, 0, sel=["auction", "hen"])
    cm_put(s, "cow")
    s.wallet = [10, 0, 0]
    at_3a(s, 0)
    assert "play auction" not in strs(s) and "nikos auction" in strs(s)
    act(s, "nikos auction")
    assert strs(s) == ["auction hen from hand", "auction CM1"]
    act(s, "auction CM1")  # nobody else can bid: Nikos wins at 5
    assert s.wallet[0] == 5 and farm_names(s, 0) == [["cow"]]
    assert "nikos auction" not in strs(s)
    assert all(len(st) == 0 for st in s.cm)  # no card entered the CM
