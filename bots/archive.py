"""What a bot submission is: one Python file, or a zip archive with a manifest.

The archive holds ``hamlet.json``::

    {"runtime": "node", "entry": "main.js", "framing": "json"}

``runtime`` is one of :class:`Runtime` (``python3``, ``node``, or ``native`` for a static
linux-x86_64 executable) and ``entry`` the path, inside the archive, of the file the
runtime starts. ``framing`` (optional, default ``protobuf``) is how the bot's stdio messages
are written: one of :class:`~hamlet.codec.Framing` (``protobuf`` binary, or ``json``, the
protobuf JSON mapping of the same messages). The same checks run where the archive is
accepted (the server, at submission) and where it is unpacked (the worker, before the
sandbox starts): size, member count, relative paths without ``..``, no links, no devices,
an entry that exists.
The standard library and the codec's :class:`~hamlet.codec.Framing` only (the server and
workers both import it).
"""

from __future__ import annotations

import enum
import io
import json
import lzma
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from hamlet.codec import Framing

MANIFEST = "hamlet.json"
MAX_ARCHIVE_BYTES = 8 << 20
MAX_UNPACKED_BYTES = 32 << 20
MAX_MEMBERS = 512
#: A manifest is a small JSON object; a larger one is refused from its header, unread.
MAX_MANIFEST_BYTES = 64 << 10
#: How deeply a manifest's arrays and objects may nest (it needs one level): checked on the
#: raw bytes before parsing, so a small deeply nested manifest never reaches the parser.
MAX_MANIFEST_DEPTH = 16
#: What reading a corrupt member can raise besides BadZipFile (a bad CRC): garbage in a
#: deflate, bzip2 or lzma stream, a stream cut short, a compression method zipfile lacks.
_CORRUPT = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, OSError, NotImplementedError)
ZIP_MAGIC = b"PK\x03\x04"


class Runtime(enum.Enum):
    """The runtimes a submission may name."""

    PYTHON3 = "python3"
    NODE = "node"
    NATIVE = "native"


class ArchiveError(ValueError):
    """The submission is not an acceptable bot."""


@dataclass(frozen=True, slots=True)
class Size:
    """How large a submission is: its bytes, and the members and bytes it unpacks to (as the
    archive's headers declare them; zipfile never inflates a member past its declared size)."""

    archive_bytes: int
    members: int
    unpacked_bytes: int


@dataclass(frozen=True, slots=True)
class Manifest:
    """What the archive's ``hamlet.json`` says."""

    runtime: Runtime
    entry: str
    framing: Framing = Framing.PROTOBUF


def is_archive(code: bytes) -> bool:
    """Whether ``code`` is a zip archive rather than a single Python file."""
    return code.startswith(ZIP_MAGIC)


