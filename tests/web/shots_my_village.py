"""Screenshots of the My Village board (a script, not a test): renders a recorded mid-game
state into a standalone replay-like page with the site's CSS and the replay frame template,
and saves it as seen by headless Chromium at desktop (1280) and phone (390) widths.

    .venv/bin/python -m tests.web.shots_my_village [OUT_DIR]

writes ``board-my_village-desktop.png`` and ``board-my_village-phone.png`` into OUT_DIR
(default: docs/screenshots/).
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

from tests.web.browser import ROOT, new_driver
from web import render
from web.templating import ENV

STATE = ROOT / "tests" / "web" / "states" / "my_village-3p.json"
WIDTHS = {"desktop": 1280, "phone": 390}


def page_html(state: dict[str, object], title: str) -> str:
    """The replay frame of ``state`` in a page that links the site's stylesheet."""
    macro = ENV.get_template("_frame.html").module.frame  # type: ignore[attr-defined]
    frame = str(
        macro(d=1, last=1, rendered=render.render("my_village", state), step=None, final=None)
    )
    # A recorded state has no step number or action of its own: those lines go.
    frame = re.sub(
        r'<p class="position".*?</p>\s*<div class="step".*?</div>', "", frame, flags=re.S
    )
    css = (ROOT / "web" / "static" / "style.css").as_uri()
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<link rel="stylesheet" href="{css}"><title>{title}</title></head>'
        f'<body><main id="main"><h1>{title}</h1><p>The recorded public state {STATE.name}, '
        f'middle; the replay page shows the same frame.</p><div id="frame">{frame}</div></main>'
        "</body></html>"
    )


def shoot(out_dir: Path) -> list[Path]:
    """Take both screenshots; returns their paths."""
    doc = json.loads(STATE.read_text())
    html = page_html(doc["states"]["middle"], "My Village, a 3-player game in mid-play")
    saved = []
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "board.html"
        page.write_text(html)
        for name, width in WIDTHS.items():
            driver = new_driver(width, 900)
            try:
                driver.get(page.as_uri())  # type: ignore[attr-defined]
                # The whole page: the window grows by what the content overflows the viewport.
                extra = driver.execute_script(  # type: ignore[attr-defined]
                    "return document.documentElement.scrollHeight - window.innerHeight"
                )
                driver.set_window_size(width, 900 + max(int(extra), 0))  # type: ignore[attr-defined]
                path = out_dir / f"board-my_village-{name}.png"
                driver.save_screenshot(str(path))  # type: ignore[attr-defined]
                saved.append(path)
            finally:
                driver.quit()  # type: ignore[attr-defined]
    return saved


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"
    target.mkdir(parents=True, exist_ok=True)
    for shot in shoot(target):
        print(shot)
