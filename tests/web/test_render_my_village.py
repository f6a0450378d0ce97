"""The My Village board on recorded public states: golden SVG files, and the board elements
that known state content must produce (tokens on villager spaces, dice in the pool and taken,
customers on display, goods on buildings, the time marker, the rat).

Regenerate the golden files after an intended drawing change with
``HAMLET_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/web/test_render_my_village.py``
and look at the difference before committing it."""

from __future__ import annotations

import copy
import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from web import render

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"
NS = "{http://www.w3.org/2000/svg}"
CASES = [("2p", "middle"), ("3p", "middle"), ("3p", "end")]


def state(players: str, when: str) -> dict[str, object]:
    doc = json.loads((HERE / "states" / f"my_village-{players}.json").read_text())
    out: dict[str, object] = doc["states"][when]
    return out


def svg_of(st: dict[str, object]) -> ET.Element:
    return ET.fromstring(str(render.render("my_village", st).frame.svg))


def titles(el: ET.Element) -> list[str]:
    """Every tooltip under ``el`` (the title of each shape), in document order."""
    return [t.text or "" for t in el.iter(f"{NS}title")]


def texts(el: ET.Element) -> list[str]:
    return [t.text or "" for t in el.iter(f"{NS}text")]


def village(root: ET.Element, seat: int) -> ET.Element:
    """The group that draws seat ``seat``'s village board."""
    for g in root.iter(f"{NS}g"):
        if g.get("class") == f"village seat-{seat}":
            return g
    raise AssertionError(f"no village group for seat {seat + 1}")


def rich() -> dict[str, object]:
    """The 2-player mid-game state with more in play: a land registry with marks, a
    meeting point with markers, wildcards, customers waiting (one new) and served, a field
    used, a death due, graves, an empty monk stack and a white-banner decision."""
    st = copy.deepcopy(state("2p", "middle"))
    v0, v1 = st["villages"]  # type: ignore[misc]
    v0.update(chamber="CC-3", registry=[True, False, False, True, False, True],
              meeting_point=True, meeting_point_markers=[3, 4], fields=[True, False],
              fields_used=[True, False], waiting=["K01", "K29", "K24"], new_customers=["K24"],
              served=["K05", "K11", "K17"], pending_deaths=1, day_labourers=1)  # fmt: skip
    v1.update(chamber="CC-2", wildcards=2, monks=["M-P1", "M-C2"], travel=["T-A4", "T-B1"])
    st["graves"] = [0, 1, 1]
    st["monks"]["pen"] = {"top": None, "count": 0}  # type: ignore[index]
    st["decision"] = {"kind": "white", "player": 0, "dice": [2, 6], "value": 8,
                      "white_used": ["PLAY", "SCHOOL"], "white_count": 2}  # fmt: skip
    st["pool"] = []
    return st


@pytest.mark.parametrize(("players", "when"), CASES, ids=[f"{p}-{w}" for p, w in CASES])
def test_the_board_matches_its_golden_file(players: str, when: str) -> None:
    svg = str(render.render("my_village", state(players, when)).frame.svg) + "\n"
    path = GOLDEN / f"my_village-{players}-{when}.svg"
    if os.environ.get("HAMLET_UPDATE_GOLDEN"):
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(svg)
    assert path.read_text() == svg, f"{path.name} differs: HAMLET_UPDATE_GOLDEN=1 rewrites it"


@pytest.mark.parametrize("st", [state(p, w) for p, w in CASES] + [rich()])
def test_every_text_is_at_least_12_px_and_the_board_scales(st: dict[str, object]) -> None:
    root = svg_of(st)
    # The viewBox lets the page scale it; the natural size lets it draw it one to one.
    _, _, w, h = root.get("viewBox", "").split()
    assert (w, h) == (root.get("width"), root.get("height")) and w == "800"
    sizes = [float(t.get("font-size") or 0) for t in root.iter(f"{NS}text")]
    assert sizes and min(sizes) >= 12


def test_only_what_describes_the_record_stays_text() -> None:
    for st in [state(p, w) for p, w in CASES] + [rich()]:
        listed = {path for path, _ in render.render("my_village", st).text}
        assert listed == {"game", "players", "over", "unfinished"}


def test_villagers_are_tokens_on_their_spaces_and_absent_ones_leave_the_area_idle() -> None:
    root = svg_of(state("2p", "middle"))
    seat0, seat1 = village(root, 0), village(root, 1)
    # Seat 0 has councilman, traveller, merchant; seat 1 abbot, traveller, craftsman.
    assert {"seat 1's councilman", "seat 1's traveller", "seat 1's merchant"} <= set(titles(seat0))
    assert "seat 1's abbot" not in titles(seat0) and "abbot: idle" in texts(seat0)
    assert {"seat 2's abbot", "seat 2's traveller", "seat 2's craftsman"} <= set(titles(seat1))
    assert "councilman: idle" in texts(seat1) and "merchant: idle" in texts(seat1)


def test_the_dice_pool_and_the_dice_taken_are_drawn() -> None:
    st = state("2p", "middle")
    root = svg_of(st)
    pool = [t for t in titles(root) if re.fullmatch(r"(white|black) die showing \d", t)]
    expected = [f"{c} die showing {v}" for c, v in st["pool"]]  # type: ignore[attr-defined]
    assert pool == expected
    # Seat 1 is deciding with the dice 2 and 6 taken, banner value 8: on its own board.
    assert [t for t in titles(village(root, 1)) if t.startswith("a die taken")] == [
        "a die taken, showing 2",
        "a die taken, showing 6",
    ]
    assert "= 8" in texts(village(root, 1)) and "= 8" not in texts(village(root, 0))


