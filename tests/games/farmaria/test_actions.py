"""Action cards, reactions and jail (FM-ACT-*, FM-JAIL-*)."""

from __future__ import annotations

from games.farmaria import flow, rules
from games.farmaria.auction import opening
from games.farmaria.cards import theft_targets
from games.farmaria.farm import CTYPE
from tests.games.farmaria.helpers import (
    T,
    act,
    at_3a,
    at_4a,
    at_phase2,
    blank,
    clear_cm,
    cm_put,
    d,
    deck_top,
    events,
    farm_names,
    hand,
    names,
    put,
    stack_events,
    strs,
    take,
)


def top(s) -> str:  # type: ignore[no-untyped-def]
    return d.CARD_IDS[CTYPE[s.cm[s.marker][-1]]]


def counts(s, p: int) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    me = s.observation(p)["players"][p]
    return me["selected_count"], me["face_down_count"]


def test_T_11_auction() -> None:
    """Covers: T-11
    Covers: FM-ACT-7
    Covers: FM-DEC-16"""
    s = blank(("michalis", "anthi", "lambis", "irini"))
    orange = cm_put(s, "orange")
    assert opening(s, orange, -1) == 5
    events(s, "discount")
    assert opening(s, orange, -1) == 3
    assert opening(s, -1, T["cow"]) == 4
    events(s)
    assert opening(s, -1, T["cow"]) == 5
    hand(s, 0, sel=["auction"])
    s.wallet = [20, 20, 20, 20]
    at_3a(s, 0)
    act(s, "play auction")
    assert s.to_move() == 1 and strs(s)[:2] == ["pass", "bid 6"] and strs(s)[-1] == "bid 20"
    act(s, "bid 6")
    assert s.to_move() == 2 and strs(s)[1] == "bid 7"
    act(s, "pass")
    act(s, "bid 8")
    assert s.to_move() == 0
    act(s, "bid 9")
    act(s, "pass")
    assert s.to_move() == 3  # C is skipped: passes are final
    act(s, "pass")
    assert s.wallet == [11, 20, 20, 20]
    assert farm_names(s, 0) == [["orange"]] and top(s) == "auction"
    assert orange not in [c for st in s.cm for c in st]


def test_T_30_auction_options() -> None:
    """Covers: T-30"""
    s = blank(("michalis", "anthi", "lambis"))
    cm_put(s, "cow")
    hand(s, 0, sel=["auction"])
    s.wallet = [9, 7, 4]
    at_3a(s, 0)
    act(s, "play auction")  # the cow is the only lot: opens at 5
    assert s.to_move() == 1 and strs(s) == ["pass", "bid 6", "bid 7"]
    act(s, "bid 6")
    assert s.to_move() == 0 and strs(s) == ["pass", "bid 7", "bid 8", "bid 9"]  # C not asked
    act(s, "bid 7")
    assert s.wallet == [2, 7, 4] and farm_names(s, 0) == [["cow"]]
    assert s.to_move() == 0 and s.observation(0)["decision"]["kind"] == "action_3a"


def test_T_16_tax_evasion_and_tax_audit() -> None:
    """Covers: T-16
    Covers: FM-ACT-10
    Covers: FM-EVT-10
    Covers: FM-DEC-6
    Covers: FM-CHAR-4"""
    s = blank(("lambis", "michalis"))
    for g in ("cow", "apple", "hen", "olive"):
        put(s, 0, g)
    hand(s, 0, sel=["tax_evasion"])
    hand(s, 1, sel=["tax_evasion", "hen"])
    s.wallet = [20, 20]
    stack_events(s, "tax", "merchant")
    at_phase2(s)
    assert strs(s) == ["play tax_evasion", "done"] and s.to_move() == 0
    act(s, "play tax_evasion")
    assert top(s) == "tax_evasion" and counts(s, 0) == (0, 1)
    assert s.to_move() != 1  # Michalis may not play it (FM-AMB-40)
    at_4a(s)
    assert s.wallet[0] == 20 + 3 + 10 and s.evaded_last[0] and s.evaded_amt_last[0] == 4
    assert s.wallet[1] == 20 + 5 and not s.evaded_last[1]
    s.over = False
    s.year += 1
    s.year_limit = s.year
    stack_events(s, "tax_audit", "olive_plus")
    at_phase2(s)
    assert s.defam[0] == 1 and s.defam[1] == 0 and s.ye_discard == []
    before = s.wallet[0]
    at_4a(s)
    assert s.wallet[0] == before + 3 - 8 + 3 + 3 + 1 + 4
    assert s.vp[0] == 1 + 1 + 1 + 3 + s.wallet[0] // 10 - 1
    s.over = False
    s.year += 1
    s.year_limit = s.year
    stack_events(s, "tax_audit", "merchant")
    at_phase2(s)
    assert s.defam[0] == 1  # not punished twice


