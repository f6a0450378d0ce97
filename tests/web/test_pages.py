"""Every page against a real server: status, title, escaping and the security headers."""

from __future__ import annotations

import json
import re

import pytest

from hamlet.v1 import arena_pb2
from tests.web.conftest import GAMES, Site


def _title(html: str) -> str:
    found = re.search(r"<title>(.*?)</title>", html, re.S)
    assert found, "every page has a title"
    return found.group(1)


def pages(site: Site) -> list[str]:
    out = ["/", "/tournaments", "/bots", "/bots/alpha", "/login"]
    for game in GAMES:
        out += [f"/leaderboards/{game}", f"/tournaments/{site.tournaments[game]}"]
        mid = site.matches[game][0]
        out += [f"/matches/{mid}", f"/matches/{mid}/replay", f"/bots/beta?game={game}"]
    return out


def test_every_page_answers_with_a_title_and_the_security_headers(site: Site) -> None:
    for path in pages(site):
        r = site.client.get(path)
        assert r.status_code == 200, (path, r.text[:500])
        assert "Hamlet" in _title(r.text), path
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["cache-control"] == "no-store"
        assert "<script>" not in r.text and " style=" not in r.text, path  # the CSP holds


def test_the_leaderboard_shows_intervals_rank_ranges_and_provisional_marks(site: Site) -> None:
    board = site.arena.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="village"))
    html = site.client.get("/leaderboards/village").text
    assert board.lines, "the tournament was rated"
    for line in board.lines:
        assert f"{line.bot_name}</a>@{line.version}" in html
        if line.anchor:  # fixed by definition: no zero-width interval
            shown = "anchor"
        elif line.open_high and line.open_low:
            shown = "no bound yet"
        elif line.open_high:  # never beaten: a lower bound, open above
            shown = f"≥ {line.low:.0f}, open above"
        elif line.open_low:
            shown = f"≤ {line.high:.0f}, open below"
        else:
            shown = f"{line.low:.0f} – {line.high:.0f}"
        assert shown in html
    assert "inf" not in html.replace("information", "")
    assert "95% interval" in html and "Rank range" in html and "Seat advantages" in html
    assert "Joint rank" in html
    assert ("provisional" in html) == any(ln.provisional for ln in board.lines)
    assert "1000 ms per decision, with a 10000 ms bank" in html  # the rated time control


def test_a_match_page_shows_seats_forfeits_seed_commitment_and_links(site: Site) -> None:
    m = site.arena.GetMatch(arena_pb2.MatchRef(match_id=site.forfeit_match)).match
    t = site.arena.GetTournament(arena_pb2.TournamentRef(tournament_id=m.tournament_id))
    html = site.client.get(f"/matches/{m.match_id}").text
    for s in m.seats:
        assert f'data-seat-score="{s.seat}">{s.score}<' in html
    # the forfeit's reason and what happened (the worker's "boom" is the bot's, not shown)
    assert "crash: crashed" in html and "boom" not in html
    assert t.seed_commitment in html
    assert f"/matches/{m.match_id}/replay" in html and f"/matches/{m.match_id}/log.json" in html


def test_the_log_downloads_as_json(site: Site) -> None:
    mid = site.matches["farmaria"][0]
    r = site.client.get(f"/matches/{mid}/log.json")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    body = json.loads(r.text)
    detail = site.arena.GetMatch(arena_pb2.MatchRef(match_id=mid))
    assert body["match"]["match_id"] == mid
    assert len(body["decisions"]) == len(detail.decisions) > 0


def test_the_live_feed_returns_the_pages_the_page_shows(site: Site) -> None:
    tid = site.tournaments["my_village"]
    total = len(site.matches["my_village"])
    first = site.client.get(f"/tournaments/{tid}/live.json").json()
    assert first["over"] and "Standings" in first["standings_html"]
    assert first["matches_html"].count("<tr>") == total + 1  # and the header row
    assert site.client.get(f"/tournaments/{tid}/live.json?standings=x").status_code == 400
    assert site.client.get(f"/tournaments/{tid}/live.json?matches=x").status_code == 400
    assert site.client.get(f"/tournaments/{tid}?standings={'x' * 500}").status_code == 400