def test_the_customer_display_shows_its_cards_in_order_with_their_demands() -> None:
    st = state("3p", "middle")
    root = svg_of(st)
    shown = [t.split(":")[0].removeprefix("customer ") for t in titles(root)]
    display = [s for s in shown if s.startswith("K")][: len(st["display"])]  # type: ignore[arg-type]
    assert display == st["display"]
    assert "customer K31: ?, wants beer, beer, 0 time, 3 PP" in titles(root)
    assert "customer deck: 21 cards, face down" in titles(root)


def test_the_banners_showing_the_turns_value_are_edged() -> None:
    # Seat 1 took 2 and 6: value 8. The black banners it could take (the rosary monk M-R5
    # 2/8, the meeting points 6/8, its own chronicle "?") and the white banners of its own
    # cards (the church CH-2 3/8, the "?" customer K33) show 8; nothing of seat 0's does.
    root = svg_of(state("2p", "middle"))
    lit = [t for t in titles(root) if t.endswith(", shows the value 8")]
    assert sorted(lit) == sorted(
        [
            "black banner 2/8, shows the value 8",
            "black banner 6/8, shows the value 8",
            "black banner ?, shows the value 8",
            "white banner 3/8, shows the value 8",
            "white banner ?, shows the value 8",
        ]
    )
    assert not [t for t in titles(village(root, 0)) if "shows the value" in t]
    assert "banners showing 8 have an orange edge" in texts(village(root, 1))


def test_goods_on_buildings_time_marker_chronicle_rat_and_hand() -> None:
    root = svg_of(state("2p", "middle"))
    seat0 = titles(village(root, 0))
    # Seat 0's brewery BR-4 holds 1 beer of 2 spaces.
    assert "BR-4 brewery: 1 of 2 beer spaces filled" in seat0
    assert seat0.count("beer") == 1 and seat0.count("free beer space") == 1
    assert "time space 1: the time marker" in seat0
    assert "time space 8: the time marker" in titles(village(root, 1))
    # The chronicle: seat 0's abbot and seat 2's councilman lie on the first spaces.
    assert {"seat 1's abbot", "seat 2's councilman"} <= set(titles(root))
    assert "the rat on space 7" in titles(root)
    assert "held by seat 2" in titles(root) and "5 SP on it" in texts(root)
    assert "coffin 4" in titles(root) and "Coffins 4 of 9 (the game ends at 9)" in texts(root)


def test_cards_in_play_markers_and_the_white_banners_used() -> None:
    root = svg_of(rich())
    seat0, seat1 = village(root, 0), village(root, 1)
    assert "marker placed in round 3" in titles(seat0) and "free marker space" in titles(seat0)
    assert {"☑ church", "☑ travel", "☑ customer", "☐ council"} <= set(texts(seat0))
    new = [t for t in titles(seat0) if t.startswith("customer K24")]
    assert new == [
        "customer K24: 6/9, wants horse, beer, plough, 1 time, 7 PP (new: arrived this turn)"
    ]
    assert "served (3)" in texts(seat0) and "served K11: 4 PP" in titles(seat0)
    assert "field 1: a plough on it, used this turn" in titles(seat0)
    assert any(t.endswith("white banners used: PLAY, SCHOOL (2)") for t in texts(seat0))
    assert "play ✓" in texts(seat0) and "deaths due 1 · day labourers 1" in texts(seat0)
    assert titles(seat1).count("wildcard") == 2 and "free wildcard space" in titles(seat1)
    assert {"M-P1 pen monk", "T-B1: 2 PP"} <= set(titles(seat1))
    assert "pen: empty" in titles(root) and "grave 3: seat 2" in titles(root)
    assert "empty: the round is played out" in texts(root)


def test_each_seat_has_one_village_board() -> None:
    root = svg_of(state("3p", "end"))
    for seat in range(3):
        assert any(t.startswith(f"Seat {seat + 1} · board ") for t in texts(village(root, seat)))


def as_floats(value: object) -> object:
    """``value`` with every integer a float, as the web's protobuf Struct delivers it."""
    if isinstance(value, dict):
        return {k: as_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_floats(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


@pytest.mark.parametrize(("players", "when"), CASES, ids=[f"{p}-{w}" for p, w in CASES])
def test_numbers_arriving_as_floats_draw_the_same_board(players: str, when: str) -> None:
    st = state(players, when)
    floats = as_floats(st)
    assert isinstance(floats, dict)
    assert (
        render.render("my_village", floats).frame.svg == render.render("my_village", st).frame.svg
    )


CARD_ID = re.compile(r"\b(?:K\d\d|M-[PCR]\d|T-[A-E]\d|CH-\d|CC-\d|(?:ST|BR|SM|OF|WW)-\d)\b")


@pytest.mark.parametrize("st", [state(p, w) for p, w in CASES] + [rich()])
def test_only_cards_the_public_state_names_are_drawn(st: dict[str, object]) -> None:
    # The deck order and the cards under the stack tops are hidden: none may be drawn.
    named = {str(value) for _, value in render.leaves(st) if isinstance(value, str)}
    named |= {str(v) for _, value in render.leaves(st) if isinstance(value, list) for v in value}
    root = svg_of(st)
    drawn = {m for s in texts(root) + titles(root) for m in CARD_ID.findall(s)}
    assert drawn and drawn <= named
