"""Setup, components, state and information, the year's structure and the decision model."""

from __future__ import annotations

import random

import games
from games.core import IllegalAction
from games.farmaria import data as d
from games.farmaria import flow, rules
from games.farmaria.actions import CharacterName
from games.farmaria.farm import CTYPE
from games.farmaria.state import DECISION_NAMES, FarmariaState
from tests.games.farmaria.helpers import (
    SPEC,
    T,
    act,
    at_3a,
    at_4a,
    blank,
    cm_put,
    events,
    field,
    hand,
    new,
    put,
    strs,
)


def _random_game(n: int, seed: int) -> tuple[FarmariaState, list[tuple[int, str, int]]]:
    """Play a uniform random game; returns it and (year, decision kind, options) per step."""
    s = SPEC.new_game(n, seed)
    assert isinstance(s, FarmariaState)
    rng = random.Random(seed)
    log = []
    while not s.is_over():
        acts = s.legal_actions()
        log.append((s.year, s.observation(s.actor)["decision"]["kind"], len(acts)))
        s.apply(rng.choice(acts))
    return s, log


def test_FM_SETUP_1_components_sorted() -> None:
    """Covers: FM-COMP-3
    Covers: FM-COMP-4"""
    s = new(("michalis", "anthi", "lambis"))
    tot = s.conserved_totals()
    assert tot["cards_total"] == tot["cards_distinct"] == 136
    assert sum(tot[f"cards_{g.id}"] for g in d.GOODS) == 97
    assert sum(tot[f"cards_{a}"] for a, _ in d.ACTIONS) == 39
    assert tot["events_total"] == 36 and tot["cards_cow"] == 5


def test_FM_SETUP_2_characters_random_or_chosen() -> None:
    """Covers: FM-DEC-3"""
    a = SPEC.new_game(4, 11)
    b = SPEC.new_game(4, 11)
    chars = [p["character"] for p in a.observation(0)["players"]]
    assert chars == [p["character"] for p in b.observation(0)["players"]]
    assert len(set(chars)) == 4
    seen = {tuple(p["character"] for p in SPEC.new_game(4, k).public_state()["players"])
            for k in range(6)}  # fmt: skip
    assert len(seen) > 1
    c = SPEC.new_variant(3, 1, choose_characters=True)  # type: ignore[attr-defined]
    assert c.to_move() == 0 and len(strs(c)) == 14
    act(c, "character nikos")
    assert c.to_move() == 1 and "character nikos" not in strs(c) and len(strs(c)) == 13
    act(c, "character babis")
    act(c, "character irini")
    assert [p["character"] for p in c.public_state()["players"]] == ["nikos", "babis", "irini"]


def test_FM_SETUP_3_inherited_field_and_deck() -> None:
    """Covers: FM-SETUP-7
    Covers: FM-SETUP-6
    Covers: FM-SETUP-5"""
    s = new(("michalis", "tasos", "lambis"))
    pub = s.public_state()
    for p, info in enumerate(pub["players"]):
        assert len(info["farm"]) == 1 and info["farm"][0]["outside"] == []
        assert info["wallet"] == 6 and info["vp"] == 0 and info["defamations"] == 0
        assert info["hand_size"] == d.CHARACTERS[s.char[p]].cards
    assert pub["year"] == 1
    assert pub["deck_size"] == 136 - 3 - (4 + 7 + 6) - 2


def test_FM_SETUP_4_event_piles() -> None:
    s = new(("michalis", "tasos"))
    assert s.public_state()["event_piles"] == [18, 18]


def test_FM_SETUP_8_two_cards_in_the_cm() -> None:
    s = new(("michalis", "tasos"))
    market = s.public_state()["market"]
    assert [m["size"] for m in market] == [1, 1, 0, 0] and s.public_state()["marker"] == 2


