"""Field checks shared by the services; each raises InvalidArgumentError saying what to fix."""

from __future__ import annotations

import re

import games
from server.services.errors import InvalidArgumentError, NotFoundError
from server.services.hygiene import no_nul

BOT_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")  # whole name: use fullmatch
MAX_SOURCE_BYTES = 256 * 1024
MAX_DESCRIPTION = 500
MAX_ID = 64
MAX_SEED = 2**63 - 1
MAX_WORKER_ID = 256


def game_spec(name: str) -> games.GameSpec:
    """The spec of a registered game, or NotFoundError listing the known ones."""
    if not name:
        raise InvalidArgumentError(f"game is required; known games: {', '.join(games.names())}")
    if len(name) > MAX_ID or name not in games.names():
        raise NotFoundError(
            f"unknown game {name[:MAX_ID]!r}; known games: {', '.join(games.names())}"
        )
    return games.get(name)


def bot_name(name: str) -> str:
    """A valid bot name (the whole name: a trailing newline is not allowed either)."""
    no_nul("bot name", name[:MAX_ID])
    if not BOT_NAME.fullmatch(name):
        raise InvalidArgumentError(
            f"bad bot name {name[:MAX_ID]!r}: use 1-40 of a-z, 0-9, '_' and '-', "
            "starting with a letter or digit"
        )
    return name


def identifier(kind: str, value: str) -> str:
    """A non-empty id of bounded length, without NUL characters."""
    if not value:
        raise InvalidArgumentError(f"{kind} is required")
    if len(value) > MAX_ID:
        raise InvalidArgumentError(f"{kind} is longer than {MAX_ID} characters")
    return no_nul(kind, value)


def worker_id(value: str) -> str:
    """A worker's self-chosen id (may be empty): bounded, without NUL characters."""
    if len(value) > MAX_WORKER_ID:
        raise InvalidArgumentError(f"worker_id is longer than {MAX_WORKER_ID} characters")
    return no_nul("worker_id", value)


def bounded(kind: str, value: int, low: int, high: int) -> int:
    """``value`` within ``low..high``."""
    if not low <= value <= high:
        raise InvalidArgumentError(f"{kind} must be between {low} and {high}, not {value}")
    return value
