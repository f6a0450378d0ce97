"""The board in a real browser at phone and desktop widths (headless Chromium, the site's
stylesheet, a recorded Village state): the page never scrolls sideways, the board keeps its
12 px text by scrolling inside its own frame, and "Fit the board to the screen" shrinks it to
the width. Skips where Chromium is missing (tests/web/browser.py says why)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.browser import missing_reason, new_driver
from tests.web.shots_village import page

pytestmark = pytest.mark.skipif(missing_reason() is not None, reason=str(missing_reason()))

MEASURE = """
const svg = document.querySelector('svg.board');
const wrap = document.querySelector('.board-wrap');
const text = [...svg.querySelectorAll('text')];
const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
return {
  page: [document.documentElement.scrollWidth, window.innerWidth],
  wrap: [wrap.scrollWidth, wrap.clientWidth],
  board: svg.clientWidth,
  smallest: Math.min(...text.map(t => parseFloat(t.getAttribute('font-size')))) * scale,
};
"""


@pytest.fixture(scope="module")
def board_page() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "board.html"
        html.write_text(page())
        yield html.as_uri()


def _measure(width: int, url: str, fit: bool = False) -> dict[str, object]:
    driver = new_driver(width, 844)
    try:
        # Chromium may open wider than asked; the size set afterwards is the one used.
        driver.set_window_size(width, 844)  # type: ignore[attr-defined]
        driver.get(url)  # type: ignore[attr-defined]
        if fit:
            driver.find_element("css selector", "label.board-fit").click()  # type: ignore[attr-defined]
        out: dict[str, object] = driver.execute_script(MEASURE)  # type: ignore[attr-defined]
        return out
    finally:
        driver.quit()  # type: ignore[attr-defined]


def test_on_a_phone_the_board_scrolls_in_its_frame_at_full_size(board_page: str) -> None:
    got = _measure(390, board_page)
    page_width, inner = got["page"]  # type: ignore[misc]
    assert page_width <= inner + 1, got  # the page itself does not scroll sideways
    scroll, client = got["wrap"]  # type: ignore[misc]
    assert scroll > client, got  # the board does, inside its frame
    assert got["smallest"] >= 12 - 0.01, got  # type: ignore[operator]


def test_on_a_phone_the_fit_toggle_shrinks_the_board_to_the_width(board_page: str) -> None:
    got = _measure(390, board_page, fit=True)
    scroll, client = got["wrap"]  # type: ignore[misc]
    assert scroll <= client + 1 and got["board"] < 390, got  # type: ignore[operator]


def test_on_a_desktop_the_board_is_drawn_one_to_one(board_page: str) -> None:
    got = _measure(1280, board_page)
    assert got["smallest"] >= 12 - 0.01 and got["board"] == 960, got  # type: ignore[operator]
