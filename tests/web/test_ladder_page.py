"""A ladder season's page says what a ladder is: who is on it now, how many blocks were
scheduled and how many are open, and its latest matches first; no round count, no entry
list and no progress bar, which a season without an end cannot have."""

from __future__ import annotations

import re

import pytest

from hamlet.v1 import arena_pb2
from tests.web.populated import Populated, populated
from web import pages

__all__ = ["populated"]  # the fixture, used by name


def test_the_ladder_page_says_what_a_ladder_is(populated: Populated) -> None:
    html = populated.client.get(f"/tournaments/{populated.ladder}").text
    status = populated.arena.GetLadder(arena_pb2.GetLadderRequest(game="village"))
    assert "Ladder season" in html and 'data-test="ladder-about"' in html
    assert "never ends by itself" in html and "hamlet ladder join" in html
    assert str(2**31 - 1) not in html and "round(s)" not in html
    assert "<progress" not in html
    bots = re.search(r'data-test="ladder-bots">(.*?)</dd>', html, re.S)
    assert bots is not None
    for name in status.bots:
        assert f'<a href="/bots/{name}?game=village">{name}</a>' in bots.group(1)
    assert f"{status.blocks} blocks scheduled so far, {status.open_blocks} open" in html


def test_the_ladder_shows_its_latest_blocks_newest_first(
    populated: Populated, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pages, "LADDER_BLOCKS", 2)
    status = populated.arena.GetLadder(arena_pb2.GetLadderRequest(game="village"))
    html = populated.client.get(f"/tournaments/{populated.ladder}").text
    shown = [int(r) for r in re.findall(r"<td>(\d+)\.\d+\.\d+</td>", html)]
    assert shown and sorted(shown, reverse=True) == shown  # newest first
    assert set(shown) == {status.blocks - 1, status.blocks - 2}
    assert "The latest matches, newest first" in html
    assert 'data-test="matches-next"' not in html


def test_the_live_feed_of_a_ladder_has_no_bar_and_a_finished_tournament_keeps_it(
    populated: Populated,
) -> None:
    live = populated.client.get(f"/tournaments/{populated.ladder}/live.json").json()
    assert "<progress" not in live["progress_html"] and "blocks scheduled" in live["progress_html"]
    other = populated.client.get(f"/tournaments/{populated.tournaments[0]}/live.json").json()
    assert "<progress" in other["progress_html"]


def test_lists_of_tournaments_count_a_ladders_matches_without_a_total(
    populated: Populated,
) -> None:
    html = populated.client.get("/tournaments").text
    row = re.search(rf"{populated.ladder}</a>.*?</tr>", html, re.S)
    assert row is not None and "so far (a ladder: no end)" in row.group(0)
