"""Screenshots of the Village board for the README: the replay frame of a recorded mid-game
state, in a standalone page with the site's stylesheet, at desktop (1280) and phone (390)
widths, taken with headless Chromium.

Run: ``.venv/bin/python -m tests.web.shots_village`` (writes docs/screenshots/board-village-
desktop.png and board-village-phone.png; ``--out DIR`` writes them elsewhere). A script, not
a test: pytest does not collect it.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from markupsafe import Markup

from tests.web.browser import ROOT, new_driver
from web import render
from web.templating import ENV

STATE = ROOT / "tests" / "web" / "states" / "village-3p.json"
WHEN = "middle"
SIZES = {"desktop": (1280, 900), "phone": (390, 844)}


def page(state_file: Path = STATE, when: str = WHEN) -> str:
    """The replay page's frame of one recorded state, as the site lays it out."""
    doc = json.loads(state_file.read_text())
    rendered = render.render(doc["game"], doc["states"][when])
    macro = ENV.get_template("_frame.html").module.frame  # type: ignore[attr-defined]
    frame = str(Markup(macro(d=0, last=doc["decisions"], rendered=rendered, step=None, final=None)))
    where = f"A recorded {when} position of a {doc['players']}-player game ({state_file.name})."
    frame = frame.replace("The starting position, before any decision.", where)
    frame = frame.replace('<p class="position" id="position">', '<p class="position" hidden>')
    css = (ROOT / "web" / "static" / "style.css").as_uri()
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Village board · Hamlet</title><link rel="stylesheet" href="{css}"></head>
<body><header class="top"><nav><a class="brand" href="#">Hamlet</a><a href="#">Tournaments</a>
<a href="#">Bots</a></nav></header>
<main id="main"><h1>Replay · Village</h1>
<div id="viewer">
<input type="checkbox" id="board-fit" class="board-fit"><label for="board-fit"
class="board-fit">Fit the board to the screen (otherwise it scrolls sideways)</label>
<div class="frame-and-seat"><div id="frame">{frame}</div></div>
</div></main><footer>Hamlet · read-only; the server is the one authority.</footer>
</body></html>"""


def shoot(out: Path) -> list[Path]:
    """Both screenshots into ``out``; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "board.html"
        html.write_text(page())
        shots = []
        for name, (width, height) in SIZES.items():
            driver = new_driver(width, height)
            try:
                driver.get(html.as_uri())  # type: ignore[attr-defined]
                tall = driver.execute_script(  # type: ignore[attr-defined]
                    "return document.documentElement.scrollHeight;"
                )
                driver.set_window_size(width, min(max(int(tall), height), 2600))  # type: ignore[attr-defined]
                path = out / f"board-village-{name}.png"
                driver.save_screenshot(str(path))  # type: ignore[attr-defined]
                shots.append(path)
            finally:
                driver.quit()  # type: ignore[attr-defined]
    return shots


def main() -> None:
    """Take the screenshots and print where they went."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    for path in shoot(parser.parse_args().out):
        print(path)


if __name__ == "__main__":
    main()
