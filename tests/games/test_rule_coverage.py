"""Every rule ID of every registered game's spec has a row in its coverage page
``docs/rules/<doc>-coverage.md`` naming a test, and that test exists, names the ID and
asserts something. (The rulebooks beside them, ``docs/rules/<doc>.md``, are checked by
``tests/docs/test_rulebooks.py``.)

The spec lives in ``../shared/rules/`` (beside the repository); when it is absent the
check of "every spec ID has a row" is skipped with the reason, the rest still runs.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

import games

ROOT = Path(__file__).resolve().parents[2]
SHARED_RULES = ROOT.parent / "shared" / "rules"


@dataclass(frozen=True)
class RuleSource:
    """Where a game's rule IDs come from, and which of them need a test."""

    spec_file: str
    doc_file: str
    patterns: tuple[str, ...]
    exclude: str | None = None


SOURCES: dict[str, RuleSource] = {
    "village": RuleSource("village.md", "village-coverage.md", (r"\bV-[A-Z]+-\d+\b", r"\bT-\d+\b")),
    "my_village": RuleSource(
        "my-village.md", "my-village-coverage.md", (r"\bMV-[A-Z]+-\d+\b", r"\bEX-\d+\b")
    ),
    "farmaria": RuleSource(
        "farmaria.md",
        "farmaria-coverage.md",
        (r"\bFM-[A-Z0-9]+-[A-Z]?\d+\b", r"\bT-\d+\b"),
        exclude=r"^FM-AMB-",
    ),
}

ROW = re.compile(r"^\|\s*`?(?P<id>[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)`?\s*\|(?P<rest>.*)\|\s*$")
TEST_REF = re.compile(r"(tests/[\w/]+\.py)::(\w+)")


def spec_ids(source: RuleSource) -> set[str]:
    """Every rule ID the spec defines or cites."""
    text = (SHARED_RULES / source.spec_file).read_text(encoding="utf-8")
    ids = {m for pattern in source.patterns for m in re.findall(pattern, text)}
    if source.exclude:
        ids = {i for i in ids if not re.match(source.exclude, i)}
    return ids


def doc_rows(game: str) -> dict[str, list[tuple[str, str]]]:
    """Rule ID -> [(test file, test function)] from the coverage table."""
    doc = ROOT / "docs" / "rules" / SOURCES[game].doc_file
    rows: dict[str, list[tuple[str, str]]] = {}
    for line in doc.read_text(encoding="utf-8").splitlines():
        m = ROW.match(line.strip())
        if m:
            rows.setdefault(m["id"], []).extend(TEST_REF.findall(m["rest"]))
    return rows


def _functions(path: Path) -> dict[str, ast.FunctionDef]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


def _asserts_something(fn: ast.FunctionDef) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call):
            name = ast.unparse(node.func)
            if name.endswith(("raises", "assert_", "check")) or ".assert" in name:
                return True
    return False


REGISTERED = [g for g in games.names() if g in SOURCES]


@pytest.mark.parametrize("game", REGISTERED)
def test_every_spec_rule_id_has_a_row(game: str) -> None:
    source = SOURCES[game]
    if not (SHARED_RULES / source.spec_file).exists():
        pytest.skip(f"spec {SHARED_RULES / source.spec_file} not found beside the repository")
    missing = sorted(spec_ids(source) - set(doc_rows(game)))
    assert not missing, f"rule IDs without a row in docs/rules/{source.doc_file}: {missing}"


@pytest.mark.parametrize("game", REGISTERED)
def test_every_row_names_a_real_test_that_exercises_the_id(game: str) -> None:
    rows = doc_rows(game)
    assert rows, f"docs/rules/{SOURCES[game].doc_file} has no coverage table"
    cache: dict[str, dict[str, ast.FunctionDef]] = {}
    problems: list[str] = []
    for rule_id, refs in sorted(rows.items()):
        if not refs:
            problems.append(f"{rule_id}: no test named")
        for file, name in refs:
            path = ROOT / file
            if not path.exists():
                problems.append(f"{rule_id}: {file} does not exist")
                continue
            fns = cache.setdefault(file, _functions(path))
            fn = fns.get(name)
            if fn is None:
                problems.append(f"{rule_id}: {file}::{name} does not exist")
                continue
            doc = ast.get_docstring(fn) or ""
            if rule_id.replace("-", "_") not in name and rule_id not in doc:
                problems.append(f"{rule_id}: {name} names it neither in its name nor docstring")
            if not _asserts_something(fn):
                problems.append(f"{rule_id}: {name} asserts nothing")
    assert not problems, "\n".join(problems)
