"""games/ is pure: no I/O, no clock, no global random, no logging, no framework.

A static check over every module of the package, so a slip fails the build rather than
waiting for a review to notice it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GAMES = Path(__file__).resolve().parents[2] / "games"
MODULES = sorted(GAMES.rglob("*.py"))

ALLOWED_IMPORTS = {
    "__future__",
    "abc",
    "bisect",
    "collections",
    "dataclasses",
    "enum",
    "functools",
    "hashlib",
    "heapq",
    "importlib",  # the registry's lazy loading of game modules
    "itertools",
    "math",
    "operator",
    "random",  # for random.Random instances only: see test below
    "types",
    "typing",
    "games",
}
FORBIDDEN_CALLS = {"print", "open", "input", "exec", "eval", "breakpoint", "__import__"}


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(GAMES)) for p in MODULES])
def test_module_imports_only_pure_libraries(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        for name in names:
            assert name.split(".")[0] in ALLOWED_IMPORTS, f"{path.name} imports {name}"


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(GAMES)) for p in MODULES])
def test_module_uses_no_global_random_and_no_io(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
        ):
            assert node.attr == "Random", f"{path.name} uses random.{node.attr}"
        if isinstance(node, ast.ImportFrom) and node.module == "random":
            assert all(a.name == "Random" for a in node.names), f"{path.name}: from random"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in FORBIDDEN_CALLS, f"{path.name} calls {node.func.id}()"
