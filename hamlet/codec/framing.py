"""Bots' stdin/stdout frames: each message is prefixed by its length as 4 big-endian bytes."""

from __future__ import annotations

from typing import IO

#: Largest frame :func:`read_frame` accepts unless told otherwise (4 MiB).
DEFAULT_MAX_FRAME = 4 * 1024 * 1024


class FrameError(ValueError):
    """A length-prefixed frame is truncated or larger than allowed."""


def write_frame(stream: IO[bytes], payload: bytes) -> None:
    """Write ``payload`` prefixed by its length (4 bytes, big-endian) and flush."""
    stream.write(len(payload).to_bytes(4, "big") + payload)
    stream.flush()


def read_frame(stream: IO[bytes], max_bytes: int = DEFAULT_MAX_FRAME) -> bytes | None:
    """The next frame's payload; ``None`` at a clean end of stream.

    Raises :class:`FrameError` on a truncated frame or one longer than ``max_bytes``.
    """
    header = _read_exactly(stream, 4)
    if not header:
        return None
    if len(header) < 4:
        raise FrameError("stream ended inside a frame header")
    size = int.from_bytes(header, "big")
    if size > max_bytes:
        raise FrameError(f"frame of {size} bytes exceeds the limit of {max_bytes}")
    body = _read_exactly(stream, size)
    if len(body) < size:
        raise FrameError(f"stream ended after {len(body)} of {size} frame bytes")
    return body


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    chunks: list[bytes] = []
    remaining = size
    while remaining > 0:
        chunk = stream.read(remaining)
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