def test_T_17_police_and_jail() -> None:
    """Covers: T-17
    Covers: FM-ACT-4
    Covers: FM-JAIL-1
    Covers: FM-JAIL-2
    Covers: FM-ACT-G7
    Covers: FM-DEC-12"""
    s = blank(("anthi", "lambis", "michalis"))
    hand(s, 1, sel=["animal_thief", "burglar"])
    put(s, 2, "cow")
    hand(s, 2, sel=["police", "doberman"])
    put(s, 1, "apple", n=2)
    put(s, 1, "tractor")
    at_3a(s, 1)
    act(s, "play animal_thief")  # the only target: C's cow
    assert s.to_move() == 2 and strs(s) == ["defend doberman", "defend police", "no defence"]
    act(s, "defend police")
    assert [d.CARD_IDS[CTYPE[st[-1]]] for st in s.cm if st][-2:] == ["animal_thief", "police"]
    assert s.defam[1] == 1 and s.jailed_next[1] and counts(s, 2) == (1, 1)
    assert farm_names(s, 2) == [["cow"]]
    assert "play burglar" not in strs(s)  # one theft attempt per year
    assert theft_targets(s, 0, T["burglar"]) == []  # C cannot be targeted again
    at_4a(s, last=False)
    assert s.jailed_now[1] and s.year == 2
    s.over = False
    events(s)
    flow.begin_phase3(s, 0)
    rules.settle(s)
    seen = set()
    while s.year == 2 and not s.is_over():  # phase 3 of everybody but B
        if s.observation(0)["decision"]["kind"] == "action_3a":
            seen.add(s.to_move())
        s.apply(s.legal_actions()[-1])
    assert 1 not in seen and seen == {0, 2}
    s2 = blank(("anthi", "lambis"))
    put(s2, 1, "apple", n=2)
    put(s2, 1, "tractor")
    s2.jailed_now[1] = True
    s2.wallet[1] = 1
    at_4a(s2)
    assert s2.wallet[1] == 1 - 1 + 6  # no permanent income, no tractor bonus
    s3 = blank(("anthi", "lambis"))
    put(s3, 1, "apple", n=2)
    put(s3, 1, "tractor")
    s3.wallet[1] = 0
    at_4a(s3)
    assert s3.wallet[1] == 3 - 1 + 8


def test_T_22_theft_limits() -> None:
    """Covers: T-22
    Covers: FM-ACT-G4
    Covers: FM-ACT-1
    Covers: FM-DEC-11
    Covers: FM-CHAR-5"""
    s = blank(("michalis", "anthi", "lambis", "tasos", "irini"))
    put(s, 1, "hen")
    put(s, 1, "sheep")
    put(s, 3, "cow")
    put(s, 4, "horse")
    hand(s, 0, sel=["animal_thief", "burglar"])
    hand(s, 2, sel=["burglar"])
    at_3a(s, 0)
    act(s, "play animal_thief")
    assert "steal P4 horse F0" not in strs(s)  # Irini: never (FM-AMB-11)
    act(s, "steal P1 hen F0")  # no defence card: the hen is A's
    assert farm_names(s, 0) == [["hen"]] and farm_names(s, 1) == [["sheep"]]
    assert "play burglar" not in strs(s)
    targets = [str(a) for a in theft_targets(s, 2, T["burglar"])]
    assert "steal P3 cow F0" in targets and not any("P1" in x or "P4" in x for x in targets)
    at_3a(s, 2)
    act(s, "play burglar")
    act(s, "steal P3 cow F0")
    assert farm_names(s, 2) == [["cow"]]


