"""The Farmaria board: golden SVGs of recorded states, and board elements found where the
state puts them (a stack on its market position, an animal in its stable, a seat's marker on
the VP track...). ``HAMLET_UPDATE_GOLDEN=1 pytest tests/web/test_render_farmaria.py`` rewrites
the golden files; review the difference (and the screenshots, tests/web/shots_farmaria.py)
before committing them."""

from __future__ import annotations

import copy
import json
import os
import random
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import games
from web import render

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"
NS = "{http://www.w3.org/2000/svg}"
#: name -> (file under tests/web/, recorded state): two engine games' mid-game steps and the
#: richer recorded state (stables, animals, a full field).
CASES = {
    "2p-middle": ("states/farmaria-2p.json", "middle"),
    "3p-middle": ("states/farmaria-3p.json", "middle"),
    "3p-end": ("states/farmaria-3p.json", "end"),
    "rich": ("golden/farmaria-rich-state.json", "rich"),
}
#: The engine's bookkeeping: the only leaves left as text beside the board.
BOOKKEEPING = {"turn_passed", "gift_pending", "evaded_last_year", "audit_fine"}
#: The sums a pending 4a payment question is about (also text).
PAYMENT = {
    "tax_due",
    "audit_fine",
    "upkeep_due",
    "loan",
    "loan_interest",
    "payment_due",
    "shortfall",
    "borrow_interest",
}


def state(name: str) -> dict[str, object]:
    path, when = CASES[name]
    doc = json.loads((HERE / path).read_text())
    return copy.deepcopy(doc["states"][when])  # type: ignore[no-any-return]


def draw(s: dict[str, object]) -> ET.Element:
    return ET.fromstring(str(render.render("farmaria", s).frame.svg))


def texts(el: ET.Element) -> list[str]:
    return [t.text or "" for t in el.iter(f"{NS}text")]


def tips(el: ET.Element) -> list[str]:
    return [t.text or "" for t in el.iter(f"{NS}title")]


def group(root: ET.Element, **attrs: object) -> ET.Element:
    """The one ``g`` below ``root`` (nested as given) with each data attribute."""
    el = root
    for key, value in attrs.items():
        found = [g for g in el.iter(f"{NS}g") if g.get(f"data-{key}") == str(value)]
        assert len(found) == 1, (key, value, len(found))
        el = found[0]
    return el


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_board_matches_its_golden_file(name: str) -> None:
    svg = str(render.render("farmaria", state(name)).frame.svg) + "\n"
    path = GOLDEN / f"farmaria-{name}.svg"
    if os.environ.get("HAMLET_UPDATE_GOLDEN"):
        path.write_text(svg)
    assert path.exists(), f"no golden file {path}: run with HAMLET_UPDATE_GOLDEN=1"
    assert svg == path.read_text(), f"{path} differs: rerun with HAMLET_UPDATE_GOLDEN=1, review"


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_text_is_at_least_12px_and_the_board_keeps_its_viewbox(name: str) -> None:
    root = draw(state(name))
    # the natural size beside the viewBox: drawn one to one, shrunk by the page if narrower
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    assert root.get("width") == "800"
    sizes = [float(t.get("font-size", "0")) for t in root.iter(f"{NS}text")]
    assert sizes and min(sizes) >= 12


def only_bookkeeping_listed(s: dict[str, object]) -> None:
    for path, _ in render.render("farmaria", s).text:
        parts = path.split(".")
        if parts[0] == "decision":
            assert parts[1] == "active" or parts[1] in PAYMENT, path
        else:
            assert parts[0] == "players" and parts[2] in BOOKKEEPING, path


@pytest.mark.parametrize("name", sorted(CASES))
def test_only_the_engines_bookkeeping_stays_text(name: str) -> None:
    only_bookkeeping_listed(state(name))


def test_a_payment_questions_sums_stay_text() -> None:
    s = state("2p-middle")
    s["decision"] = {
        "kind": "pay_4a",
        "player": 0,
        "active": 0,
        "tax_due": 3,
        "audit_fine": 0,
        "upkeep_due": 2,
        "payment_due": 5,
        "shortfall": 0,
        "borrow_interest": 0,
    }
    listed = dict(render.render("farmaria", s).text)
    assert listed["decision.payment_due"] == "5" and listed["decision.tax_due"] == "3"
    only_bookkeeping_listed(s)


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (5, 2)])
def test_every_state_of_a_played_game_draws(players: int, seed: int) -> None:
    """An engine's game at random, every tenth state: the board draws as well-formed SVG
    with every text at least 12 px, and leaves only bookkeeping as text."""
    spec = games.get("farmaria")
    game = spec.new_game(num_players=players, seed=seed)
    rng = random.Random(seed)
    step = 0
    while not game.is_over():
        if step % 10 == 0:
            s = game.public_state()
            root = draw(s)
            assert min(float(t.get("font-size", "0")) for t in root.iter(f"{NS}text")) >= 12
            assert sum(t.startswith("Seat ") for t in texts(root)) == players
            only_bookkeeping_listed(s)
        game.apply(rng.choice(game.legal_actions()))
        step += 1