def test_the_bot_page_has_owner_versions_history_and_opponents(site: Site) -> None:
    html = site.client.get("/bots/alpha?game=village").text
    assert "system (built-in)" in html and 'href="#v1">v1</a> (latest)' in html
    versions = html[html.index('<table id="versions">') :].split("</table>")[0]
    assert '<tr id="v1"><td>alpha@1 (latest)' in versions and "<td>builtin</td>" in versions
    assert '<a href="/leaderboards/village">village</a>: ' in versions
    recent = html[html.index("Recent matches") :].split("</table>")[0]
    mids = set(site.matches["village"])
    assert any(f'<a href="/matches/{mid}">' in recent for mid in mids)
    assert '<a href="#v1">alpha@1</a>' in recent and ">beta@1</a>" in recent
    assert "Rating history" in html and 'class="chart"' in html
    assert "Results by opponent" in html and "/bots/beta?game=village" in html


@pytest.mark.parametrize(
    ("path", "status"),
    [("/matches/nope", 404), ("/bots/nobody", 404), ("/leaderboards/chess", 404),
     ("/tournaments/nope", 404)],
)  # fmt: skip
def test_unknown_things_are_404_pages(site: Site, path: str, status: int) -> None:
    r = site.client.get(path)
    assert r.status_code == status and "<title>" in r.text


def test_names_are_escaped(site: Site) -> None:
    r = site.client.get("/leaderboards/<script>alert(1)</script>")
    assert "<script>alert(1)</script>" not in r.text
    assert "&lt;script&gt;" in r.text or r.status_code in (400, 404)


def _follow(site: Site, path: str, what: str, pattern: str) -> list[str]:
    """Every item ``pattern`` finds in the ``what`` section, page after page, by the page's
    own "next" links."""
    found: list[str] = []
    url = path
    while True:
        html = site.client.get(url).text
        section = html[html.index(f'<div id="{what}">') :].split("</table>")[0]
        found += re.findall(pattern, section)
        nxt = re.search(rf'href="([^"]*)" data-test="{what}-next"', html)
        if nxt is None:
            return found
        url = path + nxt.group(1).replace("&amp;", "&")


def test_the_tournament_page_shows_a_page_of_standings_and_matches_with_next_links(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    from web import pages as web_pages

    monkeypatch.setattr(web_pages, "PAGE", 1)
    tid = site.tournaments["my_village"]
    t = site.arena.GetTournament(arena_pb2.TournamentRef(tournament_id=tid))
    path = f"/tournaments/{tid}"
    matches = _follow(site, path, "matches", r'<tr><td><a href="/matches/([^"]+)">')
    assert sorted(matches) == sorted(site.matches["my_village"]) and len(matches) > 1
    # each standing line names its entry (name@version) and links to that bot's page
    bots = _follow(site, path, "standings", r'<tr><td><a href="/bots/[^"?]+\?[^"]*">([^<]+)</a>')
    assert bots == [s.bot_name for s in t.standings] and t.standings_total == len(bots) > 1
    # live.json answers with the pages its page shows
    html = site.client.get(path).text
    second = re.search(r'href="([^"]*)" data-test="matches-next"', html)
    assert second is not None
    query = second.group(1).replace("&amp;", "&")
    live = site.client.get(f"{path}/live.json{query}").json()
    assert re.findall(r'<tr><td><a href="/matches/([^"]+)">', live["matches_html"]) == matches[1:2]


def test_seats_and_places_are_1_based_on_every_page(site: Site) -> None:
    mid = site.matches["village"][0]
    m = site.arena.GetMatch(arena_pb2.MatchRef(match_id=mid)).match
    shown = re.findall(
        r'<td><span class="seat seat-\d">(\d+)</span></td>', site.client.get(f"/matches/{mid}").text
    )
    assert shown == [str(s.seat + 1) for s in m.seats] == ["1", "2"]
    replay = site.client.get(f"/matches/{mid}/replay?d=1").text
    assert "seat 1: " in replay and "seat 0" not in replay.split("<svg")[0]
    assert re.search(r'class="seat seat-\d">seat [12]</span> chose', replay)
    last = site.client.get(f"/matches/{mid}/replay?d=100000").text
    final = last[last.index('id="final-scores"') :].split("</table>")[0]
    rows = re.findall(
        r'seat-\d">(\d+)</span></td><td>[^<]+</td><td class="num"[^>]*>[^<]*</td><td>(\d+)</td>',
        final,
    )
    assert sorted(seat for seat, _ in rows) == ["1", "2"]
    assert sorted(place for _, place in rows) in (["1", "2"], ["1", "1"])
    board = site.client.get("/leaderboards/village").text
    assert "against seat 0" not in board and "seat 0" not in board
