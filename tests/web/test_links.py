"""The link checker: every page reachable from ``/`` on a populated service (tournaments of
each game, a ladder season, a head-to-head test, bots, matches, replays) is crawled, and every
internal link and asset on it answers 200; a link to ``#anchor`` finds its anchor."""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urldefrag, urljoin, urlsplit

import pytest
from starlette.testclient import TestClient

from tests.web.populated import Populated, populated

#: Pages a crawl may fetch at most (a runaway crawl is a failure, not a hang).
MAX_PAGES = 3000

__all__ = ["populated"]  # the fixture, used by name


class _Links(HTMLParser):
    """The links (``href``, ``src``) and the anchors (``id``) of one page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if value is None:
                continue
            if key == "id":
                self.ids.add(value)
            elif (key == "href" and tag in ("a", "link")) or (key == "src" and tag == "script"):
                self.links.append(value)


def _shape(url: str) -> tuple[str, tuple[str, ...]]:
    """A page's path and the names of its query's parameters: one page of each shape is
    crawled further (every ``?d=`` of a replay is checked, not walked to the end)."""
    parts = urlsplit(url)
    return parts.path, tuple(sorted(k for k, _ in parse_qsl(parts.query)))


@dataclass
class Crawl:
    """What a crawl found: each fetched URL's status, the pages linking to it, and the
    anchors that were missing."""

    status: dict[str, int]
    linked_from: dict[str, str]
    missing_anchors: list[tuple[str, str]]


def crawl(client: TestClient, start: str = "/") -> Crawl:
    """Fetch every internal URL reachable from ``start``."""
    status: dict[str, int] = {}
    linked_from = {start: "(start)"}
    ids: dict[str, set[str]] = {}
    anchors: list[tuple[str, str, str]] = []  # (page, fragment, linked from)
    expanded: set[tuple[str, tuple[str, ...]]] = set()
    todo = [start]
    while todo:
        url = todo.pop()
        if url in status:
            continue
        assert len(status) < MAX_PAGES, "the crawl does not end"
        r = client.get(url, follow_redirects=False)
        status[url] = r.status_code
        if r.status_code != 200 or "text/html" not in r.headers.get("content-type", ""):
            continue
        parser = _Links()
        parser.feed(r.text)
        ids[url] = parser.ids
        if _shape(url) in expanded:
            continue
        expanded.add(_shape(url))
        for link in parser.links:
            target, fragment = urldefrag(urljoin("http://testserver" + url, link))
            parts = urlsplit(target)
            if parts.netloc != "testserver" or link.startswith("data:"):
                continue  # another site's link, or inline data
            internal = parts.path + ("?" + parts.query if parts.query else "")
            linked_from.setdefault(internal, url)
            if fragment:
                anchors.append((internal, fragment, url))
            todo.append(internal)
    missing = [
        (f"{page}#{frag}", source)
        for page, frag, source in anchors
        if page in ids and frag not in ids[page]
    ]
    return Crawl(status, linked_from, missing)


@pytest.fixture(scope="module")
def crawled(populated: Populated) -> Crawl:
    return crawl(populated.client)


def test_every_internal_link_answers_200(crawled: Crawl) -> None:
    broken = {
        url: (code, crawled.linked_from.get(url, "?"))
        for url, code in crawled.status.items()
        if code != 200
    }
    assert broken == {}, broken


def test_every_anchor_link_finds_its_anchor(crawled: Crawl) -> None:
    assert crawled.missing_anchors == []


def test_the_crawl_reaches_every_kind_of_page(populated: Populated, crawled: Crawl) -> None:
    paths = {urlsplit(u).path for u in crawled.status}
    for tid in (*populated.tournaments, populated.ladder, populated.sprt):
        assert f"/tournaments/{tid}" in paths, tid
    for prefix in ("/leaderboards/", "/games/", "/bots/", "/matches/"):
        assert any(p.startswith(prefix) for p in paths), prefix
    assert any(p.endswith("/replay") for p in paths)
    assert any(p.endswith("/log.json") for p in paths)
    assert "/static/style.css" in paths


def test_a_bot_address_with_its_version_leads_to_that_versions_line(
    populated: Populated,
) -> None:
    r = populated.client.get("/bots/alpha@1?game=village", follow_redirects=False)
    assert r.status_code == 308
    assert r.headers["location"] == "/bots/alpha?game=village#v1"
    html = populated.client.get("/bots/alpha?game=village").text
    assert 'id="v1"' in html