def test_FM_ACT_2_burglar_takes_from_stables() -> None:
    s = blank(("michalis", "anthi"))
    put(s, 1, "stable")
    put(s, 1, "cow", 0, 0)
    put(s, 1, "hen")
    assert [str(a) for a in theft_targets(s, 0, T["animal_thief"])] == ["steal P1 hen F0"]
    got = [str(a) for a in theft_targets(s, 0, T["burglar"])]
    assert got == ["steal P1 hen F0", "steal P1 cow F0/S0"]


def test_T_23_diplomacy_cancel() -> None:
    """Covers: T-23
    Covers: FM-ACT-6
    Covers: FM-ACT-G3
    Covers: FM-DEC-13
    Covers: FM-CHAR-8"""
    s = blank(("michalis", "anthi", "giannos", "lambis"))
    hand(s, 0, sel=["diplomacy"], fd=["hen"])
    hand(s, 1, sel=["diplomacy", "cow"], fd=["apple"])
    hand(s, 2, sel=["hen"], fd=["hen"])
    hand(s, 3, sel=["diplomacy", "olive"])
    cm_put(s, "sheep")
    at_3a(s, 0)
    act(s, "play diplomacy")
    assert not any(x.startswith("diplomacy P2") for x in strs(s))  # Giannos: never
    act(s, "diplomacy P1 selected")
    assert [d.CARD_IDS[CTYPE[st[-1]]] for st in s.cm if st][-2:] == ["diplomacy", "diplomacy"]
    assert counts(s, 0) == (0, 1) and counts(s, 1) == (1, 2)
    at_3a(s, 3)
    act(s, "play diplomacy")
    assert not any(x.startswith("diplomacy P1") for x in strs(s))  # B already targeted
    act(s, "diplomacy P0 face_down")  # no cancel: A has played his Diplomacy
    assert counts(s, 3) == (1, 1) and counts(s, 0) == (0, 0)
    assert s.observation(3)["players"][3]["face_down"] == ["hen"]


def test_FM_ACT_G2_targets_lifted_before_the_card_is_placed() -> None:
    s = blank(("michalis", "anthi"))
    hand(s, 0, sel=["diplomacy"])
    cm_put(s, "hen")
    cm_put(s, "cow")
    cm_put(s, "sheep")
    cm_put(s, "olive")  # marker on position 4: the next card goes to position 1
    at_3a(s, 0)
    act(s, "play diplomacy")
    act(s, "diplomacy CM1")
    assert names(s.fd[0]) == ["hen"] and names(s.cm[0]) == ["diplomacy"]


