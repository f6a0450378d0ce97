"""The web app in a real browser against a real Hamlet: redis-server, a Celery worker that
plays the built-in bots, the gRPC server and the web app on a thread. A small tournament of
each game is played first; every page loads without a console error, each game's replay is
stepped to its end and shows the match's final scores, a running tournament's page updates
itself, and screenshots are saved as test artifacts (``$HAMLET_ARTIFACTS``, tests/artifacts/;
with HAMLET_UPDATE_SCREENSHOTS=1 the ones in docs/screenshots/ are refreshed)."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hamlet.v1 import arena_pb2, arena_pb2_grpc, common_pb2
from server.app import build_server
from server.config import Settings
from server.services.timecontrol import RatedTimeControls, TimeControl
from tests.integration.stack import Worker, arena, bots_announced, redis_server, wait_until
from tests.web.browser import ROOT, artifacts_dir, console_errors, missing_reason, new_driver
from web.app import WebSettings
from web.serve import BackgroundWeb

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(300),
    pytest.mark.skipif(missing_reason() is not None, reason=str(missing_reason())),
]

GAMES = ("village", "my_village", "farmaria")
DOC_SHOTS = (
    "leaderboard-village.png",
    "tournament-live.png",
    *tuple(f"replay-{g}.png" for g in GAMES),
)


@dataclass
class Hamlet:
    stub: arena_pb2_grpc.ArenaStub
    web: BackgroundWeb
    tournaments: dict[str, str]
    shots: Path

    def url(self, path: str) -> str:
        return self.web.url.rstrip("/") + path

    def tournament(self, stub_game: str, bots: list[str], rounds: int) -> str:
        t = self.stub.CreateTournament(
            arena_pb2.CreateTournamentRequest(
                game=stub_game, bots=bots, players_per_table=2, rounds=rounds,
                rated=True, start=True,  # at the server's rated time control
            ),
            timeout=10,
        )  # fmt: skip
        return str(t.tournament_id)

    def over(self, tid: str) -> bool:
        t = self.stub.GetTournament(arena_pb2.TournamentRef(tournament_id=tid), timeout=10)
        return t.status == common_pb2.TOURNAMENT_STATUS_FINISHED


@pytest.fixture(scope="module")
def hamlet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hamlet]:
    tmp = tmp_path_factory.mktemp("browser")
    with redis_server(tmp) as redis_url:
        settings = Settings(
            data_dir=tmp / "data", redis_url=redis_url, grpc_host="127.0.0.1", grpc_port=0,
            metrics_port=-1, match_lease_seconds=20.0, queue_timeout_seconds=30.0,
            reaper_interval_seconds=0.5,
            # rated play at 3 s a decision: room for a loaded test machine
            rated_time_control=RatedTimeControls(TimeControl(3000, 30_000)),
        )  # fmt: skip
        server, port = build_server(settings)
        addr = f"127.0.0.1:{port}"
        channel, stub = arena(port, (tmp / "data" / "admin.token").read_text().strip())
        worker = Worker(
            tmp, redis_url, addr, "w1", HAMLET_WORKER_TOKEN_FILE=str(tmp / "data" / "worker.token")
        )
        web = BackgroundWeb(WebSettings(server=addr, poll_ms=500))
        try:
            wait_until(lambda: bots_announced(stub, {"random", "first"}), 60, "the bots")
            h = Hamlet(stub, web, {}, artifacts_dir())
            for game in GAMES:
                h.tournaments[game] = h.tournament(game, ["random", "first"], 1)
            for game in GAMES:
                tid = h.tournaments[game]
                wait_until(lambda tid=tid: h.over(tid), 120, f"the {game} tournament", 0.3)
            yield h
        finally:
            web.stop()
            worker.stop()
            channel.close()
            server.stop(1)


@pytest.fixture(scope="module")
def driver() -> Iterator[object]:
    d = new_driver()
    try:
        yield d
    finally:
        d.quit()  # type: ignore[attr-defined]


def _load(driver: object, url: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)  # type: ignore[attr-defined]
    WebDriverWait(driver, 20).until(lambda d: d.find_element(By.TAG_NAME, "footer"))


def _shot(driver: object, hamlet: Hamlet, name: str) -> None:
    """A screenshot of the whole page (up to 2400 pixels tall) in the artifacts directory."""
    path = hamlet.shots / name
    size = driver.get_window_size()  # type: ignore[attr-defined]
    tall = driver.execute_script("return document.documentElement.scrollHeight;")  # type: ignore[attr-defined]
    driver.set_window_size(size["width"], min(max(int(tall), size["height"]), 2400))  # type: ignore[attr-defined]
    try:
        driver.save_screenshot(str(path))  # type: ignore[attr-defined]
    finally:
        driver.set_window_size(size["width"], size["height"])  # type: ignore[attr-defined]
    assert path.stat().st_size > 1000
    if os.environ.get("HAMLET_UPDATE_SCREENSHOTS") and name in DOC_SHOTS:
        docs = ROOT / "docs" / "screenshots"
        docs.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, docs / name)


def _all_pages(hamlet: Hamlet) -> list[str]:
    pages = ["/", "/tournaments", "/bots", "/bots/random", "/login"]
    for game in GAMES:
        tid = hamlet.tournaments[game]
        matches = hamlet.stub.ListMatches(arena_pb2.TournamentRef(tournament_id=tid), timeout=10)
        mid = matches.matches[0].match_id
        pages += [
            f"/leaderboards/{game}", f"/tournaments/{tid}", f"/matches/{mid}",
            f"/matches/{mid}/replay", f"/bots/first?game={game}", f"/games/{game}/rules",
        ]  # fmt: skip
    return pages


def test_every_page_loads_with_a_title_and_no_console_error(driver: object, hamlet: Hamlet) -> None:
    console_errors(driver)
    for path in _all_pages(hamlet):
        _load(driver, hamlet.url(path))
        assert driver.title.endswith("· Hamlet"), path  # type: ignore[attr-defined]
        assert console_errors(driver) == [], path
    _load(driver, hamlet.url("/leaderboards/village"))
    _shot(driver, hamlet, "leaderboard-village.png")


def test_replays_step_to_the_end_and_show_the_match_scores(driver: object, hamlet: Hamlet) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    for game in GAMES:
        tid = hamlet.tournaments[game]
        m = hamlet.stub.ListMatches(arena_pb2.TournamentRef(tournament_id=tid), timeout=10).matches[
            0
        ]
        _load(driver, hamlet.url(f"/matches/{m.match_id}/replay"))
        body = driver.find_element(By.TAG_NAME, "body")  # type: ignore[attr-defined]
        body.send_keys(Keys.ARROW_RIGHT)
        WebDriverWait(driver, 10).until(lambda d: "d=1" in d.current_url)
        driver.find_element(By.ID, "forward").click()  # type: ignore[attr-defined]
        WebDriverWait(driver, 10).until(lambda d: "d=2" in d.current_url)
        body.send_keys(Keys.END)
        cells = WebDriverWait(driver, 10).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, "[data-final-score]")
        )
        shown = {int(c.get_attribute("data-final-score")): int(c.text) for c in cells}
        assert shown == {s.seat: s.score for s in m.seats}, game
        assert f"d={m.decision_count}" in driver.current_url  # type: ignore[attr-defined]
        # A linked position opens where it was linked, and the screenshot is of that step.
        _load(driver, hamlet.url(f"/matches/{m.match_id}/replay?d={m.decision_count // 2}"))
        position = driver.find_element(By.CSS_SELECTOR, "[data-test=d]").text  # type: ignore[attr-defined]
        assert position == str(m.decision_count // 2)
        _shot(driver, hamlet, f"replay-{game}.png")
        assert console_errors(driver) == [], game


def test_a_running_tournament_updates_without_reloading(driver: object, hamlet: Hamlet) -> None:
    from selenium.webdriver.common.by import By

    tid = hamlet.tournament("village", ["random", "first", "greedy"], 2)
    _load(driver, hamlet.url(f"/tournaments/{tid}"))
    live = driver.find_element(By.ID, "live")  # type: ignore[attr-defined]
    if live.get_attribute("data-live-url") is None:
        pytest.skip("the tournament finished before its page loaded")
    driver.execute_script("window.__sameDocument = true;")  # type: ignore[attr-defined]

    def finished() -> int:
        # Read in the page's own script: the live updates replace these elements, and a
        # reference found a moment before a replacement would be stale.
        text = driver.execute_script(  # type: ignore[attr-defined]
            "return document.querySelector('[data-test=finished]').textContent;"
        )
        return int(str(text).strip())

    start = finished()
    wait_until(lambda: finished() > start, 120, "a live update", 0.2)
    _shot(driver, hamlet, "tournament-live.png")
    wait_until(lambda: hamlet.over(tid), 180, "the tournament", 0.3)
    done = hamlet.stub.GetTournament(arena_pb2.TournamentRef(tournament_id=tid))

    def all_rows() -> bool:
        rows = driver.execute_script(  # type: ignore[attr-defined]
            "return document.querySelectorAll('#matches tbody tr').length;"
        )
        return int(rows) == done.matches_total and finished() == done.matches_finished

    wait_until(all_rows, 20, "every finished match on the page", 0.2)
    assert driver.execute_script("return window.__sameDocument === true;")  # type: ignore[attr-defined]
    assert console_errors(driver) == []
    _load(driver, hamlet.url("/leaderboards/village"))  # now with three bots
    _shot(driver, hamlet, "leaderboard-village.png")


def test_pages_fit_a_phone_width(hamlet: Hamlet) -> None:
    phone = new_driver(390, 844)
    try:
        tid = hamlet.tournaments["farmaria"]
        mid = (
            hamlet.stub.ListMatches(arena_pb2.TournamentRef(tournament_id=tid)).matches[0].match_id
        )
        for path in ("/", "/leaderboards/farmaria", f"/matches/{mid}", f"/matches/{mid}/replay"):
            _load(phone, hamlet.url(path))
            width = phone.execute_script(  # type: ignore[attr-defined]
                "return [document.documentElement.scrollWidth, window.innerWidth];"
            )
            assert width[0] <= width[1] + 1, (path, width)
        _shot(phone, hamlet, "replay-farmaria-phone.png")
    finally:
        phone.quit()  # type: ignore[attr-defined]
    time.sleep(0)
