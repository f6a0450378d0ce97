"""``/games/{game}/rules``: the rulebook rendered from its markdown, safely (raw HTML off, the
site's CSP kept), linked from the index and the leaderboard; an unknown game is a 404 that
says which games have rulebooks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from hamlet import rulebooks
from tests.integration.stack import free_port
from tests.web.conftest import Site
from web.app import WebSettings, create_app
from web.rules import render
from web.security import CSP


@pytest.fixture
def client() -> Iterator[TestClient]:
    """The web app alone: the rulebook pages need no gRPC server."""
    with TestClient(create_app(WebSettings(server=f"127.0.0.1:{free_port()}"))) as c:
        yield c


def test_the_village_rulebook_page_shows_the_rulebook_and_its_tables(client: TestClient) -> None:
    answer = client.get("/games/village/rules")
    assert answer.status_code == 200
    assert answer.headers["content-security-policy"] == CSP
    html = answer.text
    assert "<title>Village — the rulebook for bot authors · Hamlet</title>" in html
    assert '<h2 id="7-the-decisions">7. The decisions</h2>' in html
    assert '<div class="table-wrap"><table>' in html
    assert "<td>C24</td>\n<td>5 grain</td>\n<td>5</td>" in html  # a generated table's row
    assert "table: customers" not in html and "&lt;!--" not in html  # markers are not shown
    assert '<a href="/leaderboards/village">village leaderboard</a>' in html
    # The coverage page is a repository file the site does not serve: its link is text.
    assert "village-coverage.md" not in html and "<a>" not in html
    assert ">coverage page</a>" not in html and "coverage page" in html


def test_an_unknown_game_is_a_404_naming_the_games_with_rulebooks(client: TestClient) -> None:
    answer = client.get("/games/chess/rules")
    assert answer.status_code == 404
    assert answer.headers["content-security-policy"] == CSP
    assert (
        "There is no game called &#39;chess&#39;; rulebooks: farmaria, my_village, village."
        in answer.text
    )


def test_a_rulebook_missing_from_the_installation_is_a_404(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rulebooks, "ROOT", tmp_path)
    answer = client.get("/games/village/rules")
    assert answer.status_code == 404
    assert "The village rulebook is not installed with this web app." in answer.text


def test_markup_in_the_markdown_is_shown_as_text_never_run() -> None:
    _title, html = render(
        "# T\n\n<script>alert(1)</script>\n\nx <img src=x onerror=alert(1)> "
        "[a](javascript:alert(1)) <b>bold</b>\n"
    )
    assert "<script" not in html and "<img" not in html and "<b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'href="javascript' not in html


def test_links_to_rulebooks_become_site_pages_and_other_relative_links_text() -> None:
    title, html = render(
        "# Rules\n\nSee [My Village](my-village.md), [Farmaria](farmaria.md#scoring), "
        "[authors](../bot-authors.md), [home](/), [web](https://example.org/x).\n"
    )
    assert title == "Rules"
    assert '<a href="/games/my_village/rules">My Village</a>' in html
    assert '<a href="/games/farmaria/rules">Farmaria</a>' in html
    assert ", authors, " in html and "bot-authors.md" not in html
    assert '<a href="/">home</a>' in html and '<a href="https://example.org/x">web</a>' in html


def test_the_index_and_the_leaderboard_link_the_rulebook(site: Site) -> None:
    index = site.client.get("/").text
    for game in ("village", "my_village", "farmaria"):
        assert f'<a href="/games/{game}/rules">{game} rulebook</a>' in index
    board = site.client.get("/leaderboards/village").text
    assert '<a href="/games/village/rules" data-test="rulebook-link">' in board


def test_headings_get_the_anchors_in_page_links_use() -> None:
    _title, html = render(
        '# T\n\n## 7.1 Turn — `kind: "turn"`\n\n## Again\n\n## Again\n\n[up](#again-1)\n'
    )
    assert '<h2 id="71-turn--kind-turn">' in html
    assert '<h2 id="again">' in html and '<h2 id="again-1">' in html
    assert '<a href="#again-1">up</a>' in html
