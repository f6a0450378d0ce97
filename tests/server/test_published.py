"""The default leaderboard view (each bot's latest version): with one version a bot it is
the table itself, exactly what the general computation makes."""

from __future__ import annotations

from datetime import datetime

import numpy as np

from server.ratings.data import Result
from server.ratings.design import Design
from server.ratings.fitter import Fitter
from server.services.leaderboards import Published, _published
from server.services.refit import Snapshot


def board_of(results: list[Result]) -> Published:
    design = Design()
    design.append(results)
    fitted = Fitter().fit(("toy", "toy-1"), design)
    return _published("toy", "toy-1", Snapshot(fitted, datetime(2026, 1, 1)))


def played(names: list[str], n: int, seed: int) -> list[Result]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        a, b = rng.choice(len(names), size=2, replace=False)
        first = int(rng.random() < 0.5 + 0.04 * (a - b))
        out.append(Result((names[a], names[b]), (1 - first, first), f"x{i}"))
    return out


def test_one_version_a_bot_is_the_table_itself() -> None:
    # two groups that never met, the anchor in one, close ratings (rank ranges overlap)
    left = ["random@1", *(f"a{i}@1" for i in range(6))]
    right = [f"b{i}@1" for i in range(5)]
    board = board_of(played(left, 300, seed=1) + played(right, 200, seed=2))
    latest = board.latest_lines()
    general = board.subset_lines({vl.bot: vl.version for vl in board.lines})
    assert latest is board.lines
    assert latest == general
    assert {vl.line.group for vl in latest} == {0, 1}


def test_several_versions_keep_the_general_view() -> None:
    names = ["random@1", "a@1", "a@2", "b@1", "c@1"]
    board = board_of(played(names, 400, seed=3))
    latest = board.latest_lines()
    assert [(vl.bot, vl.version) for vl in latest if vl.bot == "a"] == [("a", 2)]
    assert len(latest) == 4
