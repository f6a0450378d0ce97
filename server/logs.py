"""Server logging: one stderr handler on the root logger, text or JSON lines.

``hamlet server`` calls :func:`configure` with the level and format of its settings
(``HAMLET_LOG_LEVEL``, ``HAMLET_LOG_FORMAT``), then :func:`log_settings`. What is logged, and
where: start-up settings (here, passwords hidden), refused writes and unexpected or storage
errors (:mod:`server.boundary`), voided and failed matches (:mod:`server.services.matches`),
reaper and queue failures (:mod:`server.app`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import sys
from typing import TYPE_CHECKING, TextIO
from urllib.parse import urlsplit, urlunsplit

from hamlet.jsonlog import JsonFormatter
from server.config import LOG_FORMATS as FORMATS
from server.config import LOG_LEVELS as LEVELS

if TYPE_CHECKING:
    from server.config import Settings

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
__all__ = ["JsonFormatter", "configure", "log_settings", "redact_url", "unconfigure"]

log = logging.getLogger("server")


class _Ours(logging.StreamHandler):  # type: ignore[type-arg]
    """Marks the handler :func:`configure` installed, so a second call replaces it."""


def configure(
    level: str = "INFO", fmt: str = "text", stream: TextIO | None = None
) -> logging.Handler:
    """Log records of ``level`` and above to ``stream`` (stderr) as text or JSON lines;
    returns the handler (replaced by the next call, or removed with :func:`unconfigure`)."""
    if level.upper() not in LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LEVELS)}, not {level!r}")
    if fmt not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, _Ours)]:
        root.removeHandler(old)
    if stream is not None:
        _private(stream)
    handler = _Ours(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    root.addHandler(handler)
    root.setLevel(level.upper())
    # Alembic says "Context impl SQLiteImpl." at every start; keep it for DEBUG.
    logging.getLogger("alembic").setLevel("DEBUG" if level.upper() == "DEBUG" else "WARNING")
    return handler


def _private(stream: TextIO) -> None:
    """A log *file* is the server's alone (0600, whatever the umask it was opened with)."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        fd = stream.fileno()
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.fchmod(fd, 0o600)


def unconfigure(handler: logging.Handler) -> None:
    """Remove a handler :func:`configure` installed (before its stream is closed)."""
    logging.getLogger().removeHandler(handler)


def redact_url(url: str) -> str:
    """``url`` with its password replaced by ``***`` (for logs)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def log_settings(settings: Settings, grpc_port: int, metrics_port: int | None) -> None:
    """One INFO line with the settings the server runs with (no secrets)."""
    log.info(
        "hamlet server started: grpc=%s:%d metrics=%s:%s database=%s queue=%s data_dir=%s "
        "lease=%gs queue_timeout=%gs reaper_interval=%gs max_attempts=%d "
        "decision_time_ms=%d grpc_threads=%d log_level=%s log_format=%s",
        settings.grpc_host,
        grpc_port,
        settings.metrics_host,
        metrics_port if metrics_port else "disabled",
        redact_url(settings.effective_database_url),
        redact_url(settings.redis_url),
        settings.data_dir,
        settings.match_lease_seconds,
        settings.queue_timeout_seconds,
        settings.reaper_interval_seconds,
        settings.max_match_attempts,
        settings.default_decision_time_ms,
        settings.max_workers,
        settings.log_level,
        settings.log_format,
    )
