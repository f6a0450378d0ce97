"""The replay viewer in a browser: when the scrubber moves in place (slider, keys, buttons),
everything that names the position follows it: the heading, the tab's title, the position
line, the slider's spoken value, the chart's cursor, and the seat form's position and its
link back to the public view."""

from __future__ import annotations

from typing import Any

import pytest

from hamlet.v1 import arena_pb2
from tests.integration.stack import scaled
from tests.web.browser import console_errors, missing_reason, new_driver
from tests.web.populated import Populated, populated
from web.app import WebSettings
from web.serve import BackgroundWeb

__all__ = ["populated"]  # the fixture, used by name

pytestmark = [
    pytest.mark.integration,
    pytest.mark.timeout(180),
    pytest.mark.skipif(missing_reason() is not None, reason=str(missing_reason())),
]


def test_the_heading_and_every_counter_follow_the_slider(populated: Populated) -> None:
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    tid = populated.tournaments[0]
    m = populated.arena.ListMatches(arena_pb2.TournamentRef(tournament_id=tid)).matches[0]
    last = m.decision_count
    assert last > 4
    web = BackgroundWeb(WebSettings(server=populated.addr))
    driver: Any = new_driver()
    try:
        root = web.url.rstrip("/")
        driver.get(f"{root}/login")  # logged in: the seat form is shown too
        driver.find_element(By.NAME, "token").send_keys(populated.admin_token)
        driver.find_element(By.CSS_SELECTOR, "form.login button[type=submit]").click()
        WebDriverWait(driver, 20).until(lambda d: "Log out" in d.page_source)
        driver.get(f"{root}/matches/{m.match_id}/replay?d=0&seat=0")
        WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.ID, "seat-hide"))
        assert driver.find_element(By.CSS_SELECTOR, "main h1").text.endswith("decision 0")
        cursor_before = driver.find_element(By.ID, "chart-cursor").get_attribute("x1")

        def seen(d: Any) -> dict[str, object]:
            slider = d.find_element(By.ID, "slider")
            return {
                "step": d.find_element(By.CSS_SELECTOR, "[data-test=d]").text,
                "heading": d.find_element(By.CSS_SELECTOR, "main h1").text.rsplit(" ", 1)[-1],
                "title": "decision " + d.title.split("decision ", 1)[-1].split(" ", 1)[0],
                "url": d.current_url.split("d=", 1)[-1].split("&", 1)[0],
                "slider": slider.get_attribute("value"),
                "spoken": slider.get_attribute("aria-valuetext"),
                "hidden": d.find_element(
                    By.CSS_SELECTOR, "form input[type=hidden][name=d]"
                ).get_attribute("value"),
                "back": d.find_element(By.ID, "seat-hide").get_attribute("href").rsplit("=", 1)[-1],
            }

        def at(n: int) -> None:
            # The frame is replaced in place as the slider moves: wait until every counter
            # shows n (an element caught mid-replacement is stale: look again).
            want = {
                "step": str(n), "heading": str(n), "title": f"decision {n}", "url": str(n),
                "slider": str(n), "spoken": f"decision {n} of {last}", "hidden": str(n),
                "back": str(n),
            }  # fmt: skip
            last_seen: list[dict[str, object]] = [{}]

            def done(d: Any) -> bool:
                last_seen[0] = seen(d)
                return last_seen[0] == want

            try:
                WebDriverWait(
                    driver, scaled(20), ignored_exceptions=(StaleElementReferenceException,)
                ).until(done)
            except TimeoutException:
                raise AssertionError(f"at decision {n}: {last_seen[0]}") from None

        target = last // 2
        driver.execute_script(
            "var s = document.getElementById('slider'); s.value = arguments[0];"
            "s.dispatchEvent(new Event('input'));",
            target,
        )
        at(target)
        assert driver.find_element(By.ID, "chart-cursor").get_attribute("x1") != cursor_before
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
        at(target + 1)
        driver.find_element(By.ID, "first").click()
        at(0)
        driver.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
        at(last)
        assert console_errors(driver) == []
    finally:
        driver.quit()
        web.stop()