def test_FM_SETUP_9_seat_0_starts_year_1() -> None:
    """Covers: FM-YEAR-2
    Covers: FM-P1-1"""
    s = blank(("michalis", "tasos", "anthi"))
    orders = []
    for _ in range(4):
        at_4a(s, last=False)
        orders.append((s.year, list(s.order)))
    assert orders == [(2, [1, 2, 0]), (3, [2, 0, 1]), (4, [0, 1, 2]), (5, [1, 2, 0])]
    assert new(("michalis", "tasos")).order == [0, 1]


def test_FM_COMP_1_money_and_vp_are_plain_integers() -> None:
    """Covers: FM-COMP-5
    Covers: FM-COMP-2"""
    s = blank(("michalis", "tasos"))
    s.wallet[0] = 1495
    s.defam[1] = 9
    at_4a(s)
    assert s.wallet[0] == 1500 and s.vp[0] == 150 and s.vp[1] == -9
    obs = s.observation(0)
    assert obs["marker"] >= 1 and obs["year"] == 1  # the CM marker and year marker


def test_FM_CONV_1_provenance_of_reconstructed_values() -> None:
    """Every reconstructed value is read from the data module with its tag."""
    assert d.GOODS_PROVENANCE["field"]["item"] == "D-FIELD"
    assert d.GOODS_PROVENANCE["cow"] == {}
    assert d.GOODS[T["orange"]].cm == 9 and d.GOODS[T["cow"]].item == 7
    for g in d.GOODS:
        assert g.cm == g.item + 3 and g.emergency == max(1, g.item - 2)
        assert g.merchant == g.item + 1


def test_FM_CONV_2_choices_are_asked_of_the_choosing_player() -> None:
    s = blank(("michalis", "tasos"))
    put(s, 1, "cow")
    hand(s, 0, sel=["animal_thief"])
    hand(s, 1, sel=["doberman"])
    at_3a(s, 0)
    act(s, "play animal_thief")
    assert s.to_move() == 1 and s.observation(1)["decision"]["kind"] == "theft_defence"


def test_FM_CONV_4_glossary_terms_in_observations() -> None:
    obs = new(("michalis", "tasos")).observation(0)
    me = obs["players"][0]
    assert {"selected", "face_down", "wallet", "debt", "defamations", "jailed"} <= set(me)
    assert {"market", "events", "year", "decision"} <= set(obs)


def test_FM_STATE_1_zones_and_clone() -> None:
    """The state holds every zone the rule lists, at its start-of-game contents, with every
    card in exactly one zone; a clone copies each zone (changing it leaves the original as
    it was)."""
    for names in (("michalis", "tasos"), ("michalis", "tasos", "anthi", "ioanna", "nikos")):
        s = new(names)
        n = len(names)
        # shared zones: the ordered deck, the CM with K = players + 2 active positions (of 8)
        # and its marker, two face-down YE piles of 18, the YE discard and the year's two
        # cards (none before the first 1a), the removed-from-game pile
        assert s.k == n + 2 and len(s.cm) == s.k <= d.CM_POSITIONS
        assert 0 <= s.marker < s.k
        assert [len(p) for p in s.ye_piles] == [18, 18]
        assert s.ye_discard == [] and s.ye_current == [] and s.removed == []
        assert len(s.deck) == len(set(s.deck)) > 0
        # per player: wallet, carried debt, defamations, jail flags, last year's evasion,
        # the pending gift, the farm (the inherited field), selected / face-down cards and
        # the year's counters, all at their start values
        assert s.wallet == [d.STARTING_MONEY] * n and s.debt == [0] * n and s.defam == [0] * n
        assert s.jailed_now == [False] * n and s.jailed_next == [False] * n
        assert s.evaded_last == [False] * n and s.evaded_amt_last == [0] * n
        assert s.gift_pending == [False] * n
        assert all(len(fs) == 1 for fs in s.farm) and s.sel == [[] for _ in names]
        assert s.stole == [False] * n and s.theft_targeted == [False] * n
        assert s.phase3_done == [False] * n and s.played == [0] * n
        # global: year, start seat, effective events, the end flag
        assert s.year == 1 and not s.end_triggered and s.effective == 0  # no event in effect
        totals = s.conserved_totals()
        assert totals["cards_total"] == totals["cards_distinct"] == totals["cards_expected"]
        assert totals["events_total"] == 36

        t = s.clone()
        t.deck.pop()
        t.cm[0].append(t.deck.pop())
        t.ye_piles[0].pop()
        t.wallet[0] += 1
        t.sel[0].append(t.fd[0].pop())
        t.farm[0].clear()
        t.removed.append(1)
        fresh = new(names)
        assert s.public_state() == fresh.public_state()
        assert (s.deck, s.cm, s.ye_piles, s.sel, s.fd, s.removed) == (
            fresh.deck,
            fresh.cm,
            fresh.ye_piles,
            fresh.sel,
            fresh.fd,
            fresh.removed,
        )
        # and a clone plays on independently
        u = s.clone()
        u.apply(u.legal_actions()[0])
        assert s.observation(0) != u.observation(0) or s.to_move() != u.to_move()


