"""``hamlet web``: the command serves the pages of a running server and says where."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import urllib.request

from tests.web.conftest import Site


def test_hamlet_web_serves_the_pages_and_prints_its_address(site: Site) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HAMLET_")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli", "web", "--server", site.addr, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"Hamlet web on (http://127\.0\.0\.1:\d+/) reading from", line)
        assert found, line
        with urllib.request.urlopen(found.group(1) + "leaderboards/village", timeout=20) as r:
            html = r.read().decode()
            assert r.status == 200 and "<title>Leaderboard: village" in html
            assert "uvicorn" not in str(r.headers.get("server", ""))
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(20)
    assert proc.returncode == 130  # the CLI's "interrupted": Ctrl-C is how it stops
