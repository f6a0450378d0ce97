"""JSON log lines for every Hamlet process (``HAMLET_LOG_FORMAT=json``): server, worker, web.

Two parts. :class:`JsonFormatter` turns Python log records into one JSON object per line;
each process puts it on its own handlers (the server's root handler, Celery's handlers,
uvicorn's loggers). :func:`capture_std_streams` catches what bypasses Python's logging: gRPC's
C core and absl write to file descriptor 2 directly, a banner is printed to stdout, a
library prints a warning. File descriptors 1 and 2 become pipes read by a thread that passes
JSON lines through and wraps any other line as ``{"time", "level", "logger": "stdout" or
"stderr", "message"}``, so a log collector never meets a line that is not JSON. Children
forked later (Celery's pool) inherit the pipes and are covered too.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import re
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

FORMATS = ("text", "json")
VARIABLE = "HAMLET_LOG_FORMAT"
#: absl's (gRPC's C core) prefix: severity letter, MMDD, time, thread, file:line.
_ABSL = re.compile(r"^([EWIF])\d{4} ")
_ABSL_LEVELS = {"E": "ERROR", "W": "WARNING", "I": "INFO", "F": "CRITICAL"}


def log_format(env: Mapping[str, str] | None = None) -> str:
    """``HAMLET_LOG_FORMAT`` (text or json); ValueError naming the variable otherwise."""
    env = os.environ if env is None else env
    value = (env.get(VARIABLE) or "text").strip().lower()
    if value not in FORMATS:
        raise ValueError(f"{VARIABLE} must be one of {', '.join(FORMATS)}, not {value!r}")
    return value


def _now(created: float | None = None) -> str:
    moment = datetime.now(UTC) if created is None else datetime.fromtimestamp(created, UTC)
    return moment.isoformat(timespec="milliseconds")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, and the traceback if any."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": _now(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def wrap_line(line: str, stream: str) -> str:
    """``line`` itself if it is a JSON object, else a JSON object carrying it."""
    text = line.rstrip("\r\n")
    if text.startswith("{"):
        try:
            if isinstance(json.loads(text), dict):
                return text
        except ValueError:
            pass
    found = _ABSL.match(text)
    level = _ABSL_LEVELS[found.group(1)] if found else ("INFO" if stream == "stdout" else "ERROR")
    return json.dumps(
        {"time": _now(), "level": level, "logger": stream, "message": text}, ensure_ascii=False
    )


class _Pump:
    """Reads one pipe and writes wrapped lines to the descriptor it replaced."""

    def __init__(self, fd: int, name: str) -> None:
        self.name = name
        self.target = os.dup(fd)  # where the lines finally go (the container's log)
        read_end, write_end = os.pipe()
        os.set_inheritable(self.target, False)
        os.set_inheritable(read_end, False)
        os.dup2(write_end, fd)  # fd 1 or 2 is now the pipe; children inherit it
        os.close(write_end)
        self.fd = fd
        self.reader = os.fdopen(read_end, "r", encoding="utf-8", errors="replace")
        self.thread = threading.Thread(target=self._run, name=f"hamlet-json-{name}", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        for line in self.reader:
            data = (wrap_line(line, self.name) + "\n").encode("utf-8")
            while data:
                try:
                    written = os.write(self.target, data)
                except OSError:
                    return
                data = data[written:]

    def close(self, timeout: float = 2.0) -> None:
        """Put the original descriptor back and let the thread write what is left."""
        os.dup2(self.target, self.fd)  # our end of the pipe closes with this
        self.thread.join(timeout)


_pumps: list[_Pump] = []
_lock = threading.Lock()


def capture_std_streams() -> None:
    """Wrap every line written to fds 1 and 2 as JSON from now on (idempotent)."""
    import sys

    with _lock:
        if _pumps:
            return
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        _pumps.extend((_Pump(1, "stdout"), _Pump(2, "stderr")))
        atexit.register(release_std_streams)


def release_std_streams() -> None:
    """Stop wrapping (flushing Python's streams first); at exit, or in tests."""
    import sys

    with _lock:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        while _pumps:
            _pumps.pop().close()


def install(level: str = "INFO") -> logging.Handler:
    """JSON on the root logger (one stderr handler) and on fds 1 and 2: for a process whose
    own code configures nothing else (the web app)."""
    capture_std_streams()
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root.addHandler(handler)
    root.setLevel(level.upper())
    return handler
