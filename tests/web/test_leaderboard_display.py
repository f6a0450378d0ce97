"""The leaderboard page at its edges: groups apart with the reason, open bounds, the anchor,
joint ranks (rendered from a fitted board, no server needed)."""

from __future__ import annotations

from tests.server.ratings.boards import board
from web.pages import leaderboard_groups
from web.templating import ENV


def _html() -> str:
    b = board()
    return ENV.get_template("leaderboard.html").render(
        request=None, logged_in=False, csrf="", board=b, groups=leaderboard_groups(b)
    )


def test_groups_are_shown_apart_with_the_reason() -> None:
    html = _html()
    assert 'data-test="groups-notice"' in html and "no order between groups" in html
    assert 'data-group="0"' in html and 'data-group="1"' in html
    assert "Group 2 of 2 (own scale: not comparable with other groups)" in html
    second = html[html.index('data-group="1"') :].split("</table>")[0]
    assert "/bots/east?" in second and "/bots/alpha?" not in second


def test_open_bound_anchor_and_joint_rank_are_shown() -> None:
    b = board()
    ace = next(line for line in b.lines if line.bot_name == "ace")
    html = _html()
    assert f"≥ {ace.low:.0f}, open above" in html
    assert "open interval: at least" in html  # the bar's label says so too
    assert '<span class="interval">anchor</span>' in html
    assert "Joint rank" in html
    assert "inf" not in html.replace("information", "")
