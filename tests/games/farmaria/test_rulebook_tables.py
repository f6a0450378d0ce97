"""The Farmaria rulebook (``docs/rules/farmaria.md``) and its tables generated from data.py.

The splice here is the agreed one: the text between a ``<!-- table: NAME ... -->`` line and
the next ``<!-- /table -->`` line is ``tables()[NAME]`` plus a newline. Regenerating the
document must give it back unchanged, so the rulebook cannot drift from ``data.py``.
"""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path

import pytest

from games.farmaria import SPEC as FARMARIA
from games.farmaria import data as d
from games.farmaria import rulebook_tables
from games.farmaria.actions import ACTION_TYPES, CharacterName
from games.farmaria.farm import interest
from games.farmaria.rulebook_tables import tables
from games.farmaria.state import DECISION_NAMES, FarmariaState

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "rules" / "farmaria.md"
# The spec sits in ``shared/rules/`` beside the repository (or beside a folder holding it)
SPEC = next(
    (spec for up in ROOT.parents if (spec := up / "shared" / "rules" / "farmaria.md").exists()),
    ROOT.parent / "shared" / "rules" / "farmaria.md",
)
OPEN = re.compile(
    r"^<!-- table: (?P<name>[\w-]+) \(generated from games/farmaria/data\.py; do not edit\) -->$"
)
CLOSE = "<!-- /table -->"


def splice(doc: str, blocks: dict[str, str]) -> str:
    """Replace each marked block's body with its generated table."""
    out: list[str] = []
    skipping = False
    for line in doc.splitlines(keepends=True):
        if skipping:
            if line.rstrip("\n") != CLOSE:
                continue
            skipping = False
        out.append(line)
        m = OPEN.match(line.rstrip("\n"))
        if m:
            out.append(blocks[m["name"]] + "\n")
            skipping = True
    assert not skipping, "a table block is not closed"
    return "".join(out)


def block_names(doc: str) -> list[str]:
    return [m["name"] for line in doc.splitlines() if (m := OPEN.match(line))]


def test_every_table_is_a_non_empty_markdown_table() -> None:
    blocks = tables()
    assert blocks
    for name, text in blocks.items():
        lines = text.splitlines()
        assert len(lines) >= 3, name  # header, rule, at least one row
        header, rule, *rows = lines
        assert rule == "|" + "---|" * header.count(" | ") + "---|", name
        for line in (header, *rows):
            assert line.startswith("| ") and line.endswith(" |"), name
            assert line.count(" | ") == header.count(" | "), f"{name}: {line}"


def test_every_data_item_appears_in_a_table() -> None:
    blocks = tables()
    cells = {
        name: {c.strip() for line in t.splitlines() for c in line.split("|")}
        for name, t in blocks.items()
    }
    for key in ("goods-prices", "goods-holdings", "goods-provenance"):
        assert {f"`{g.id}`" for g in d.GOODS} <= cells[key], key
    assert {f"`{a}`" for a, _ in d.ACTIONS} <= cells["actions"]
    assert {f"`{e}`" for e, _ in d.EVENTS} <= cells["events"]
    assert {f"`{c.id}`" for c in d.CHARACTERS} <= cells["characters"]
    assert {str(n) for n in d.END_CONDITIONS} <= cells["player-counts"]


def test_the_cow_row_shows_the_printed_card() -> None:
    """T-01: the one card the rulebook prints in full (item 7, CM 10, sales 5 / 8, tax 1,
    upkeep 1, income 3, VP 3); its auction opens at 5, or 4 under Discount (T-11)."""
    blocks = tables()
    assert "| `cow` | 5 | large animal | 7 | 10 | 5 | 8 | 5 | 4 |" in blocks["goods-prices"]
    assert "| `cow` | 1 | female, bovine | 1 | 1 | 3 | 3 |" in blocks["goods-holdings"]
    assert "| **all goods** | 97 |" in blocks["goods-prices"]
    assert "| management deck (goods + actions) | 136 |" in blocks["deck"]


def test_tables_follow_a_change_of_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tables are read from data.py when asked: correcting a reconstructed value (as a
    found card image would) changes the rulebook table, and the document check then fails."""
    horse = d.GOODS[d.HORSE]._replace(item=12, cm=15)
    goods = tuple(horse if g.id == "horse" else g for g in d.GOODS)
    before = DOC.read_text(encoding="utf-8")
    monkeypatch.setattr(d, "GOODS", goods)
    changed = rulebook_tables.tables()
    assert "| `horse` | 4 | large animal | 12 | 15 | 8 | 11 | 8 | 6 |" in changed["goods-prices"]
    assert splice(before, changed) != before


def test_interest_table_matches_the_engine() -> None:
    """FM-LOAN-1 / T-03: every band of the table is what the engine charges."""
    for lo, hi, charged in rulebook_tables.interest_rows():
        assert {interest(loan) for loan in range(lo, hi + 1)} == {charged}
    assert [row[2] for row in rulebook_tables.interest_rows()] == [0, 2, 4, 6, 8]


def test_player_counts_match_the_engine() -> None:
    """FM-CM-1: the active CM positions the table states are the engine's."""
    for n in d.END_CONDITIONS:
        assert f"| {n} | {FarmariaState(n, 0).k} |" in tables()["player-counts"]