def test_T_24_card_accounting() -> None:
    """Covers: T-24
    Covers: FM-P1-3
    Covers: FM-P3-3
    Covers: FM-P3-4
    Covers: FM-DEC-17
    Covers: FM-DEC-18
    Covers: FM-DEC-5
    Covers: FM-ACT-5"""
    s = blank(("michalis", "anthi"))
    hand(s, 0, fd=["hen", "cow", "apple", "olive"])
    hand(s, 1, fd=["hen", "hen", "hen", "hen", "hen"])
    stack_events(s, "merchant", "discount")
    flow.begin_select(s, 0)
    rules.settle(s)
    act(s, "select hen")
    act(s, "select cow")
    act(s, "select apple")
    assert counts(s, 0) == (3, 1)
    act(s, "buy hen from hand")
    act(s, "end")
    assert s.observation(0)["decision"]["kind"] == "discard_minimum"
    act(s, "discard cow")
    assert strs(s) == ["discard apple", "stop"]
    act(s, "stop")
    assert counts(s, 0) == (1, 3)
    s = blank(("michalis", "anthi"))
    hand(s, 0, sel=["opportunity", "cow", "sheep"], fd=["olive"])
    deck_top(s, "doberman", "hen", "hen")
    at_3a(s, 0)
    act(s, "play opportunity")
    assert s.observation(0)["decision"]["drawn"] == ["doberman", "hen", "hen"]
    assert "drawn" not in s.observation(1)["decision"]
    act(s, "reject doberman")
    assert counts(s, 0) == (4, 1) and top(s) == "doberman"
    act(s, "buy hen from hand")
    assert s.observation(0)["players"][0]["opportunity_count"] == 1
    act(s, "end")  # the unused flagged hen is discarded at once (one option)
    assert s.observation(0)["decision"]["kind"] == "discard_more" and top(s) == "hen"
    act(s, "stop")
    assert counts(s, 0) == (2, 2)


def test_T_27_excess_cards_only_among_face_down() -> None:
    """Covers: T-27
    Covers: FM-ACT-3
    Covers: FM-P3-3"""
    s = blank(("anthi", "lambis"))
    s.year, s.order = 2, [1, 0]
    s.year_limit = 2
    s.wallet[1] = 100  # the gift goes to B
    put(s, 0, "cow")
    hand(s, 0, sel=["vet", "tax_evasion", "diplomacy", "doberman"], fd=["apple", "olive"])
    hand(s, 1, sel=["animal_thief"])
    cm_put(s, "sheep")
    stack_events(s, "disease", "tax")
    at_phase2(s)
    act(s, "play vet")
    act(s, "play tax_evasion")
    assert counts(s, 0) == (2, 4)
    act(s, "play animal_thief")
    act(s, "defend doberman")
    assert s.defam[1] == 1 and counts(s, 0) == (1, 5)
    act(s, "end")
    while s.to_move() != 0:
        s.apply(s.legal_actions()[-1])
    act(s, "play diplomacy")
    s.apply(s.legal_actions()[0])  # an active CM card
    assert counts(s, 0) == (0, 6)
    act(s, "end")
    assert s.observation(0)["decision"]["kind"] == "discard_limit"
    assert all(x.endswith("(face-down)") for x in strs(s))
    s.apply(s.legal_actions()[0])  # then no minimum discard, no refill: the year ends
    assert s.is_over() and s.observation(0)["players"][0]["hand_size"] == 5


def test_T_29_event_defence_needs_selection_in_1b() -> None:
    """Covers: T-29
    Covers: FM-ACT-G1
    Covers: FM-ACT-8"""
    s = blank(("michalis", "anthi"))
    put(s, 0, "apple", n=2)
    hand(s, 0, sel=["opportunity"])
    events(s, "insects")
    s.wallet[0] = 7
    deck_top(s, "apple", "cow", "insecticide")
    at_3a(s, 0)
    act(s, "play opportunity")
    act(s, "reject apple")
    assert "buy cow from hand" in strs(s) and "play insecticide" not in strs(s)
    act(s, "buy cow from hand")
    act(s, "end")  # the kept Insecticide is discarded (forced)
    assert any(CTYPE[st[-1]] == T["insecticide"] for st in s.cm if st)
    at_4a(s)
    assert s.wallet[0] == 5 - 1 + 3  # the cow yields, the apples do not


def test_FM_ACT_5_short_opportunity_draw() -> None:
    s = blank(("michalis", "anthi"))
    hand(s, 0, sel=["opportunity"])
    clear_cm(s)
    s.deck = [take(s, "hen"), take(s, "cow")]
    s.deck_shuffles = 99
    for st in s.cm:
        st.clear()
    at_3a(s, 0)
    s.deck, keep = s.deck[:2], s.deck[2:]
    act(s, "play opportunity")
    assert s.observation(0)["players"][0]["opportunity"] == ["cow", "hen"] and keep == []


