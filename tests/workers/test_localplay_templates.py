"""``hamlet bot new``'s templates: each is a real bot file that plays in the sandbox without a
forfeit, logs to stderr, and beats ``random`` over duplicate blocks with a fixed seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import games
from bots.templates import TemplateError, TemplateExistsError, render, template_games, write
from workers import localplay
from workers.localplay import LocalPlay, prepare


def test_every_game_has_a_template() -> None:
    assert template_games() == games.names()


@pytest.mark.parametrize("game", games.names())
def test_the_template_plays_in_the_sandbox_and_beats_random(game: str, tmp_path: Path) -> None:
    path = write("starter", game, tmp_path)
    assert path == tmp_path / "starter.py"
    text = path.read_text()
    assert "TEMPLATE_NAME" not in text and "starter" in text and "run(decide)" in text
    traces = tmp_path / "traces"
    request = LocalPlay(str(path), game, ("random",), 8, seed=11, trace_dir=traces)
    summary = localplay.play(prepare(request))
    (random_line,) = summary.opponents
    assert summary.forfeits == () and summary.target.forfeits == 0
    assert summary.target.wins > random_line.wins, (summary.target, random_line)
    assert summary.target.average_place < random_line.average_place
    # It logs one stderr line per decision, and the trace keeps it next to the decision.
    trace = json.loads((traces / "game-001-seat0.json").read_text())
    assert all(len(step["stderr"]) == 1 for step in trace["decisions"])
    assert trace["decisions"][0]["stderr"][0].endswith(")")


def test_a_template_never_overwrites(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text("my work\n")
    with pytest.raises(TemplateExistsError, match="exists already"):
        write("mine", "village", tmp_path)
    assert (tmp_path / "mine.py").read_text() == "my work\n"


@pytest.mark.parametrize(
    ("name", "game", "message"),
    [
        ("ok", "chess", "unknown game 'chess'; games with a template: village"),
        ("../evil", "village", "bad bot name '../evil'"),
        ("", "village", "bad bot name ''"),
    ],
)
def test_bad_names_and_games_are_refused(name: str, game: str, message: str) -> None:
    with pytest.raises(TemplateError, match=message.replace("(", r"\(")):
        render(name, game)
