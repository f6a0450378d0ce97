"""The rulebooks for bot authors (``docs/rules/<doc>.md``): their tables are exactly what the
games' data generate (so data and rulebook cannot drift), every table block is there once,
and every rule ID the coverage page lists is named in the rulebook. Also the splicer itself
(``hamlet.rulebooks``): what it replaces, what it refuses, and its ``--check``.

A game whose rulebook or tables module is not in this checkout is skipped with the reason.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from games.village import data as vd
from games.village import rulebook_tables
from hamlet import rulebooks
from hamlet.rulebooks import GAMES, RulebookError, block_names, regenerate
from tests.games.test_rule_coverage import SOURCES, doc_rows

TABLES_MODULE = {
    "village": "games.village.rulebook_tables",
    "my_village": "games.my_village.rulebook_tables",
    "farmaria": "games.farmaria.rulebook_tables",
}


def _rulebook(game: str) -> str:
    path = rulebooks.doc_path(game)
    if not path.exists() or importlib.util.find_spec(TABLES_MODULE[game]) is None:
        pytest.skip(f"{game}: rulebook or {TABLES_MODULE[game]} not in this checkout")
    return path.read_text(encoding="utf-8")


def test_every_game_has_a_rulebook_entry() -> None:
    assert set(GAMES) == set(TABLES_MODULE) == set(SOURCES)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_regenerating_the_tables_changes_nothing(game: str) -> None:
    doc = _rulebook(game)
    assert regenerate(doc, GAMES[game][1]()) == doc, (
        f"{GAMES[game][0]} is stale: run `python -m hamlet.rulebooks`"
    )


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_table_block_is_there_once(game: str) -> None:
    names = block_names(_rulebook(game))
    tables = GAMES[game][1]()
    assert sorted(names) == sorted(tables), f"blocks {names}, tables {sorted(tables)}"
    assert all(text.strip() for text in tables.values())


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_rule_id_of_the_coverage_page_is_in_the_rulebook(game: str) -> None:
    doc = _rulebook(game)
    source = SOURCES[game]
    ids = {i for i in doc_rows(game) if any(re.fullmatch(p, i) for p in source.patterns)}
    ids = {i for i in ids if not (source.exclude and re.match(source.exclude, i))}
    assert ids, f"no rule IDs found in docs/rules/{source.doc_file}"
    named = {m for pattern in source.patterns for m in re.findall(pattern, doc)}
    assert sorted(ids - named) == []


def test_village_tables_hold_every_data_item() -> None:
    tables = rulebook_tables.tables()
    for cid, *_ in vd.CUSTOMERS:
        assert f"| {cid} |" in tables["customers"]
    for town in vd.TOWN_NAMES:
        assert f"| {town} |" in tables["towns"]
    assert len(tables["paths"].splitlines()) == 2 + len(vd.PATHS)
    assert len(tables["crafts"].splitlines()) == 2 + len(vd.BUILDING_NAMES) + 1  # + the mill
    assert len(tables["seeding"].splitlines()) == 2 + len(vd.SPACE_NAMES) + 1  # + the total
    assert len(tables["market"].splitlines()) == 2 + vd.STALLS + vd.QUEUE
    for loc in vd.VISIBLE_LOCS:  # every place a member can die on has its category
        assert f"`{vd.LOC_NAMES[loc]}`" in tables["chronicle"]


def test_a_data_change_makes_the_rulebook_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = _rulebook("village")
    monkeypatch.setattr(vd, "LAP_LENGTH", vd.LAP_LENGTH + 1)
    monkeypatch.setattr(vd, "WINDOW_STEP_GRAIN", (1, 2, 4))
    fresh = regenerate(doc, rulebook_tables.tables())
    assert fresh != doc
    assert f"| time track: spaces in one lap (one death per lap) | {vd.LAP_LENGTH} |" in fresh
    assert "| 4 | 4 grain | 6 |" in fresh


OPEN = "<!-- table: {} (generated from games/x/data.py; do not edit) -->"
DOC = f"# T\n\ntext\n{OPEN.format('a')}\nstale\nlines\n<!-- /table -->\nmore\n"


def test_regenerate_replaces_only_the_block_body() -> None:
    out = regenerate(DOC, {"a": "| x |\n|---|"})
    assert out == f"# T\n\ntext\n{OPEN.format('a')}\n| x |\n|---|\n<!-- /table -->\nmore\n"
    assert regenerate(out, {"a": "| x |\n|---|\n"}) == out  # a trailing newline is one


@pytest.mark.parametrize(
    ("doc", "tables", "why"),
    [
        (DOC, {"b": "t"}, "not one of"),
        (DOC, {"a": "t", "b": "t"}, "without a block"),
        (DOC + DOC, {"a": "t"}, "appears twice"),
        (f"{OPEN.format('a')}\nx\n", {"a": "t"}, "no closing"),
        (f"{OPEN.format('a')}\n{OPEN.format('b')}\n<!-- /table -->\n", {"a": "t", "b": "t"},
         "not closed"),
    ],
)  # fmt: skip
def test_regenerate_refuses_broken_blocks(doc: str, tables: dict[str, str], why: str) -> None:
    with pytest.raises(RulebookError, match=why):
        regenerate(doc, tables)


def test_the_check_command_names_a_stale_rulebook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = _rulebook("village")
    monkeypatch.setattr(rulebooks, "ROOT", tmp_path)
    target = tmp_path / GAMES["village"][0]
    target.parent.mkdir(parents=True)
    target.write_text(doc, encoding="utf-8")
    assert rulebooks.main(["--check", "village"]) == 0
    target.write_text(doc.replace("| coins | 15 |", "| coins | 16 |"), encoding="utf-8")
    assert rulebooks.main(["--check", "village"]) == 1
    assert rulebooks.main(["village"]) == 0  # rewrites it
    assert target.read_text(encoding="utf-8") == doc
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "docs/rules/village.md: up to date",
        "docs/rules/village.md: tables out of date",
        "docs/rules/village.md: rewritten",
    ]
    assert rulebooks.main(["chess"]) == 2


def test_the_village_rulebook_names_every_action_type_and_observation_key() -> None:
    """Each action type with its fields as ``Type{field, ...}``, each decision kind, and each
    key of ``observation(p)`` (top level and per player), as a bot receives them."""
    import dataclasses

    import games
    from games.village.actions import ACTION_TYPES
    from games.village.state import PHASE_NAMES

    doc = _rulebook("village")
    for cls in ACTION_TYPES:
        fields = ", ".join(f.name for f in dataclasses.fields(cls))
        assert f"`{cls.__name__}{{{fields}}}`" in doc, cls.__name__
    for kind in PHASE_NAMES:
        assert f'"{kind}"' in doc, kind
    obs = games.get("village").new_game(num_players=2, seed=1).observation(0)
    player = obs["players"][0]
    assert isinstance(player, dict)
    decision = obs["decision"]
    assert isinstance(decision, dict)
    for key in [*obs, *player, *decision]:
        assert f"`{key}`" in doc or f"`{key}[i]`" in doc or f'["{key}"]' in doc, key