def test_FM_ACT_9_vet() -> None:
    s = blank(("michalis", "anthi"))
    put(s, 0, "cow")
    hand(s, 0, sel=["vet"])
    events(s, "disease")
    at_3a(s, 0)
    act(s, "play vet")  # also allowed in 3a
    assert top(s) == "vet" and counts(s, 0) == (0, 1)
    s.wallet[0] = 0
    at_4a(s)
    assert s.wallet[0] == 5 - 1 + 3


def test_FM_ACT_G5_attacks_only_in_own_3a() -> None:
    s = blank(("michalis", "anthi"))
    hand(s, 0, sel=["animal_thief", "insecticide", "opportunity"])
    put(s, 1, "hen")
    stack_events(s, "insects", "merchant")
    at_phase2(s)
    assert strs(s) == ["play insecticide", "done"]


def test_FM_ACT_G6_jailed_player_only_defends() -> None:
    s = blank(("michalis", "anthi", "lambis"))
    s.jailed_now[1] = True
    hand(s, 1, sel=["insecticide", "doberman", "auction"])
    put(s, 1, "hen")
    hand(s, 0, sel=["animal_thief", "auction"])
    cm_put(s, "cow")
    s.wallet = [20, 20, 20]
    stack_events(s, "insects", "merchant")
    at_phase2(s)
    assert s.to_move() == 1 and strs(s) == ["play insecticide", "done"]
    act(s, "play insecticide")
    assert s.to_move() == 0
    act(s, "play animal_thief")
    assert s.to_move() == 1 and "defend doberman" in strs(s)
    act(s, "defend doberman")
    act(s, "play auction")
    assert s.to_move() == 2  # the jailed player may not bid


def test_FM_ACT_3_doberman_theft_fails_and_both_are_used_up() -> None:
    """Covers: FM-ACT-3 (the theft fails, the attacker is defamed but not jailed, the
    Doberman goes to the CM with a face-down replacement; theft and target are used up)."""
    s = blank(("anthi", "lambis", "michalis"))
    hand(s, 1, sel=["animal_thief", "burglar"])
    put(s, 2, "cow")
    hand(s, 2, sel=["doberman"])
    at_3a(s, 1)
    act(s, "play animal_thief")  # the only target: C's cow
    assert s.to_move() == 2 and strs(s) == ["defend doberman", "no defence"]
    act(s, "defend doberman")
    assert farm_names(s, 2) == [["cow"]] and farm_names(s, 1) == [[]]  # the theft failed
    assert s.defam[1] == 1 and not s.jailed_next[1]
    assert top(s) == "doberman"
    assert counts(s, 2) == (0, 1)  # the replacement is face down
    assert s.to_move() == 1 and "play burglar" not in strs(s)  # his theft is used up
    assert theft_targets(s, 0, T["burglar"]) == []  # C was targeted this year


def test_FM_ACT_8_insecticide_played_keeps_the_plant_income() -> None:
    """Covers: FM-ACT-8 (played in phase 2 from the 1b selection while Insects is in
    effect, the player's plants yield normally; one card covers two Insects events)."""

    def apple_income(evs: tuple[str, str], play: bool) -> int:
        s = blank(("michalis", "lambis"))
        put(s, 0, "apple", n=2)
        put(s, 0, "tractor")
        hand(s, 0, sel=["insecticide"])
        s.wallet[0] = 50
        stack_events(s, *evs)
        at_phase2(s)
        if play:
            assert s.to_move() == 0 and strs(s) == ["play insecticide", "done"]
            act(s, "play insecticide")
            assert top(s) == "insecticide"
        at_4a(s)
        return s.wallet[0] - 50

    normal = apple_income(("merchant", "discount"), play=False)
    assert apple_income(("insects", "merchant"), play=False) < normal
    assert apple_income(("insects", "merchant"), play=True) == normal
    assert apple_income(("insects", "insects"), play=True) == normal
