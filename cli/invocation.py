"""How to call this CLI again, as the user can type it: the hints the CLI prints (`hamlet
login`, `hamlet up`) must work as printed, and after `make up` the console script is
``.venv/bin/hamlet``, not on the PATH unless the virtual environment is activated."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def cli_name(argv0: str | None = None, path: str | None = None) -> str:
    """``hamlet`` when that name on the PATH is this script, else this script's path
    (relative to the current directory when below it)."""
    script = Path(argv0 if argv0 is not None else sys.argv[0])
    if script.name != "hamlet":  # python -m cli, a test: the installed script's name
        script = Path(sys.executable).parent / "hamlet"
    found = shutil.which("hamlet", path=path if path is not None else os.environ.get("PATH"))
    try:
        if found is not None and Path(found).resolve() == script.resolve():
            return "hamlet"
        return str(script.resolve().relative_to(Path.cwd()))
    except (OSError, ValueError):
        return str(script)


def fix_hints(text: str, name: str | None = None) -> str:
    """``text`` with each quoted `` `hamlet ...` `` command spelled the way it runs here."""
    name = name or cli_name()
    return text if name == "hamlet" else text.replace("`hamlet ", f"`{name} ")
