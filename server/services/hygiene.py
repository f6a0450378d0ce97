"""Input hygiene at the service boundary: what no database column may receive.

PostgreSQL refuses a NUL character in any text value (SQLite stores it and truncates it in
some tools), and neither stores NaN or infinity the way a report means it. So:

* free text (a bot's stderr tail in a forfeit detail, a void reason, a description, an
  action's text) has NUL characters *stripped* where it enters: a bot that prints ``\\0``
  before crashing still forfeits, and its match is still recorded;
* names and ids *refuse* a NUL character with :class:`InvalidArgumentError`: a name is chosen
  by a person who can fix it, and a stripped id would silently name something else;
* a duration or a decision time must be a finite number of seconds, not negative.

Every check raises :class:`InvalidArgumentError` with a message that says what to change.
"""

from __future__ import annotations

import math
import re

from server.services.errors import InvalidArgumentError

NUL = "\x00"
SHA256_HEX = re.compile(r"[0-9a-fA-F]{64}")
#: The longest duration a report may claim (a day: far beyond any match's limits).
MAX_SECONDS = 86_400.0


def strip_nul(text: str) -> str:
    """``text`` without NUL characters (free text only: stderr tails, details, reasons)."""
    return text.replace(NUL, "") if NUL in text else text


def no_nul(kind: str, value: str) -> str:
    """``value`` unchanged, or InvalidArgumentError if it holds a NUL character."""
    if NUL in value:
        at = value.index(NUL)
        raise InvalidArgumentError(
            f"{kind} contains a NUL character (\\0) at position {at}; remove it"
        )
    return value


def finite_seconds(kind: str, value: float, high: float = MAX_SECONDS) -> float:
    """A finite, non-negative number of seconds no larger than ``high``."""
    if not math.isfinite(value):
        raise InvalidArgumentError(f"{kind} must be a finite number of seconds, not {value}")
    if not 0.0 <= value <= high:
        raise InvalidArgumentError(f"{kind} must be between 0 and {high:g} seconds, not {value}")
    return value


def sha256_hex(kind: str, value: str) -> str:
    """64 hexadecimal digits, lower-cased."""
    if not SHA256_HEX.fullmatch(value):
        raise InvalidArgumentError(f"{kind} must be 64 hex digits (a SHA-256), not {value[:80]!r}")
    return value.lower()


def round_robin_matches(bots: int, per_table: int, rounds: int) -> int:
    """How many matches a round robin plans, without planning it: every ``per_table``-subset
    of ``bots`` entries, in each of its ``per_table`` seat rotations, ``rounds`` times."""
    if bots < 0 or per_table < 1 or rounds < 0:
        return 0
    return math.comb(bots, per_table) * per_table * rounds
