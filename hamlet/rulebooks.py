"""The rulebooks for bot authors (``docs/rules/<doc>.md``) and their generated tables.

A rulebook is prose written by hand with tables spliced in from the game's data: each block
sits between two marker lines,

    <!-- table: NAME (generated from games/<pkg>/data.py; do not edit) -->
    ...
    <!-- /table -->

and :func:`regenerate` replaces what lies between them by ``tables()[NAME]``, where
``tables`` is the game's ``games/<pkg>/rulebook_tables.tables``. So the data and the
rulebook cannot drift: ``python -m hamlet.rulebooks`` rewrites every rulebook,
``python -m hamlet.rulebooks --check`` exits 1 naming those that are out of date.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

Tables = Callable[[], dict[str, str]]

#: The checkout the rulebooks live in.
ROOT = Path(__file__).resolve().parents[1]
#: Where an installed copy keeps them (pyproject.toml's data-files: the image has no checkout).
INSTALLED = Path(sys.prefix) / "share" / "hamlet" / "rules"

#: The opening marker (spaces and the parenthesised note are read leniently).
OPEN = re.compile(r"^<!--\s*table:\s*(?P<name>[\w-]+)(?:\s*\([^)]*\))?\s*-->\s*$")
CLOSE = "<!-- /table -->"


class RulebookError(ValueError):
    """A rulebook whose table blocks do not match its game's tables."""


def _lazy(module: str) -> Tables:
    """``module.tables``, imported when first called (a game's tables import its data)."""

    def tables() -> dict[str, str]:
        found: Tables = importlib.import_module(module).tables
        return found()

    tables.__qualname__ = f"{module}.tables"
    return tables


#: Registry game name -> (rulebook path relative to :data:`ROOT`, the game's tables).
GAMES: dict[str, tuple[str, Tables]] = {
    "village": ("docs/rules/village.md", _lazy("games.village.rulebook_tables")),
    "my_village": ("docs/rules/my-village.md", _lazy("games.my_village.rulebook_tables")),
    "farmaria": ("docs/rules/farmaria.md", _lazy("games.farmaria.rulebook_tables")),
}


def doc_path(game: str) -> Path:
    """Where ``game``'s rulebook is: in the checkout, else where an installed copy keeps it
    (KeyError for a game without one)."""
    checkout = ROOT / GAMES[game][0]
    if checkout.exists():
        return checkout
    return INSTALLED / Path(GAMES[game][0]).name


def block_names(doc_text: str) -> list[str]:
    """The names of the table blocks in ``doc_text``, in order (repeats kept)."""
    return [m["name"] for line in doc_text.splitlines() if (m := OPEN.match(line))]


def regenerate(doc_text: str, tables: dict[str, str]) -> str:
    """``doc_text`` with every table block's body replaced by ``tables[name]``.

    Raises :class:`RulebookError` for an unclosed or unknown block, a block that appears
    twice, or a table of ``tables`` that has no block.
    """
    out: list[str] = []
    lines = doc_text.splitlines(keepends=True)
    seen: set[str] = set()
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        m = OPEN.match(line.rstrip("\r\n"))
        if not m:
            continue
        name = m["name"]
        if name not in tables:
            raise RulebookError(f"table block {name!r} is not one of {sorted(tables)}")
        if name in seen:
            raise RulebookError(f"table block {name!r} appears twice")
        seen.add(name)
        while i < len(lines) and lines[i].rstrip("\r\n") != CLOSE:
            if OPEN.match(lines[i].rstrip("\r\n")):
                raise RulebookError(f"table block {name!r} is not closed before the next one")
            i += 1
        if i == len(lines):
            raise RulebookError(f"table block {name!r} has no closing {CLOSE!r} line")
        out.append(tables[name].rstrip("\n") + "\n")
        out.append(lines[i])
        i += 1
    missing = sorted(set(tables) - seen)
    if missing:
        raise RulebookError(f"tables without a block in the rulebook: {missing}")
    return "".join(out)


def check(game: str) -> str | None:
    """Why ``game``'s rulebook differs from its regeneration, or None if it does not."""
    try:
        text = doc_path(game).read_text(encoding="utf-8")
        fresh = regenerate(text, GAMES[game][1]())
    except (OSError, ImportError, RulebookError) as exc:
        return f"{GAMES[game][0]}: {exc}"
    return None if fresh == text else f"{GAMES[game][0]}: tables out of date"


def rewrite(game: str) -> bool:
    """Splice fresh tables into ``game``'s rulebook; True if that changed the file."""
    path = doc_path(game)
    text = path.read_text(encoding="utf-8")
    fresh = regenerate(text, GAMES[game][1]())
    if fresh != text:
        path.write_text(fresh, encoding="utf-8")
    return fresh != text


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite every rulebook's tables (or, with ``--check``, report the stale ones)."""
    parser = argparse.ArgumentParser(
        prog="python -m hamlet.rulebooks", description=(__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    parser.add_argument("games", nargs="*", default=sorted(GAMES), help="default: every game")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.games) - set(GAMES))
    if unknown:
        print(f"unknown games {unknown}; known: {', '.join(sorted(GAMES))}", file=sys.stderr)
        return 2
    status = 0
    for game in args.games:
        rel = GAMES[game][0]
        if args.check:
            problem = check(game)
        else:
            try:
                problem = f"{rel}: rewritten" if rewrite(game) else None
            except (OSError, ImportError, RulebookError) as exc:
                problem = f"{rel}: {exc}"
                status = 1
        print(problem or f"{rel}: up to date")
        status = 1 if (problem and args.check) else status
    return status


if __name__ == "__main__":
    raise SystemExit(main())
