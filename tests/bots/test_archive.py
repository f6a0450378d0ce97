"""Submission archives: what is accepted, what is refused, and how they unpack."""

from __future__ import annotations

import io
import json
import stat
import zipfile
from pathlib import Path

import pytest

from bots.archive import ArchiveError, Manifest, Runtime, check, pack, unpack
from hamlet.codec import Framing

ROOT = Path(__file__).resolve().parents[2]


def archive(files: dict[str, bytes], links: tuple[str, ...] = ()) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
        for name in links:
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, "/etc/shadow")
    return out.getvalue()


def manifest(runtime: str = "node", entry: str = "main.js") -> bytes:
    return json.dumps({"runtime": runtime, "entry": entry}).encode()


def test_a_python_file_and_the_node_example_are_accepted() -> None:
    assert check(b"print('hi')\n") == Manifest(Runtime.PYTHON3, "bot.py")
    assert check(pack(ROOT / "bots" / "examples" / "node_random")) == Manifest(
        Runtime.NODE, "main.js"
    )


@pytest.mark.parametrize(
    ("files", "links", "says"),
    [
        ({"main.js": b""}, (), "no hamlet.json"),
        ({"hamlet.json": manifest(entry="gone.js")}, (), "not in the archive"),
        ({"hamlet.json": manifest(runtime="ruby")}, (), "must be"),
        ({"hamlet.json": manifest(), "main.js": b"", "../up.js": b""}, (), "plain relative"),
        ({"hamlet.json": manifest(), "main.js": b"", "/abs.js": b""}, (), "plain relative"),
        ({"hamlet.json": manifest(entry="../main.js")}, (), "plain relative"),
        ({"hamlet.json": manifest(), "main.js": b""}, ("shadow",), "link"),
    ],
)
def test_bad_archives_are_refused(
    files: dict[str, bytes], links: tuple[str, ...], says: str
) -> None:
    with pytest.raises(ArchiveError, match=says):
        check(archive(files, links))


@pytest.mark.parametrize(
    ("extra", "framing"),
    [
        ({}, Framing.PROTOBUF),
        ({"framing": "protobuf"}, Framing.PROTOBUF),
        ({"framing": "json"}, Framing.JSON),
    ],
)
def test_the_manifest_chooses_the_framing(extra: dict[str, str], framing: Framing) -> None:
    raw = json.dumps({"runtime": "node", "entry": "main.js", **extra}).encode()
    assert check(archive({"hamlet.json": raw, "main.js": b""})).framing is framing


@pytest.mark.parametrize("value", ["JSON", "xml", 1, None, ["json"]])
def test_an_unknown_framing_is_refused_naming_the_choices(value: object) -> None:
    raw = json.dumps({"runtime": "node", "entry": "main.js", "framing": value}).encode()
    with pytest.raises(ArchiveError, match=r"framing.*one of protobuf, json"):
        check(archive({"hamlet.json": raw, "main.js": b""}))


def test_non_utf8_single_files_and_bombs_are_refused() -> None:
    with pytest.raises(ArchiveError, match="UTF-8"):
        check(b"\xff\xfe\x00")
    big = archive({"hamlet.json": manifest(), "main.js": b"0" * (40 << 20)})
    with pytest.raises(ArchiveError, match="unpacks to"):
        check(big)


def test_unpack_writes_the_files(tmp_path: Path) -> None:
    code = archive({"hamlet.json": manifest(), "main.js": b"//", "lib/util.js": b"//u"})
    assert unpack(code, tmp_path).entry == "main.js"
    assert (tmp_path / "lib" / "util.js").read_bytes() == b"//u"
