"""docs/operating.md stays true: it lists every metric the code defines and every panel of
the dashboard, and every `hamlet` command it shows is one the CLI accepts as written."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from cli.main import _parser
from tests.deploy.test_dashboards import exported_names

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "operating.md").read_text(encoding="utf-8")
DASHBOARD = ROOT / "deploy" / "grafana" / "dashboards" / "hamlet-overview.json"


def test_every_metric_is_listed() -> None:
    bases = {
        re.sub(r"_(bucket|sum|count|created)$", "", n)
        for n in exported_names()
        if not n.endswith("_created")
    }
    listed = set(re.findall(r"`(hamlet_[a-z_]+)`", DOC))
    missing = {n for n in bases if n not in listed and f"{n}_total" not in listed}
    assert not missing, f"docs/operating.md does not list {sorted(missing)}"


def test_every_panel_is_listed() -> None:
    titles = [p["title"] for p in json.loads(DASHBOARD.read_text(encoding="utf-8"))["panels"]]
    assert titles
    for title in titles:
        assert f"| {title} |" in DOC, title


def _commands() -> list[str]:
    found = []
    for line in DOC.splitlines():
        text = line.strip().removeprefix("$ ")
        # Lines such as "hamlet db backup: ..." are what a command prints, not commands.
        if text.startswith("hamlet ") and not re.match(r"hamlet( [a-z-]+)*:", text):
            found.append(text.split("#")[0].strip())
    return found


@pytest.mark.parametrize("command", _commands())
def test_every_command_shown_is_accepted(command: str) -> None:
    argv = shlex.split(command)[1:]
    if argv[0] == "worker":
        return  # everything after `worker` is Celery's
    _parser().parse_args(argv)
