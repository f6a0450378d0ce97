"""The CLI's hints name a command that works as printed (cli/invocation.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.invocation import cli_name, fix_hints


def _script(tmp: Path) -> Path:
    bin_dir = tmp / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    script = bin_dir / "hamlet"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    return script


def test_off_the_path_the_hint_is_the_scripts_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = _script(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert cli_name(str(script), path="/usr/bin:/bin") == ".venv/bin/hamlet"
    assert fix_hints("log in with `hamlet login`", ".venv/bin/hamlet") == (
        "log in with `.venv/bin/hamlet login`"
    )


def test_on_the_path_the_hint_is_hamlet(tmp_path: Path) -> None:
    script = _script(tmp_path)
    assert cli_name(str(script), path=str(script.parent)) == "hamlet"
    assert fix_hints("`hamlet login`", "hamlet") == "`hamlet login`"
