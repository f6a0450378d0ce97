"""The owner's seat view in the replay viewer, against a real server and a ranked Farmaria
match that alice's uploaded bot played in a real worker's sandbox: alice sees what her seat
saw (her hand, her stderr) in the HTML and in the scrubber's JSON; bob, an anonymous visitor
and the public viewer get a message and none of her hidden values."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape
from prometheus_client import CollectorRegistry
from starlette.testclient import TestClient

import games
from hamlet.v1 import arena_pb2
from server.app import build_server
from server.config import Settings
from server.services.scheduling import MemoryEnqueuer
from tests.integration.stack import scaled
from tests.server import fakeworker
from tests.server.conftest import Running
from tests.server.fakeworker import FAKE_WORKER_WINDOW
from tests.server.test_seat_view import MARKER, PEEKER, play
from tests.web.browser import artifacts_dir, console_errors, missing_reason, new_driver
from web import seatview
from web.app import WebSettings, create_app
from web.serve import BackgroundWeb
from workers.sandbox import SandboxLimits
from workers.sandbox_check import cached_check

#: Keys of a Farmaria seat's own hand: the public state has only their counts.
HIDDEN = re.compile(r"\.(selected|face_down|opportunity)(\[|<| )|&#34;(selected|face_down)&#34;")


@dataclass
class Played:
    """The server, the web app, the match and who played which seat."""

    running: Running
    client: TestClient
    match_id: str
    mine: int  # alice's seat
    alice: str  # tokens
    bob: str


def _fresh(played: Played, token: str | None) -> TestClient:
    client = TestClient(played.client.app, base_url="http://testserver")
    if token is not None:
        form = client.get("/login").text
        csrf = re.search(r'name="csrf" value="([^"]+)"', form)
        assert csrf
        r = client.post("/login", data={"csrf": csrf.group(1), "token": token})
        assert r.status_code == 200 and "Log out" in r.text
    return client


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    report = cached_check(SandboxLimits())
    if not report.plays_uploaded:
        pytest.skip(f"this machine's sandbox refuses uploaded bots: {report.why_refused()}")
    tmp = tmp_path_factory.mktemp("seatview")
    queue, registry = MemoryEnqueuer(), CollectorRegistry()
    settings = Settings(
        dispatch_window=FAKE_WORKER_WINDOW,
        data_dir=tmp / "data",
        grpc_port=0,
        metrics_port=-1,
        reaper_interval_seconds=3600,
    )
    server, port = build_server(settings, enqueuer=queue, registry=registry)
    running = Running(server, port, queue, registry)
    fakeworker.announce(running.worker_channel, ["farmaria"], bots=("random",))
    alice_token, alice = running.user("alice")
    bob_token, _ = running.user("bob")
    alice.SubmitBot(arena_pb2.SubmitBotRequest(name="peeker", game="farmaria", source=PEEKER))
    running.arena.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="farmaria", bots=["peeker", "random"], players_per_table=2, rated=True,
            start=True,
        )
    )  # fmt: skip
    first, second = running.queue.sent[:2]
    play(running, first, Path(tmp) / "code")
    app = create_app(WebSettings(server=running.addr))
    with TestClient(app) as client:
        match = running.arena.GetMatch(arena_pb2.MatchRef(match_id=first)).match
        mine = next(s.seat for s in match.seats if s.bot_name == "peeker")
        out = Played(running, client, first, mine, alice_token, bob_token)
        # Before the block's other rotation is played the log (and the view) is withheld.
        page = _fresh(out, alice_token).get(f"/matches/{first}/replay?seat={mine}")
        assert page.status_code == 409 and MARKER not in page.text
        early = seatview.fetch(app.state.reader, first, mine, alice_token)
        assert early.status is seatview.SeatViewStatus.NOT_FINAL and early.view is None
        assert "not final yet" in early.message
        play(running, second, Path(tmp) / "code")
        yield out
    app.state.reader.close()
    running.close()
    server.stop(1)


def _hand(played: Played, d: int) -> dict[str, object]:
    """Alice's seat's observation at log index ``d``, from the engine and the public log."""
    detail = played.running.arena.GetMatch(arena_pb2.MatchRef(match_id=played.match_id))
    spec = games.get("farmaria")
    state = spec.new_game(num_players=2, seed=detail.match.seed)
    for decision in detail.decisions[:d]:
        state.apply(spec.action_from_dict(json.loads(decision.action_json)))
    seen: dict[str, object] = json.loads(json.dumps(state.observation(played.mine)))
    return seen


def _first_own(played: Played) -> int:
    detail = played.running.arena.GetMatch(arena_pb2.MatchRef(match_id=played.match_id))
    return next(d.index for d in detail.decisions if d.player == played.mine)


def test_alice_sees_her_seats_hand_in_the_page_and_the_fragment(played: Played) -> None:
    d = _first_own(played)
    mine = played.mine
    hand = _hand(played, d)["players"][mine]  # type: ignore[index]
    client = _fresh(played, played.alice)
    base = f"/matches/{played.match_id}/replay"
    page = client.get(f"{base}?d={d}&seat={mine}")
    assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
    frame = client.get(f"{base}/frame.json?d={d}&seat={mine}")
    assert frame.headers["cache-control"] == "no-store"
    body = frame.json()
    assert body["seat"] == mine
    for text in (page.text, body["seat_html"]):
        assert f"You are viewing seat {mine + 1}'s private view" in text
        assert f"{MARKER}{mine}:" in text  # its stderr at this decision and the tail
        for key in ("selected", "face_down", "opportunity"):
            for i, card in enumerate(hand.get(key, [])):
                row = f"players[{mine}].{key}[{i}]"
                assert row in text, row
                assert str(escape(json.dumps(card))) in text
        assert 'class="chosen"' in text and "← played" in text
        assert HIDDEN.search(text)
    # The scrubber's fragment at a position where the seat does not move: the nearest decision.
    other = client.get(f"{base}/frame.json?d=0&seat={mine}").json()["seat_html"]
    assert "private view" in other and f"players[{mine}]." in other


def test_bob_anonymous_and_the_public_viewer_never_see_her_hand(played: Played) -> None:
    d = _first_own(played)
    mine = played.mine
    base = f"/matches/{played.match_id}/replay"
    bob = _fresh(played, played.bob)
    anon = _fresh(played, None)
    shown = {
        "bob": [bob.get(f"{base}?d={d}&seat={mine}").text,
                bob.get(f"{base}/frame.json?d={d}&seat={mine}").text],
        "anon": [anon.get(f"{base}?d={d}&seat={mine}").text,
                 anon.get(f"{base}/frame.json?d={d}&seat={mine}").text],
        "public": [anon.get(f"{base}?d={d}").text, anon.get(f"{base}/frame.json?d={d}").text,
                   _fresh(played, played.alice).get(f"{base}?d={d}").text],
    }  # fmt: skip
    assert "not your bot" in shown["bob"][0] and "not your bot" in shown["bob"][1]
    assert "log in with the token" in shown["anon"][0] and "log in with" in shown["anon"][1]
    for who, texts in shown.items():
        for text in texts:
            assert MARKER not in text, who
            assert "private view" not in text, who
            assert not HIDDEN.search(text), (who, HIDDEN.search(text))
    # Alice may not see the other seat (a built-in bot she does not own) either.
    theirs = _fresh(played, played.alice).get(f"{base}?d={d}&seat={1 - mine}").text
    assert "not your bot" in theirs and MARKER not in theirs and not HIDDEN.search(theirs)


def test_the_admin_sees_any_seat_and_the_view_is_asked_for_each_time(played: Played) -> None:
    reader = played.client.app.state.reader  # type: ignore[attr-defined]
    result = seatview.fetch(reader, played.match_id, played.mine, played.running.admin_token)
    assert result.status is seatview.SeatViewStatus.SHOWN and result.view is not None
    assert result.view.traced and result.view.bot_name == "peeker"
    refused = seatview.fetch(reader, played.match_id, played.mine, played.bob)
    assert refused.status is seatview.SeatViewStatus.NOT_YOURS and refused.view is None
    assert seatview.fetch(reader, played.match_id, 0, None).status is (
        seatview.SeatViewStatus.LOG_IN
    )
    assert not reader._replays or all(  # the replay cache holds public replays only
        not data.replay.HasField("seat_view") for data in reader._replays.values()
    )


def test_alices_bot_page_lists_its_versions_and_names_them_in_its_matches(played: Played) -> None:
    alice = played.running.connect(played.alice)
    alice.SubmitBot(
        arena_pb2.SubmitBotRequest(
            name="peeker", game="farmaria", source=PEEKER + "\n# v2\n", description="second <b>"
        )
    )
    html_text = played.client.get("/bots/peeker?game=farmaria").text
    assert "<dt>Owner</dt><dd>alice</dd>" in html_text
    versions = html_text[html_text.index('<table id="versions">') :].split("</table>")[0]
    assert '<tr id="v2"><td>peeker@2 (latest)' in versions and '<tr id="v1">' in versions
    assert versions.index('id="v2"') < versions.index('id="v1"')  # newest first
    assert "second &lt;b&gt;" in versions and "<td>python3</td>" in versions
    v1 = versions[versions.index('<tr id="v1">') :]
    assert '<td class="num">2</td>' in v1  # both rotations of the block
    recent = html_text[html_text.index("Recent matches") :].split("</table>")[0]
    assert f'<a href="/matches/{played.match_id}">' in recent
    assert '<a href="#v1">peeker@1</a>' in recent and ">random@1</a>" in recent


@pytest.mark.integration
@pytest.mark.timeout(180)
@pytest.mark.skipif(missing_reason() is not None, reason=str(missing_reason()))
def test_in_a_browser_alice_logs_in_and_steps_through_her_seats_view(played: Played) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.select import Select
    from selenium.webdriver.support.ui import WebDriverWait

    web = BackgroundWeb(WebSettings(server=played.running.addr))
    driver: Any = new_driver()
    try:
        root = web.url.rstrip("/")
        driver.get(f"{root}/login")
        driver.find_element(By.NAME, "token").send_keys(played.alice)
        driver.find_element(By.CSS_SELECTOR, "form.login button[type=submit]").click()
        WebDriverWait(driver, 20).until(lambda d: "Log out" in d.page_source)
        driver.get(f"{root}/matches/{played.match_id}/replay?d=0")
        assert "private view" not in driver.page_source
        Select(driver.find_element(By.ID, "seat")).select_by_value(str(played.mine))
        driver.find_element(By.ID, "seat-show").click()
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "seat-panel"))
        notice = driver.find_element(By.ID, "seat-message").text
        assert f"You are viewing seat {played.mine + 1}'s private view" in notice
        assert f"seat={played.mine}" in driver.current_url
        first = driver.find_element(By.CSS_SELECTOR, "[data-test=seat-decision]").text
        body = driver.find_element(By.TAG_NAME, "body")
        body.send_keys(Keys.END)  # the scrubber steps in place; the seat's panel follows
        # The panel is replaced as the scrubber steps: an element found just before its
        # replacement is stale, which is not a failure; look again.
        wait = WebDriverWait(
            driver, scaled(20), ignored_exceptions=(StaleElementReferenceException,)
        )
        wait.until(
            lambda d: d.find_element(By.CSS_SELECTOR, "[data-test=seat-decision]").text != first
        )
        wait.until(lambda d: MARKER in d.find_element(By.ID, "seat-stderr-tail").text)
        assert f"seat={played.mine}" in driver.current_url
        assert f"seat={played.mine}" in driver.find_element(By.ID, "back").get_attribute("href")
        errors = console_errors(driver)
        assert not errors, errors
        driver.save_screenshot(str(artifacts_dir() / "replay-seat-view.png"))
    finally:
        driver.quit()
        web.stop()
