"""``HAMLET_LOG_FORMAT=json`` for a worker: Celery's handlers get the JSON formatter (its
worker and task loggers), and file descriptors 1 and 2 are wrapped (hamlet.jsonlog), so the
pool's children, gRPC's C core and any stray print write JSON lines too."""

from __future__ import annotations

import logging
from typing import Any

from hamlet.jsonlog import JsonFormatter, capture_std_streams, log_format


def _json_handlers(logger: logging.Logger | None = None, **_: Any) -> None:
    for handler in (logger or logging.getLogger()).handlers:
        handler.setFormatter(JsonFormatter())


def configure_from_env() -> None:
    """Switch to JSON logs when the environment asks (ValueError for a bad value)."""
    if log_format() != "json":
        return
    from celery import signals

    capture_std_streams()
    signals.after_setup_logger.connect(_json_handlers, weak=False)
    signals.after_setup_task_logger.connect(_json_handlers, weak=False)
