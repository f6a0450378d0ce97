"""Crafted archives: every malformed one is an :class:`ArchiveError` (never another exception),
and a manifest's nesting is refused from its bytes, before any JSON parser sees it."""

from __future__ import annotations

import contextlib
import io
import zipfile

import pytest

from bots import archive
from bots.archive import MAX_MANIFEST_DEPTH, ArchiveError, check, measure, nesting_depth

MANIFEST = b'{"runtime": "python3", "entry": "bot.py"}'


def zipped(files: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", method) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return out.getvalue()


def with_manifest(raw: bytes) -> bytes:
    return zipped({"hamlet.json": raw, "bot.py": b"print(1)\n"})


def scrambled(code: bytes, after: bytes, start: int, count: int) -> bytes:
    """``code`` with ``count`` bytes flipped, ``start`` bytes past the first ``after``."""
    out = bytearray(code)
    at = out.find(after) + len(after) + start
    for i in range(at, at + count):
        out[i] ^= 0x5A
    return bytes(out)


def method(code: bytes, number: int) -> bytes:
    """``code`` with every header naming compression method ``number``."""
    out = bytearray(code)
    for i in range(len(out) - 4):
        if out[i : i + 4] == b"PK\x03\x04":
            out[i + 8 : i + 10] = number.to_bytes(2, "little")
        elif out[i : i + 4] == b"PK\x01\x02":
            out[i + 10 : i + 12] = number.to_bytes(2, "little")
    return bytes(out)


GOOD = with_manifest(MANIFEST)
STORED = zipped({"hamlet.json": MANIFEST, "bot.py": b"print('hello')\n"}, zipfile.ZIP_STORED)

CRAFTED = {
    "nested arrays": with_manifest(b"[" * 30_000 + b"]" * 30_000),
    "nested objects": with_manifest(b'{"a":' * 10_000 + b"1" + b"}" * 10_000),
    "unclosed nesting": with_manifest(b"[" * 40_000),
    "a JSON list": with_manifest(b'["runtime", "entry"]'),
    "a JSON string": with_manifest(b'"python3"'),
    "a JSON number": with_manifest(b"1e999999"),
    "a huge integer": with_manifest(b'{"runtime": ' + b"9" * 50_000 + b', "entry": "bot.py"}'),
    "a number for the entry": with_manifest(b'{"runtime": "python3", "entry": 1e400}'),
    "an object for the entry": with_manifest(b'{"runtime": "python3", "entry": {"a": [1]}}'),
    "not UTF-8": with_manifest(b"\xff\xfe{}"),
    "bad CRC in the manifest": scrambled(STORED, b'"runtime', 0, 1),
    "bad CRC in a member": scrambled(STORED, b"print(", 0, 1),
    "truncated (a third)": GOOD[: len(GOOD) // 3],
    "truncated (ten bytes short)": GOOD[:-10],
    "deflate garbage": scrambled(GOOD, b"hamlet.json", 0, 20),
    "bzip2 garbage": scrambled(
        zipped({"hamlet.json": MANIFEST * 3, "bot.py": b"x"}, zipfile.ZIP_BZIP2),
        b"hamlet.json",
        4,
        20,
    ),
    "lzma garbage": scrambled(
        zipped({"hamlet.json": MANIFEST * 3, "bot.py": b"x"}, zipfile.ZIP_LZMA),
        b"hamlet.json",
        4,
        20,
    ),
    "an unknown compression method": method(GOOD, 99),
}


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_a_crafted_archive_is_an_archive_error(name: str) -> None:
    code = CRAFTED[name]
    with pytest.raises(ArchiveError):
        check(code)
    with contextlib.suppress(ArchiveError):  # headers only: may accept, raises nothing else
        measure(code)


def test_a_small_deeply_nested_manifest_is_refused_before_parsing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code = CRAFTED["nested arrays"]
    assert len(code) < 400  # the attack: a few hundred bytes
    parsed: list[bytes] = []
    monkeypatch.setattr(archive.json, "loads", lambda raw: parsed.append(raw))
    with pytest.raises(ArchiveError, match="nests more than"):
        check(code)
    assert parsed == []


def test_nesting_is_counted_outside_strings_only() -> None:
    assert nesting_depth(MANIFEST) == 1
    assert nesting_depth(b'{"entry": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\"[[[["}') == 1
    assert nesting_depth(b"[" * (MAX_MANIFEST_DEPTH + 1)) == MAX_MANIFEST_DEPTH + 1
    ok = b'{"runtime": "python3", "entry": "bot.py", "x": ' + b"[" * 10 + b"]" * 10 + b"}"
    assert check(with_manifest(ok)).entry == "bot.py"


def test_a_well_formed_archive_is_still_accepted() -> None:
    assert check(GOOD).entry == "bot.py"


def _empty_members(count: int) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:
        for i in range(count):
            zf.writestr(f"{i:x}", b"")
    return out.getvalue()


def test_a_directory_of_many_members_is_refused_from_its_end_record(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Thousands of empty entries (megabytes of directory) are refused before zipfile builds
    an object per entry; so is a directory whose end record lies about its count."""
    many = _empty_members(600)
    huge = _empty_members(70_000)  # past 65535: the count is in the zip64 record
    lying = bytearray(_empty_members(20_000))
    end = lying.rfind(b"PK\x05\x06")
    lying[end + 8 : end + 12] = (1).to_bytes(2, "little") * 2  # "one member"
    opened: list[object] = []
    real = zipfile.ZipFile

    def spy(*args: object, **kw: object) -> zipfile.ZipFile:
        opened.append(args)
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(archive.zipfile, "ZipFile", spy)
    assert measure(many).members == 600  # counted for the quotas, unread
    with pytest.raises(ArchiveError, match="600 members"):
        check(many)
    for read in (measure, check):
        for code in (huge, bytes(lying)):
            with pytest.raises(ArchiveError, match="central directory"):
                read(code)
    assert opened == []
    with pytest.raises(ArchiveError, match="exceeds"):
        measure(b"PK\x03\x04" + bytes(archive.MAX_ARCHIVE_BYTES))
