"""Seed commitments: chance fixed in advance, and shown to have been.

When a tournament is created the server publishes ``SHA-256`` of a text that lists every
match's seed, salted with a random nonce (so that a small seed cannot be found by trying them
all). Seeds stay hidden while they matter: a match's seed, decision log and replay are
published when every rotation sharing that seed (its duplicate block) is final; the tournament
seed and the nonce when the tournament is. Anyone can then recompute the commitment::

    hamlet-seeds-v1 <tournament id> <nonce>
    <match id> <seed>          (one line per match, sorted by match id)

joined by newlines (no newline at the end), as UTF-8: ``printf '%s' "$text" | sha256sum``.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable

VERSION = "hamlet-seeds-v1"


def nonce() -> str:
    """A fresh 128-bit salt, as hex."""
    return secrets.token_hex(16)


def committed_text(tournament_id: str, salt: str, seeds: Iterable[tuple[str, int]]) -> str:
    """The text whose SHA-256 is the commitment."""
    lines = [f"{VERSION} {tournament_id} {salt}"]
    lines += [f"{match_id} {seed}" for match_id, seed in sorted(seeds)]
    return "\n".join(lines)


def commitment(tournament_id: str, salt: str, seeds: Iterable[tuple[str, int]]) -> str:
    """The hex SHA-256 commitment of a tournament's match seeds."""
    return hashlib.sha256(committed_text(tournament_id, salt, seeds).encode()).hexdigest()
