"""The CLI's leaderboard at its edges: groups printed apart with the reason, an open bound,
the anchor, joint rank ranges and the live Elo on the published scale (no server needed)."""

from __future__ import annotations

import io
import math

from rich.console import Console

from cli import console, console_ratings
from hamlet.v1 import arena_pb2
from tests.server.ratings.boards import board


def _text(tables: list[object]) -> str:
    screen = Console(width=200, record=True, file=io.StringIO())
    for t in tables:
        screen.print(t)
    return " ".join(screen.export_text().split())  # titles wrap at the table's width


def test_groups_are_printed_apart_and_say_why() -> None:
    b = board()
    assert b.groups == 2 and {line.group for line in b.lines} == {0, 1}
    tables = console_ratings.leaderboard_tables(b)
    assert len(tables) == 2
    first, second = _text(tables[:1]), _text(tables[1:])
    assert "random = 1000 (anchor)" in first and "Group 1 of 2" in first
    assert "Group 2 of 2" in second and "NOT comparable" in second
    assert "no order across groups" in second
    for line in b.lines:  # each bot in its own group's table only
        where = first if line.group == 0 else second
        other = second if line.group == 0 else first
        assert f"{line.bot_name}@{line.version}" in where
        assert f"{line.bot_name}@{line.version}" not in other
    positions = [line.position for line in b.lines if line.group == 1]
    assert positions == [1, 2, 3]  # counted within the group


def test_open_bounds_anchor_and_joint_ranks_are_shown() -> None:
    b = board()
    ace = next(line for line in b.lines if line.bot_name == "ace")
    assert ace.open_high and math.isinf(ace.high) and ace.provisional
    text = _text(console_ratings.leaderboard_tables(b))
    assert f"≥ {ace.low:.0f} (open above)" in text
    assert "ace@1 ?" in text
    assert "anchor" in text and "1000 .. 1000" not in text
    assert "joint rank" in text
    assert "inf" not in text
    assert "+0 (+0 .. +0)" not in text


def test_version_ratings_show_open_and_anchor_lines() -> None:
    ver = arena_pb2.BotVersion(
        bot_name="ace",
        version=1,
        ratings=[
            arena_pb2.VersionRating(
                game="toy", rating=925, low=925, high=math.inf, games=4, provisional=True
            ),
            arena_pb2.VersionRating(game="dice", rating=1000, low=1000, high=1000, games=40),
        ],
    )
    text = console.ratings_text(ver)
    assert "toy ≥ 925 (4 games, open above) ?" in text
    assert "dice 1000 (anchor, 40 games)" in text


def test_the_live_elo_is_on_the_published_scale() -> None:
    b = board()  # random's live Elo is 1460: shown at 1000, alpha 120 above it
    live = {e.bot_name: e.rating for e in b.entries}
    assert live == {"alpha": 1120.0, "random": 1000.0}
    assert "random = 1000" in _text([console_ratings.elo_table(b)])