def test_FM_STATE_2_hidden_information() -> None:
    """Covers: FM-YEAR-3"""
    s = new(("michalis", "tasos", "anthi"), seed=2)
    obs1 = s.observation(1)
    assert "selected" not in obs1["players"][0] and "face_down" in obs1["players"][1]
    assert "selected_count" not in obs1["players"][0]  # 1b still in progress
    text = str(obs1)
    assert "deck_order" not in text
    rng = random.Random(5)
    for p in range(3):
        t = s.determinize(p, rng)
        assert t.observation(p) == s.observation(p)
    while s.observation(0)["decision"]["kind"] == "select":
        s.apply(s.legal_actions()[0])
    assert "selected_count" in s.observation(1)["players"][0]


def test_FM_STATE_3_unique_card_ids() -> None:
    s, _ = _random_game(3, 5)
    tot = s.conserved_totals()
    assert tot["cards_distinct"] == tot["cards_total"] == tot["cards_expected"] == 136


def test_FM_YEAR_1_phases_in_order() -> None:
    """Covers: FM-YEAR-4
    Covers: FM-P3-1
    Covers: FM-DEC-1"""
    s, log = _random_game(4, 3)
    rank = {"select": 0, "event_defence": 1, "pay_4a": 3, "repay_4a": 3}
    for year in range(1, s.year + 1):
        phases = [rank.get(k, 2) for y, k, _ in log if y == year]
        assert phases == sorted(phases)
    assert s.year <= s.year_limit and all(n >= 2 for _, _, n in log)


def test_FM_P1_4_selection_ignores_money() -> None:
    s = blank(("michalis", "tasos"))
    hand(s, 0, fd=["horse", "tractor", "hen", "cow"])
    s.wallet[0] = 0
    flow.begin_select(s, 0)
    rules.settle(s)
    assert strs(s) == ["select tractor", "select hen", "select cow", "select horse"]


def test_FM_P3_2_free_order_in_3a() -> None:
    s = blank(("michalis", "tasos"))
    put(s, 0, "cow")
    hand(s, 0, sel=["hen", "apple"])
    field(s, 0)
    events(s, "merchant")
    at_3a(s, 0)
    act(s, "sell cow F0")
    act(s, "buy hen from hand")
    act(s, "place F1")
    act(s, "buy apple from hand")
    act(s, "place F0")
    assert s.to_move() == 0 and "end" in strs(s) and s.wallet[0] == 6 + 8 - 3 - 4


def test_FM_P3_5_card_lost_after_the_turn_passed() -> None:
    s = blank(("michalis", "tasos"))
    hand(s, 0, sel=["hen"], fd=["apple", "olive", "cow"])
    hand(s, 1, sel=["diplomacy"], fd=["hen"] * 6)
    s.year_limit = 1
    s.wallet[1] = 200
    at_3a(s, 0)
    act(s, "end")  # P0 discards the hen (forced) and refills to 4: his turn has passed
    assert s.phase3_done[0] and s.to_move() == 1
    act(s, "play diplomacy")
    act(s, "diplomacy P0 face_down")
    while not s.is_over():
        s.apply(s.legal_actions()[-1])
    assert s.observation(0)["players"][0]["hand_size"] == 3  # one fewer for next year


