"""Which way imports point, read from the source with ``ast`` (docs/architecture.md).

Every import of every module of our packages counts: at the top of a module, inside a
function, under ``TYPE_CHECKING``. Each package may import the packages its row of
:data:`ALLOWED` names, plus the single modules :data:`EXCEPTIONS` lists (each with why);
nothing imports ``cli``, and no package has an import cycle among its own modules.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "hamlet", "bots", "workers", "server", "web", "cli")

#: package -> the packages of ours it may import (besides itself).
ALLOWED: dict[str, frozenset[str]] = {
    "games": frozenset(),  # pure rules engines: nothing of ours
    "hamlet": frozenset({"games"}),  # the wire package: the codec converts engine values
    "bots": frozenset({"games", "hamlet"}),  # the SDK speaks the wire format to the sandbox
    "workers": frozenset({"games", "bots", "hamlet"}),
    "server": frozenset({"games", "hamlet"}),  # workers only by Celery task *names*
    "web": frozenset({"hamlet"}),  # a client of the gRPC API, like any other
    "cli": frozenset({"games", "bots", "hamlet", "web"}),  # plus EXCEPTIONS below
}

#: (importing module or package, imported module) -> why this one crossing is allowed.
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("server", "bots.archive"): "the bot archive format: the server checks and stores archives",
    ("cli.commands_play", "workers.localplay"): "`hamlet bot play`: the workers' local play",
    ("cli.commands_play", "workers.model"): "its InfrastructureError, raised by local play",
    ("cli.console_play", "workers.localsummary"): "the summary local play returns, rendered",
    ("cli.commands_local", "server.app"): "`hamlet server` runs the service in this process",
    ("cli.commands_local", "server.config"): "`hamlet server`, `rebuild-ratings`: its settings",
    ("cli.commands_local", "server.logs"): "`hamlet server` configures the service's logs",
    ("cli.commands_local", "server.leader"): "`hamlet server` names the database's holder",
    ("cli.commands_local", "server.storage"): "`hamlet rebuild-ratings` works on the database",
    ("cli.commands_local", "server.servicers.convert"): "... and renders the lines it rebuilt",
    ("cli.embedded", "server.app"): "`hamlet up` runs the service in this process",
    ("cli.embedded", "server.config"): "... with the service's settings",
    ("cli.embedded", "server.logs"): "... and its logs",
    ("cli.commands_db", "server.config"): "`hamlet db`: the server's database settings",
    ("cli.commands_db", "server.leader"): "... refuses to migrate or restore beside a server",
    ("cli.commands_db", "server.storage"): "... and migrates with the server's migrations",
    ("cli.commands_user", "server.config"): "`hamlet user disable`: on the server's database",
    ("cli.commands_user", "server.storage"): "... which it changes directly",
    ("cli.commands_ranked", "server.services.commitments"): "`match verify` recomputes the "
    "published seed commitment with the one formula",
    # The boards draw printed components the public state names only by id (a customer
    # tile's demand, a card's banner, a track's length): each game's data module, pure data.
    ("web.render", "games.village.data"): "the Village board's printed tiles and tracks",
    ("web.render", "games.my_village.data"): "the My Village board's printed cards and banners",
    ("web.render", "games.farmaria.data"): "the Farmaria table's printed cards and goods",
}


def _modules(package: str) -> Iterator[tuple[str, Path]]:
    for path in sorted((ROOT / package).rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        if rel.parts[:2] == ("hamlet", "v1"):  # generated code
            continue
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        yield ".".join(parts), path


@cache
def _is_module(dotted: str) -> bool:
    base = ROOT.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imports(module: str, path: Path) -> Iterator[tuple[str, int]]:
    """(imported module, line) for every import in ``path``; ``from X import name`` names
    ``X.name`` when that is a module of ours."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield (sub if _is_module(sub) else base), node.lineno


def _allowed(importer: str, target: str) -> bool:
    package, top = importer.split(".")[0], target.split(".")[0]
    if top == package or top not in PACKAGES or top in ALLOWED[package]:
        return True
    return any(
        (importer == who or importer.startswith(who + "."))
        and (target == what or target.startswith(what + "."))
        for who, what in EXCEPTIONS
    )


def test_imports_point_the_way_the_design_says() -> None:
    wrong = [
        f"{path.relative_to(ROOT)}:{line}: {module} imports {target}"
        for package in PACKAGES
        for module, path in _modules(package)
        for target, line in imports(module, path)
        if not _allowed(module, target)
    ]
    assert not wrong, "imports against the layering:\n" + "\n".join(wrong)


def test_every_exception_is_still_used() -> None:
    """An exception nothing needs any more is removed, so the table stays the truth."""
    used = {
        (who, what)
        for package in PACKAGES
        for module, path in _modules(package)
        for target, _ in imports(module, path)
        for who, what in EXCEPTIONS
        if (module == who or module.startswith(who + "."))
        and (target == what or target.startswith(what + "."))
    }
    assert set(EXCEPTIONS) - used == set()


#: Import cycles that were there before this test, each a set of modules importing each other;
#: the test fails on any other (and on these growing), and an entry goes when its cycle does.
KNOWN_CYCLES: dict[str, list[frozenset[str]]] = {
    # Each engine's state and its rule modules call each other (imports inside functions or
    # at the end of a module).
    "games": [
        frozenset(f"games.{game}.{m}" for m in names.split())
        for game, names in (
            ("farmaria", "accounting auction cards demolition determinize farm flow investing "
             "market observe options rules state"),
            ("my_village", "black dice observe rounds scoring state turn white"),
            ("village", "council flow market mass observe options state turn works"),
        )
    ],
    # Registries: the Celery app imports its tasks to register them, the tasks read its config.
    "workers": [frozenset({"workers.celery_app", "workers.tasks"})],
    # The board renderers register themselves with the viewer that imports them.
    "web": [
        frozenset({"web.render", "web.render.farmaria", "web.render.my_village",
                   "web.render.village"})
    ],
}  # fmt: skip


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of ``graph`` with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found, key=sorted)


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle_within_a_package(package: str) -> None:
    """Between a package's modules: no two import each other, directly or around a circle
    (a submodule importing its top-level package's ``__init__`` does not count)."""
    modules = dict(_modules(package))
    graph = {
        module: {
            target
            for target, _ in imports(module, path)
            if target in modules and target not in (module, package)
        }
        for module, path in modules.items()
    }
    assert cycles(graph) == sorted(KNOWN_CYCLES.get(package, []), key=sorted)


def test_the_cycle_finder_finds_cycles() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]
    assert cycles({"a": {"b"}, "b": set(), "c": {"a"}}) == []


def test_the_server_imports_nothing_of_the_workers_nor_the_cli() -> None:
    """The issue's acceptance, in so many words."""
    found = [
        f"{module} imports {target}"
        for module, path in _modules("server")
        for target, _ in imports(module, path)
        if target.split(".")[0] in ("workers", "cli", "web")
    ]
    assert found == []
