"""Screenshots of the Farmaria board (docs/screenshots/board-farmaria-{desktop,phone}.png).

Not a test: run it by hand after changing the board, then look at the pictures::

    .venv/bin/python -m tests.web.shots_farmaria [--state states/farmaria-2p:middle] [--out DIR]

It renders a recorded public state (by default tests/web/golden/farmaria-rich-state.json,
a mid-game state whose farms have stables, animals and a full field) with the site's own
frame template and stylesheet into a standalone page, as the replay page shows it, and
screenshots that page with headless Chromium at 1280 and 390 pixels wide (the whole page).
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from tests.web.browser import ROOT, missing_reason, new_driver
from web import render

HERE = ROOT / "tests" / "web"
WIDTHS = {"desktop": 1280, "phone": 390}


def page(state: dict[str, object], title: str, css_path: Path) -> str:
    """A standalone replay-like page of one state, with the site's stylesheet inlined."""
    env = Environment(
        loader=FileSystemLoader(ROOT / "web" / "templates"), autoescape=select_autoescape()
    )
    frame = env.get_template("_frame.html").module.frame  # type: ignore[attr-defined]
    rendered = render.render("farmaria", state)
    css = css_path.read_text()
    # The frame's decision counter and last step belong to a replay, not to one state.
    body = re.sub(
        r'<p class="position".*?</p>|<div class="step".*?</div>',
        "",
        str(frame(0, 0, rendered, None, None)),
        flags=re.DOTALL,
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{title}</title><style>{css}</style></head><body><main id="main">'
        f"<h1>{title}</h1>{body}</main></body></html>"
    )


def shoot(html: str, out: Path) -> list[Path]:
    """Screenshots of ``html`` at each width, the window as tall as the page."""
    saved = []
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "board.html"
        path.write_text(html)
        for name, width in WIDTHS.items():
            driver = new_driver(width, 900)
            try:
                driver.get(path.as_uri())  # type: ignore[attr-defined]
                height = driver.execute_script(  # type: ignore[attr-defined]
                    "return document.documentElement.scrollHeight"
                )
                # A window cannot outgrow the screen: size the page by the device metrics.
                driver.execute_cdp_cmd(  # type: ignore[attr-defined]
                    "Emulation.setDeviceMetricsOverride",
                    {
                        "width": width,
                        "height": int(height),
                        "deviceScaleFactor": 1,
                        "mobile": name == "phone",
                    },
                )
                target = out / f"board-farmaria-{name}.png"
                driver.save_screenshot(str(target))  # type: ignore[attr-defined]
                saved.append(target)
            finally:
                driver.quit()  # type: ignore[attr-defined]
    return saved


def main() -> None:
    """Parse the arguments, render the state, save the screenshots."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--state",
        default="golden/farmaria-rich-state:rich",
        help="file (under tests/web/, no .json):when",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--css", type=Path, default=ROOT / "web" / "static" / "style.css")
    args = parser.parse_args()
    reason = missing_reason()
    if reason:
        raise SystemExit(reason)
    stem, when = args.state.split(":")
    doc = json.loads((HERE / f"{stem}.json").read_text())
    state = doc["states"][when]
    title = f"Farmaria, {doc['players']} players, year {state['year']} (recorded {when} state)"
    for target in shoot(page(state, title, args.css), args.out):
        print(target)


if __name__ == "__main__":
    main()
