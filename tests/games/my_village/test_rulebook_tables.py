"""The My Village rulebook (``docs/rules/my-village.md``) and its generated tables.

The tables come from ``games/my_village/data.py`` only; the rulebook holds each one once,
exactly as generated (a local splice of the doc reproduces it); every data item, rule ID,
observation key and action type a bot meets is named in the rulebook.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import re
from pathlib import Path

import pytest

import games
from games.core import action_to_dict
from games.my_village import data, rulebook_tables
from games.my_village.actions import ACTION_TYPES
from games.my_village.rounds import Phase
from games.my_village.rulebook_tables import tables

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "rules" / "my-village.md"
OPEN = re.compile(
    r"^<!-- table: (?P<name>[\w-]+) \(generated from (?P<src>[\w/.]+); do not edit\) -->$"
)
CLOSE = "<!-- /table -->"

#: Names in data.py that hold no game data of their own: lookups built from the tables,
#: index constants and local aliases.
DERIVED = {
    "ABBOT", "COUNCILMAN", "TRAVELLER", "CRAFTSMAN", "MERCHANT", "GOOD_INDEX", "RAT_HALT",
    "CHURCH_BY_ID", "CHAMBER_BY_ID", "MONK_BY_ID", "CRAFT_BY_ID", "TRAVEL_BY_ID",
    "CUSTOMER_BY_ID", "P", "BE", "H", "B", "PL", "W", "C",
}  # fmt: skip


def splice(doc: str, blocks: dict[str, str]) -> str:
    """Replace the text between each table's marker lines with the generated table."""
    out: list[str] = []
    name = None
    for line in doc.splitlines(keepends=True):
        if name is None:
            out.append(line)
            m = OPEN.match(line.rstrip("\n"))
            name = m["name"] if m else None
        elif line.rstrip("\n") == CLOSE:
            out += [blocks[name] + "\n", line]
            name = None
    assert name is None, f"table {name} has no closing marker"
    return "".join(out)


def cells(line: str) -> list[str]:
    """The stripped cells of one markdown table line."""
    return [c.strip() for c in line.strip("|").split("|")]


def rows(table: str) -> list[list[str]]:
    """The body rows of a markdown table, as stripped cells."""
    return [cells(line) for line in table.splitlines()[2:]]


def test_tables_are_well_formed_markdown_tables() -> None:
    blocks = tables()
    assert set(blocks) == set(rulebook_tables.BLOCKS)
    for name, text in blocks.items():
        lines = text.splitlines()
        assert len(lines) >= 3, f"{name} has no rows"
        width = lines[0].count("|")
        assert lines[1] == "|" + "---|" * (width - 1), name
        for line in [lines[0], *lines[2:]]:
            assert line.startswith("| ") and line.count("|") == width, f"{name}: {line}"


def test_every_card_has_exactly_one_row_with_its_banner() -> None:
    blocks = tables()
    cards: dict[str, tuple[tuple[str, tuple[int, ...]], ...]] = {
        "churches": tuple((c.id, c.values) for c in data.CHURCHES),
        "council-chambers": tuple((c.id, c.values) for c in data.CHAMBERS),
        "monks": tuple((m.id, m.values) for m in data.MONKS),
        "crafts": tuple((c.id, c.values) for c in data.CRAFTS),
        "travel": tuple((t.id, t.values) for t in data.TRAVELS),
        "customers": tuple((c.id, c.values) for c in data.CUSTOMERS),
    }
    for block, items in cards.items():
        body = rows(blocks[block])
        assert [r[0] for r in body] == [card_id for card_id, _ in items], block
        banner = cells(blocks[block].splitlines()[0]).index("Banner")
        for row, (card_id, values) in zip(body, items, strict=True):
            assert row[banner] == ("/".join(map(str, values)) or "?"), card_id


def test_enums_and_small_tables_are_all_listed() -> None:
    blocks = tables()
    assert [r[0] for r in rows(blocks["goods"])][:5] == [g.value for g in data.GOODS]
    assert [r[0] for r in rows(blocks["registry-categories"])] == [c.value for c in data.CATEGORIES]
    assert rows(blocks["windows"]) == [["PP", *map(str, data.WINDOW_PP)]]
    assert [r[1:] for r in rows(blocks["overseer-costs"])] == [
        [str(coins), str(time)] for _, (coins, time) in sorted(data.OVERSEER_COST.items())
    ]
    assert len(rows(blocks["rat-track"])) == data.RAT_TRACK
    assert [r[2] for r in rows(blocks["play-banners"])] == [
        "/".join(map(str, v)) for v in data.PLAY_VALUES
    ]
    header = blocks["player-counts"].splitlines()[0]
    assert all(f"{n} players" in header for n in data.PLAYER_COUNTS)


