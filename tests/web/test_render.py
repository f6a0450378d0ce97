"""The board renderers on recorded public states (tests/web/states/, made by the engines)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from web import render
from web.render import farmaria, my_village, village

STATES = sorted((Path(__file__).parent / "states").glob("*.json"))
SVG = "{http://www.w3.org/2000/svg}"


def recorded() -> list[tuple[str, str, dict[str, object], int]]:
    out = []
    for path in STATES:
        doc = json.loads(path.read_text())
        for when, state in doc["states"].items():
            out.append((f"{path.stem}:{when}", doc["game"], state, doc["players"]))
    return out


CASES = recorded()


@pytest.mark.parametrize(("name", "game", "state", "players"), CASES, ids=[c[0] for c in CASES])
def test_a_state_draws_as_well_formed_svg_with_a_panel_per_seat(
    name: str, game: str, state: dict[str, object], players: int
) -> None:
    out = render.render(game, state)
    root = ET.fromstring(str(out.frame.svg))
    assert root.tag == f"{SVG}svg" and root.get("aria-label")
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    for seat in range(players):
        assert any(t.startswith(f"Seat {seat + 1}") for t in texts), (name, seat)
    assert out.frame.scores is None or len(out.frame.scores) == players


@pytest.mark.parametrize(("name", "game", "state", "players"), CASES, ids=[c[0] for c in CASES])
def test_nothing_is_hidden_every_leaf_is_drawn_or_listed(
    name: str, game: str, state: dict[str, object], players: int
) -> None:
    out = render.render(game, state)
    listed = {path for path, _ in out.text}
    for path, _ in render.leaves(state):
        dotted = ".".join(path)
        assert render.is_drawn(path, out.frame.drawn) or dotted in listed, (name, dotted)
    assert listed, "some of every game's state is listed as text"


@pytest.mark.parametrize(
    ("module", "game"), [(village, "village"), (my_village, "my_village"), (farmaria, "farmaria")]
)
def test_every_drawn_path_names_something_in_the_states(module: object, game: str) -> None:
    paths = [path for _, g, state, _ in CASES if g == game for path, _ in render.leaves(state)]
    for pattern in module.DRAWN:  # type: ignore[attr-defined]
        if pattern.split(".")[-1].isdigit():
            continue  # "the first fields": not every farm has five
        assert any(render.is_drawn(p, frozenset({pattern})) for p in paths), pattern


def test_public_scores_are_the_prestige_and_victory_points() -> None:
    for _, game, state, _ in CASES:
        scores = render.render(game, state).frame.scores
        players = state.get("players")
        if game == "village":
            assert scores == tuple(float(p["prestige"]) for p in players)  # type: ignore[index, union-attr]
        elif game == "farmaria":
            assert scores == tuple(float(p["vp"]) for p in players)  # type: ignore[index, union-attr]
        else:
            assert scores is None  # My Village shows no running score


def test_drawn_values_are_on_the_board() -> None:
    doc = json.loads((Path(__file__).parent / "states" / "village-3p.json").read_text())
    state = doc["states"]["end"]
    svg = str(render.render("village", state).frame.svg)
    for seat, p in enumerate(state["players"]):
        assert f"Seat {seat + 1} · prestige {p['prestige']}" in svg
        assert f"coins {p['coins']}" in svg


def test_text_from_the_state_is_escaped() -> None:
    doc = json.loads((Path(__file__).parent / "states" / "farmaria-2p.json").read_text())
    state = doc["states"]["middle"]
    state["players"][0]["character"] = '<script>alert("x")</script>'
    state["used_events"] = ["<img src=x onerror=alert(1)>"]
    out = render.render("farmaria", state)
    assert "<script>" not in str(out.frame.svg) and "&lt;script&gt;" in str(out.frame.svg)
    ET.fromstring(str(out.frame.svg))  # still well-formed
    assert "<img" not in str(out.frame.svg) and "&lt;img src=x" in str(out.frame.svg)


def test_a_game_without_a_renderer_is_listed_whole() -> None:
    state = {"a": 1, "b": {"c": [1, 2]}}
    out = render.render("no-such-game", state)
    assert dict(out.text) == {"a": "1", "b.c": "[1, 2]"}
