"""The Village board on recorded public states: golden SVG files, the pieces each place shows
for known state content, and text no smaller than 12 px.

Regenerate the golden files after a deliberate drawing change with
``HAMLET_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/web/test_render_village.py`` and look
at the result (``.venv/bin/python -m tests.web.shots_village``) before committing them.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from web import render

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"
SVG = "{http://www.w3.org/2000/svg}"
CASES = (("2p", "middle"), ("3p", "middle"), ("3p", "end"))


def state(players: str, when: str) -> dict[str, object]:
    doc = json.loads((HERE / "states" / f"village-{players}.json").read_text())
    out: dict[str, object] = doc["states"][when]
    return out


def board(players: str, when: str) -> ET.Element:
    return ET.fromstring(str(render.render("village", state(players, when)).frame.svg))


def tips(root: ET.Element) -> list[str]:
    """Every tooltip on the board (the title of each drawn piece), the document's own first."""
    return [t.text or "" for t in root.iter(f"{SVG}title")]


def texts(root: ET.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{SVG}text")]


@pytest.mark.parametrize(("players", "when"), CASES, ids=[f"{p}-{w}" for p, w in CASES])
def test_the_board_matches_its_golden_file(players: str, when: str) -> None:
    svg = str(render.render("village", state(players, when)).frame.svg) + "\n"
    path = GOLDEN / f"village-{players}-{when}.svg"
    if os.environ.get("HAMLET_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(svg)
    assert path.exists(), f"{path} is missing: run with HAMLET_UPDATE_GOLDEN=1"
    assert svg == path.read_text(), f"{path.name} differs: HAMLET_UPDATE_GOLDEN=1 rewrites it"


@pytest.mark.parametrize(("players", "when"), CASES, ids=[f"{p}-{w}" for p, w in CASES])
def test_every_text_is_at_least_12_px_and_the_board_states_its_size(
    players: str, when: str
) -> None:
    root = board(players, when)
    sizes = [float(t.get("font-size", "0")) for t in root.iter(f"{SVG}text")]
    assert sizes and min(sizes) >= 12
    _, _, width, height = (root.get("viewBox") or "").split()
    assert (root.get("width"), root.get("height")) == (width, height)


def test_members_stand_on_their_places_with_their_generation() -> None:
    found = tips(board("3p", "middle"))
    # seat 0: a generation-2 member trained in the office, one of generation 1 on council 1
    assert "seat 1, generation 2, office" in found
    assert "seat 1, generation 1, council 1" in found
    # seat 1: generation 2 on council stage 3 and in church window 2; four in the black bag
    assert "seat 2, generation 2, council 3" in found
    assert "seat 2, generation 2, church window 2" in found
    bag = sorted(t for t in found if t.startswith("seat 2,") and t.endswith("in the black bag"))
    assert bag == [f"seat 2, generation {g}, in the black bag" for g in (1, 2, 3, 3)]
    # seat 2: generation 2 at home, generation 1 in a grave, T2 marked on the map
    assert "seat 3, generation 2, farmyard" in found
    assert "seat 3, generation 1, in a grave" in found
    assert "seat 3 marked T2" in found
    assert found.count("seat 3, generation 2, unborn") == 2


def test_a_traveller_stands_in_its_town() -> None:
    found = tips(board("2p", "middle"))
    assert "seat 1, generation 2, town T4" in found  # members["town:T4"] = [0, 1, 0, 0]
    assert {"seat 1 marked T1", "seat 1 marked T4"} <= set(found)


def test_cubes_lie_on_their_action_spaces() -> None:
    found = tips(board("2p", "middle"))
    assert found.count("plague cube on church") == 2
    assert found.count("pink cube on council") == 1 and found.count("orange cube on council") == 1
    assert not any(t.endswith("cube on family") for t in found)


def test_the_market_shows_stalls_queue_and_pile() -> None:
    root = board("3p", "middle")
    found = tips(root)
    assert "stall 1: C12, wants 1 scroll + 1 wagon, 4 prestige" in found
    assert "stall 4: C11, wants 1 scroll + 1 plough, 5 prestige" in found
    assert "stall 5: not used with 3 players" in found
    assert "queue 3: C01, wants 1 horse + 1 plough, 6 prestige" in found
    assert "customer pile: 12 face down" in found
    two = tips(board("2p", "middle"))
    assert {"stall 4: not used with 2 players", "stall 5: not used with 2 players"} <= set(two)


def test_the_chronicle_and_graves_fill_by_player_count() -> None:
    found = tips(board("3p", "middle"))
    assert found.count("seat 1's member in the crafts chronicle") == 2
    assert found.count("seat 2's member in the crafts chronicle") == 1
    assert found.count("crafts chronicle: blocked with 3 players") == 1
    assert found.count("grave blocked with 3 players") == 1
    assert found.count("a free grave") == 4
    end = tips(board("2p", "end"))
    assert end.count("grave blocked with 2 players") == 2 and "a free grave" not in end


def test_time_prestige_and_the_end_are_drawn() -> None:
    root = board("3p", "end")
    words = texts(root)
    assert "Seat 2 · prestige 27 · starting player" in words
    assert "83 spent · lap 6 · deaths due 0" in words  # time 83 on a 14-space lap
    assert "End triggered by seat 1; no last turn left" in words
    assert "time marker: 83 spent" in tips(root)
    assert "Village · round 16 · seat 2 started the round · game over" in words
    assert not any(w.endswith("to move") for w in words)  # nobody moves once it is over
    assert "seat 2 to move" in texts(board("3p", "middle"))


def test_only_the_open_decision_stays_text() -> None:
    for players, when in CASES:
        listed = {path for path, _ in render.render("village", state(players, when)).text}
        assert listed and all(p.startswith("decision.") for p in listed), listed