def test_every_data_constant_feeds_a_table() -> None:
    """A value added to data.py must reach the rulebook: every public name of the data
    module is read by the table module, unless it is only derived from other data."""
    tree = ast.parse(inspect.getsource(rulebook_tables))
    read = {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "data"
    }
    public = {
        name
        for name, value in vars(data).items()
        if name.isupper()
        and not name.startswith("_")
        and not (inspect.isclass(value) or inspect.ismodule(value))
    }
    assert public - DERIVED - read == set()
    assert public >= DERIVED, "a derived name left data.py: drop it from DERIVED"


def test_a_data_change_changes_the_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tables are read from data.py when generated, never copied."""
    before = tables()
    k01 = data.CUSTOMERS[0]
    monkeypatch.setattr(data, "CUSTOMERS", (dataclasses.replace(k01, pp=99), *data.CUSTOMERS[1:]))
    monkeypatch.setattr(data, "WINDOW_PP", (*data.WINDOW_PP[:-1], 42))
    after = tables()
    assert rows(after["customers"])[0][-1] == "99"
    assert rows(after["windows"])[0][-1] == "42"
    assert {n for n in before if before[n] != after[n]} == {"customers", "windows"}


def test_rulebook_holds_every_table_once_as_generated() -> None:
    doc = DOC.read_text(encoding="utf-8")
    opened = [OPEN.match(line) for line in doc.splitlines()]
    names = [m["name"] for m in opened if m]
    assert sorted(names) == sorted(tables()), "each table exactly once"
    assert {m["src"] for m in opened if m} == {"games/my_village/data.py"}
    assert doc.count(CLOSE) == len(names)
    assert splice(doc, tables()) == doc, "regenerate the rulebook's tables"


def test_rulebook_names_every_observation_key_and_action_type() -> None:
    doc = DOC.read_text(encoding="utf-8")
    state = games.get("my_village").new_game(4, 1)
    view = state.observation(0)
    village = view["villages"][0]  # type: ignore[index]
    keys = set(view) | set(village) | {"picks", "white_used", "white_count", "banner", "choice"}
    keys |= {"dice", "value", "kind", "holder", "palm", "sp", "top", "count", "left", "right"}
    missing = {k for k in keys if f"`{k}`" not in doc}
    assert not missing, f"observation keys not named in the rulebook: {sorted(missing)}"
    assert all(f"`{phase.value}`" in doc for phase in Phase), "every decision kind"
    for action in ACTION_TYPES:
        assert f"`{action.__name__}`" in doc, action.__name__
        for field in dataclasses.fields(action):  # type: ignore[arg-type]
            assert f"`{field.name}`" in doc, f"{action.__name__}.{field.name}"


def test_rulebook_action_examples_are_real_actions() -> None:
    doc = DOC.read_text(encoding="utf-8")
    spec = games.get("my_village")
    examples = [
        line
        for block in re.findall(r"(?s)```json\n(.*?)```", doc)
        for line in block.splitlines()
        if line.strip()
    ]
    assert examples
    for line in examples:
        example = json.loads(line)
        assert action_to_dict(spec.action_from_dict(example)) == example, line


def _slug(heading: str) -> str:
    """The anchor a markdown renderer (GitHub style) gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_rulebook_links_reach_its_headings_and_the_coverage_page() -> None:
    doc = DOC.read_text(encoding="utf-8")
    slugs = [_slug(h) for h in re.findall(r"(?m)^#+ (.+)$", doc)]
    assert len(slugs) == len(set(slugs)), "headings must have distinct anchors"
    links = re.findall(r"\]\(#([\w-]+)\)", doc)
    assert links
    assert sorted(set(links) - set(slugs)) == []
    assert "](my-village-coverage.md)" in doc


def _rule_id_sources() -> list[Path]:
    """The coverage page (after the split) and the spec beside the repository, if there."""
    candidates = [
        ROOT / "docs" / "rules" / "my-village-coverage.md",
        ROOT.parent / "shared" / "rules" / "my-village.md",
    ]
    return [p for p in candidates if p.exists()]


@pytest.mark.skipif(not _rule_id_sources(), reason="no coverage page or spec to list rule IDs")
def test_rulebook_names_every_rule_id() -> None:
    doc = DOC.read_text(encoding="utf-8")
    patterns = (r"\bMV-[A-Z]+-\d+\b", r"\bEX-\d+\b")
    for source in _rule_id_sources():
        text = source.read_text(encoding="utf-8")
        ids = {m for p in patterns for m in re.findall(p, text)}
        missing = sorted(i for i in ids if not re.search(rf"\b{i}\b", doc))
        assert not missing, f"rule IDs of {source.name} missing from the rulebook: {missing}"