def test_animals_stand_in_their_stables_and_fields() -> None:
    s = state("rich")
    root = draw(s)
    # Seat 2's first field: stables [hen, sheep] and [hen, hen, sheep], outside apple and cow.
    field = group(root, seat=2, field=0)
    assert texts(group(field, stable=0)) == ["He", "Sh"]
    assert texts(group(field, stable=1)) == ["He", "He", "Sh"]
    outside = next(g for g in field.iter(f"{NS}g") if g.get("class") == "outside")
    assert texts(outside) == ["Ap", "Co"]
    assert "sheep in stable 2 of Field 1" in tips(field)
    # Seat 1's first field is full and says so: a bull and a cow in its stable, four trees.
    full = group(root, seat=1, field=0)
    assert "full +1" in texts(full) and "6/6" in texts(full)
    assert "6/6 spaces covered (6 covered: the field is full, +1 VP)" in tips(full)
    # Seat 2's has no room left outside, but its stables are not filled: not full.
    assert "5½/6" in texts(field) and "full +1" not in texts(field)
    assert "Field 1 is full: +1 VP" in tips(full)


def test_a_hen_takes_half_a_space() -> None:
    s = state("rich")
    s["players"][0]["farm"] = [{"stables": [], "outside": ["hen", "olive"], "full": False}]  # type: ignore[index]
    assert "1½/6" in texts(group(draw(s), seat=0, field=0))


def test_market_stacks_sit_on_their_positions_with_the_basket_on_the_marker() -> None:
    s = state("3p-middle")  # market: field ×4, hen ×3, bull ×3, empty, a bundle ×4; marker 1
    root = draw(s)
    first = group(root, position=1)
    assert "field" in texts(first) and "×4" in texts(first) and "8¢" in texts(first)
    assert any(t.startswith("the basket") for t in tips(first))
    assert not any(t.startswith("the basket") for t in tips(group(root, position=2)))
    assert "Co" not in texts(group(root, position=3)) and "Bu" in texts(group(root, position=3))
    assert "empty" in texts(group(root, position=4))
    bundle = group(root, position=5)
    assert "field +" in texts(bundle) and "Ap" in texts(bundle)
    for unused in (6, 7, 8):  # 3 players use positions 1..5
        assert texts(group(root, position=unused))[0] == "unused"


def test_piles_show_their_sizes_and_the_events_their_state() -> None:
    s = state("2p-middle")
    s["events"], s["effective_events"] = ["apple_plus", "apple_minus"], []
    root = draw(s)
    assert "cancelled" in texts(group(root, event="apple_minus"))
    assert "deck: 109 cards, face down" in tips(root)
    assert "events 1: 16 cards, face down" in tips(root)
    assert "used: tax audit ×1" in tips(root)
    s["events"], s["effective_events"] = ["tax", "tax"], ["tax"]
    cards = [g for g in draw(s).iter(f"{NS}g") if g.get("data-event") == "tax"]
    assert [texts(g)[1] for g in cards] == ["in force", "counts once"]


def test_tracks_pin_the_year_and_mark_each_seats_vp() -> None:
    s = state("rich")  # year 11; VP 17, 23, 15
    all_tips = tips(draw(s))
    assert "year 11 (now)" in all_tips and "year 12" in all_tips
    for seat, vp in enumerate((17, 23, 15)):
        assert f"seat {seat + 1}: {vp} VP" in all_tips


def test_seat_panels_show_money_hand_backs_jail_and_played_cards() -> None:
    s = state("rich")
    p = s["players"][1]  # type: ignore[index]
    p.update(debt=7, defamations=2, jailed=True, played=["animal_thief", "vet"])
    seat = group(draw(s), seat=1)
    words = texts(seat)
    assert "wallet 36" in words and "debt 7" in words and "defamations 2 (−2 VP)" in words
    assert "in jail" in words and "jail next year" not in words
    assert words[words.index("played:") + 1 :][:2] == ["animal thief", "vet"]
    assert "animal thief: played this year" in tips(seat)
    assert "Seat 2 · michalis · 23 VP" in words and "income 5/year" in words
    # the hand is card backs only, as many as its size; its cards' names are not public
    assert tips(seat).count("a card in hand (face hidden)") == p["hand_size"]
    assert "3 in hand: 2 selected, 1 face-down, 0 opportunity" in words


def test_a_theft_rings_the_animal_it_is_after() -> None:
    s = state("rich")
    s["decision"] = {
        "kind": "theft_defence",
        "player": 2,
        "active": 0,
        "thief": 0,
        "animal": "sheep",
        "field": 0,
        "stable": 1,
    }
    out = render.render("farmaria", s)
    root = ET.fromstring(str(out.frame.svg))
    stable = group(root, seat=2, field=0, stable=1)
    rings = [c for c in stable.iter(f"{NS}circle") if c.get("stroke") == "#D00000"]
    assert len(rings) == 1 and "the animal the thief is after" in tips(stable)
    assert not [
        c
        for c in group(root, seat=2, field=0, stable=0).iter(f"{NS}circle")
        if c.get("stroke") == "#D00000"
    ]
    assert any(
        "seat 1 is stealing a sheep from field 1 (stable 2) of seat 3" in t for t in texts(root)
    )
    assert {p for p, _ in out.text} & {"decision.thief", "decision.animal"} == set()


def test_an_auction_shows_its_lot_the_high_bid_and_who_passed() -> None:
    s = state("2p-middle")
    s["decision"] = {
        "kind": "auction_bid",
        "player": 1,
        "active": 0,
        "lot": "cow",
        "high_bid": 5,
        "high_bidder": 0,
        "passed": [False, True],
        "bidder": 1,
    }
    out = render.render("farmaria", s)
    words = texts(ET.fromstring(str(out.frame.svg)))
    assert "Auction lot:" in words and "cow" in words
    assert "high bid 5 by seat 1" in words and "passed: seat 2" in words
    assert "seat 2 to bid" in words
    assert not [p for p, _ in out.text if p.startswith("decision.") and p != "decision.active"]