def _member_path(name: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if not name or path.is_absolute() or ".." in path.parts or "\\" in name or "\0" in name:
        raise ArchiveError(f"archive member {name!r} is not a plain relative path")
    return path


def _kind(info: zipfile.ZipInfo) -> int:
    """The file type bits of a member (0 when the archive recorded none)."""
    return stat.S_IFMT(info.external_attr >> 16)


#: The largest central directory read: room for every allowed member with a 1 KiB name.
MAX_DIRECTORY_BYTES = MAX_MEMBERS * (46 + 1024)
_EOCD = struct.Struct("<4s4H2LH")  # the end of central directory record (22 bytes)
_ZIP64_LOCATOR = struct.Struct("<4sLQL")  # 20 bytes, just before the record
_ZIP64_EOCD = struct.Struct("<4sQ2H2L4Q")  # 56 bytes


def _directory(code: bytes) -> tuple[int, int] | None:
    """(members, bytes) of the central directory as the archive's end record declares them
    (the zip64 record's when the end record defers to it), or None when there is no end
    record to read (zipfile then refuses the archive)."""
    tail = code[-(_EOCD.size + 0xFFFF) :]
    at = len(tail) - _EOCD.size
    if tail[at : at + 4] != b"PK\x05\x06":  # a comment follows: the last signature, as zipfile
        at = tail.rfind(b"PK\x05\x06")
        if at < 0 or at + _EOCD.size > len(tail):
            return None
    _, _, _, _, count, size, _, _ = _EOCD.unpack_from(tail, at)
    if (count == 0xFFFF or size == 0xFFFFFFFF) and at >= _ZIP64_LOCATOR.size:
        sig, _, where, _ = _ZIP64_LOCATOR.unpack_from(tail, at - _ZIP64_LOCATOR.size)
        if sig == b"PK\x06\x07" and 0 <= where <= len(code) - _ZIP64_EOCD.size:
            record = _ZIP64_EOCD.unpack_from(code, where)
            if record[0] == b"PK\x06\x06":
                count, size = record[6], record[8]
    return count, size


def _bounded_directory(code: bytes) -> int | None:
    """The declared member count, after refusing a central directory larger than any
    acceptable archive's. zipfile builds an object per entry of the whole directory (it reads
    the directory by its size, whatever the count says), so a few megabytes of empty entries
    would cost seconds and hundreds of megabytes before anything else is checked."""
    found = _directory(code)
    if found is None:
        return None
    count, size = found
    if size > MAX_DIRECTORY_BYTES:
        raise ArchiveError(
            f"archive's central directory is {size} bytes (at most {MAX_DIRECTORY_BYTES})"
        )
    return count


def measure(code: bytes) -> Size:
    """The size of a submission from the archive's central directory alone: nothing is
    inflated, so a small archive that would unpack to gigabytes costs no memory here. A
    single file is one member of its own size. Raises :class:`ArchiveError` if unreadable."""
    if not is_archive(code):
        return Size(len(code), 1, len(code))
    if len(code) > MAX_ARCHIVE_BYTES:
        raise ArchiveError(f"archive of {len(code)} bytes exceeds {MAX_ARCHIVE_BYTES}")
    declared = _bounded_directory(code)
    if declared is not None and declared > MAX_MEMBERS:
        # Counted from the end record, unread: quotas judge the count, check() refuses it.
        return Size(len(code), declared, 0)
    try:
        with zipfile.ZipFile(io.BytesIO(code)) as zf:
            infos = zf.infolist()
    except _CORRUPT as exc:
        raise ArchiveError(f"not a readable zip archive: {exc}") from None
    return Size(len(code), len(infos), sum(i.file_size for i in infos))


def check(code: bytes) -> Manifest:
    """Validate a submission (file or archive); its manifest. Raises :class:`ArchiveError`."""
    if not is_archive(code):
        try:
            code.decode("utf-8")
        except UnicodeDecodeError:
            raise ArchiveError("a single-file bot must be UTF-8 Python source") from None
        return Manifest(Runtime.PYTHON3, "bot.py")
    if len(code) > MAX_ARCHIVE_BYTES:
        raise ArchiveError(f"archive of {len(code)} bytes exceeds {MAX_ARCHIVE_BYTES}")
    declared = _bounded_directory(code)
    if declared is not None and declared > MAX_MEMBERS:
        raise ArchiveError(f"archive has {declared} members (at most {MAX_MEMBERS})")
    try:
        with zipfile.ZipFile(io.BytesIO(code)) as zf:
            infos = zf.infolist()
            if len(infos) > MAX_MEMBERS:
                raise ArchiveError(f"archive has {len(infos)} members (at most {MAX_MEMBERS})")
            total, names = 0, set()
            for info in infos:
                _member_path(info.filename)
                kind = _kind(info)
                if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
                    raise ArchiveError(f"{info.filename!r} is a link or special file")
                if info.flag_bits & 0x1:
                    raise ArchiveError(f"{info.filename!r} is encrypted")
                total += info.file_size
                names.add(info.filename)
            if total > MAX_UNPACKED_BYTES:
                raise ArchiveError(
                    f"archive unpacks to {total} bytes (at most {MAX_UNPACKED_BYTES})"
                )
            if MANIFEST not in names:
                raise ArchiveError(f"archive has no {MANIFEST}")
            manifest = _parse_manifest(_read_manifest(zf))
            # Every member inflated once, in chunks (bounded by the declared sizes above):
            # a corrupt member is refused here, not found by a worker mid-tournament.
            corrupt = zf.testzip()
            if corrupt is not None:
                raise ArchiveError(f"archive member {corrupt!r} is corrupt (bad CRC)")
    except _CORRUPT as exc:
        raise ArchiveError(f"not a readable zip archive: {exc}") from None
    if manifest.entry not in names:
        raise ArchiveError(f"the entry point {manifest.entry!r} is not in the archive")
    return manifest


def _read_manifest(zf: zipfile.ZipFile) -> bytes:
    """The manifest's bytes, refused by its declared size before anything is inflated, and
    read with a cap besides (a member yields no more than its header declares)."""
    declared = zf.getinfo(MANIFEST).file_size
    if declared > MAX_MANIFEST_BYTES:
        raise ArchiveError(
            f"{MANIFEST} unpacks to {declared} bytes; a manifest is at most "
            f"{MAX_MANIFEST_BYTES} bytes (a small JSON object)"
        )
    with zf.open(MANIFEST) as f:
        raw = f.read(MAX_MANIFEST_BYTES + 1)
    if len(raw) > MAX_MANIFEST_BYTES:
        raise ArchiveError(f"{MANIFEST} is larger than {MAX_MANIFEST_BYTES} bytes")
    return raw


def nesting_depth(raw: bytes) -> int:
    """How deeply the arrays and objects of JSON text ``raw`` nest (brackets inside strings
    do not count), read in one pass without parsing."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return deepest


def _parse_manifest(raw: bytes) -> Manifest:
    if nesting_depth(raw) > MAX_MANIFEST_DEPTH:
        raise ArchiveError(
            f"{MANIFEST} nests more than {MAX_MANIFEST_DEPTH} levels deep; it is one flat "
            'object: {"runtime": ..., "entry": ...}'
        )
    try:
        data = json.loads(raw)
        if not isinstance(data, dict):
            raise TypeError(f"it holds a JSON {type(data).__name__}, not an object")
        runtime = Runtime(data["runtime"])
        entry = data["entry"]
        if not isinstance(entry, str):
            raise TypeError(f"entry is a JSON {type(entry).__name__}, not a string")
        framing = Framing(data.get("framing", Framing.PROTOBUF.value))
    except (ValueError, KeyError, TypeError, RecursionError) as exc:
        names = ", ".join(r.value for r in Runtime)
        framings = ", ".join(f.value for f in Framing)
        raise ArchiveError(
            f'{MANIFEST} must be {{"runtime": one of {names}, "entry": "path"}}, optionally '
            f'with "framing": one of {framings} (default protobuf): {exc}'
        ) from None
    _member_path(entry)
    return Manifest(runtime, entry, framing)


def pack(directory: Path) -> bytes:
    """A submission archive of every file under ``directory`` (which holds ``hamlet.json``)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(p for p in directory.rglob("*") if p.is_file()):
            zf.write(path, path.relative_to(directory).as_posix())
    code = out.getvalue()
    check(code)
    return code


def unpack(code: bytes, dest: Path) -> Manifest:
    """Check ``code`` and write it under ``dest`` (an empty directory); its manifest."""
    manifest = check(code)
    if not is_archive(code):
        (dest / "bot.py").write_bytes(code)
        return manifest
    try:
        with zipfile.ZipFile(io.BytesIO(code)) as zf:
            for info in zf.infolist():
                target = dest / _member_path(info.filename)
                if info.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as src, open(target, "xb") as out:
                    out.write(src.read(MAX_UNPACKED_BYTES))
    except _CORRUPT as exc:  # duplicate names, a file where a directory should be
        raise ArchiveError(f"archive cannot be unpacked: {exc}") from None
    return manifest