def test_FM_DEC_2_forced_and_identical_options() -> None:
    s = blank(("michalis", "tasos"))
    hand(s, 0, sel=["hen", "hen", "hen"])
    s.wallet[0] = 10
    at_3a(s, 0)
    assert strs(s).count("buy hen from hand") == 1  # identical cards: one option
    act(s, "buy hen from hand")  # one field: placed without asking
    assert s.observation(0)["decision"]["kind"] == "action_3a"
    for _ in range(20):
        g, _ = _random_game(2, 7)
    assert g.is_over()


def test_FM_DEC_7_action_3a_canonical_order() -> None:
    s = blank(("ioanna", "tasos"))
    put(s, 0, "stable")
    put(s, 0, "cow", 0, 0)
    put(s, 0, "apple")
    field(s, 0)
    hand(s, 0, sel=["hen", "diplomacy", "opportunity"])
    hand(s, 1, sel=["hen"])
    cm_put(s, "sheep")
    s.wallet[0] = 20
    at_3a(s, 0)
    kinds = [x.split()[0] + (" item" if x.endswith("price") else "") for x in strs(s)]
    order = ["buy", "buy item", "sell", "move", "demolish", "uproot", "play", "end"]
    assert kinds == sorted(kinds, key=order.index)
    assert strs(s)[:3] == ["buy hen from hand", "buy CM1", "buy CM1 at item price"]


def test_FM_DEC_23_no_decision_for_automatic_steps() -> None:
    _, log = _random_game(3, 8)
    asked = {k for _, k, _ in log}
    allowed = set(DECISION_NAMES) - {"game_over"}
    assert asked <= allowed
    assert "select" in asked and "action_3a" in asked


def test_FM_DEC_24_sizes_seen_in_simulation() -> None:
    for n in (2, 4, 6):
        _s, log = _random_game(n, 1)
        assert 100 < len(log) < SPEC.max_decisions
        assert max(k for _, kind, k in log if kind == "select") <= 9


def test_illegal_action_names_the_action() -> None:
    s = new(("michalis", "tasos"))
    bad = games.get("farmaria").action_from_dict({"type": "Bid", "amount": 999})
    try:
        s.apply(bad)
    except IllegalAction as e:
        assert "bid 999" in str(e)
    else:
        raise AssertionError("accepted an illegal action")
    assert CharacterName("nikos").value == "nikos" and CTYPE[0] == T["field"]


def test_FM_STATE_2_determinize_redraws_only_hidden_cards() -> None:
    """Opponents' hands and the event piles are re-drawn; what p saw stays."""
    s = new(("tasos", "michalis", "anthi"), seed=9)
    assert isinstance(s, FarmariaState)
    others = []
    for k in range(6):
        t = s.determinize(1, random.Random(k))
        assert isinstance(t, FarmariaState)
        assert t.observation(1) == s.observation(1)
        assert sorted(t.fd[1]) == sorted(s.fd[1])
        others.append((tuple(t.fd[0]), tuple(t.ye_piles[0][-1:])))
        tasos = s.determinize(0, random.Random(k))
        assert tasos.observation(0)["foresight"] == s.observation(0)["foresight"]
    assert len(set(others)) > 1


def test_FM_YEAR_3_selection_is_collected_from_all_before_any_is_revealed() -> None:
    """Covers: FM-YEAR-3 (1b is a simultaneous hidden choice: nothing about anybody's
    selection is revealed until every player has chosen)."""
    s = new(("michalis", "tasos", "anthi"), seed=2)
    assert s.observation(0)["decision"]["kind"] == "select"
    first = s.to_move()
    s.apply(s.legal_actions()[0])
    while s.observation(0)["decision"]["kind"] == "select":
        for p in range(3):  # no player sees anything of another player's selection
            for q in range(3):
                if q != p:
                    assert "selected" not in s.observation(p)["players"][q]
                    assert "selected_count" not in s.observation(p)["players"][q]
        s.apply(s.legal_actions()[0])
    other = (first + 1) % 3
    assert "selected_count" in s.observation(other)["players"][first]
