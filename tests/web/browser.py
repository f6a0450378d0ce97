"""Headless Chromium for the browser tests: Debian's ``chromium`` and ``chromedriver``,
driven by Selenium with the system driver (nothing is downloaded). Tests skip, with the
reason, where they are missing (``.ci/run`` installs them when it can)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = ("chromium", "chromium-browser")
DRIVER = "chromedriver"
ROOT = Path(__file__).parents[2]


def missing_reason() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "the selenium package is not installed (pip install -e '.[dev]')"
    if not any(shutil.which(c) for c in CHROMIUM):
        return "no chromium on PATH (apt-get install chromium chromium-driver; .ci/run does)"
    if not shutil.which(DRIVER):
        return "no chromedriver on PATH (apt-get install chromium-driver; .ci/run does)"
    return None


def artifacts_dir() -> Path:
    """Where screenshots go: ``$HAMLET_ARTIFACTS`` or tests/artifacts/ (git-ignored)."""
    path = Path(os.environ.get("HAMLET_ARTIFACTS") or ROOT / "tests" / "artifacts")
    path.mkdir(parents=True, exist_ok=True)
    return path


def new_driver(width: int = 1280, height: int = 900) -> object:
    """A headless Chromium that keeps the console log (read with ``get_log("browser")``)."""
    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    binary = next(shutil.which(c) for c in CHROMIUM if shutil.which(c))
    options.binary_location = str(binary)
    for arg in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-extensions",
        "--hide-scrollbars",
        f"--window-size={width},{height}",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=str(shutil.which(DRIVER)))
    return webdriver.Chrome(options=options, service=service)


def console_errors(driver: object) -> list[str]:
    """The SEVERE console entries since the last call (CSP violations and script errors)."""
    entries = driver.get_log("browser")  # type: ignore[attr-defined]
    return [e["message"] for e in entries if e.get("level") == "SEVERE"]