def test_the_rulebook_is_what_the_splice_regenerates() -> None:
    doc = DOC.read_text(encoding="utf-8")
    names = block_names(doc)
    assert sorted(names) == sorted(tables()), "each table must appear exactly once"
    assert splice(doc, tables()) == doc, "regenerate docs/rules/farmaria.md from data.py"


def test_the_rulebook_names_every_decision_kind() -> None:
    doc = DOC.read_text(encoding="utf-8")
    for kind in DECISION_NAMES:
        assert f"`{kind}`" in doc, kind


def test_the_rulebook_writes_every_action_type_with_its_fields() -> None:
    """Each action a bot can be offered, as ``Type(field, ...)`` in the fields' order (or the
    bare name for one without fields), so the page matches ``legal[i]``."""
    doc = DOC.read_text(encoding="utf-8")
    for cls in ACTION_TYPES:
        assert dataclasses.is_dataclass(cls)
        fields = [f.name for f in dataclasses.fields(cls)]
        written = f"`{cls.__name__}(" + ", ".join(fields) if fields else f"`{cls.__name__}`"
        assert written in doc, written


def _observed_keys(chars: tuple[str, ...], seed: int) -> dict[str, set[str]]:
    """The keys seen in a random game: top level, per player, per decision."""
    s = FARMARIA.new_variant(len(chars), seed, characters=tuple(CharacterName(c) for c in chars))
    rng = random.Random(seed)
    seen: dict[str, set[str]] = {"top": set(), "player": set(), "decision": set()}
    while not s.is_over():
        actor = s.to_move()
        assert actor is not None
        obs = s.observation(actor)
        seen["top"] |= set(obs)
        players = obs["players"]
        decision = obs["decision"]
        assert isinstance(players, list) and isinstance(decision, dict)
        for info in players:
            assert isinstance(info, dict)
            seen["player"] |= set(info)
        seen["decision"] |= set(decision)
        s.apply(rng.choice(s.legal_actions()))
    return seen


def test_the_rulebook_names_every_observation_key() -> None:
    """The observation keys a bot meets (top level, each player's, the decision's) are all
    explained on the page."""
    doc = DOC.read_text(encoding="utf-8")
    seen = _observed_keys(("tasos", "babis", "alexandros", "giannos"), 3)
    for part, keys in _observed_keys(("nikos", "ioanna", "irini"), 5).items():
        seen[part] |= keys
    assert "foresight" in seen["top"] and "drawn" in seen["decision"]
    for part, keys in seen.items():
        missing = sorted(k for k in keys if f"`{k}`" not in doc)
        assert missing == [], part


def test_the_rulebook_links_the_coverage_page() -> None:
    assert "](farmaria-coverage.md)" in DOC.read_text(encoding="utf-8")


@pytest.mark.skipif(not SPEC.exists(), reason=f"the spec is not beside the repository: {SPEC}")
def test_the_rulebook_names_every_rule_id_of_the_spec() -> None:
    """Every FM-* rule ID (the FM-AMB-* register aside) and every T-* example of the spec."""
    spec = SPEC.read_text(encoding="utf-8")
    ids = set(re.findall(r"\bFM-[A-Z0-9]+-[A-Z]?\d+\b", spec)) | set(re.findall(r"\bT-\d+\b", spec))
    ids = {i for i in ids if not i.startswith("FM-AMB-")}
    doc = DOC.read_text(encoding="utf-8")
    named = set(re.findall(r"\bFM-[A-Z0-9]+-[A-Z]?\d+\b|\bT-\d+\b", doc))
    assert sorted(ids - named) == []


def test_every_link_inside_the_page_has_its_heading() -> None:
    """``[...](#anchor)`` links point at a heading (anchors as GitHub makes them: lower
    case, punctuation dropped, spaces to hyphens, ``-1``, ``-2`` for repeated headings)."""
    doc = DOC.read_text(encoding="utf-8")
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for m in re.finditer(r"^#+ (.+)$", doc, flags=re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", m[1].strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")
    links = set(re.findall(r"\]\(#([^)]+)\)", doc))
    assert links and sorted(links - anchors) == []
