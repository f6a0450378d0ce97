"""Seed commitments: chance fixed in advance, and shown to have been.

All of a tournament's chance comes from one seed: the seed of the table played ``t``-th in round
``r`` is :func:`table_seed` (every rotation of that table replays it), whatever the format and
even for formats that pair each round as the previous one ends. When a tournament is created the
server publishes ``SHA-256`` of the text ``hamlet-seeds-v1 <tournament id> <nonce> <seed>``, the
nonce a random salt so that a small seed cannot be found by trying them all. Seeds stay hidden
while they matter: a match's seed, decision log and replay are published when every rotation
sharing that seed is final; the tournament seed and the nonce when the tournament is over. Then
anyone can recompute the commitment (``printf '%s' "$text" | sha256sum``) and every match's seed.
"""

from __future__ import annotations

import hashlib
import secrets

from games.blocks import block_seed

VERSION = "hamlet-seeds-v1"


def nonce() -> str:
    """A fresh 128-bit salt, as hex."""
    return secrets.token_hex(16)


def committed_text(tournament_id: str, salt: str, seed: int) -> str:
    """The text whose SHA-256 is the commitment."""
    return f"{VERSION} {tournament_id} {salt} {seed}"


def commitment(tournament_id: str, salt: str, seed: int) -> str:
    """The hex SHA-256 commitment of a tournament's seed."""
    return hashlib.sha256(committed_text(tournament_id, salt, seed).encode()).hexdigest()


def table_seed(seed: int, round_no: int, tables_per_round: int, table: int) -> int:
    """The seed of the ``table``-th table of round ``round_no``."""
    return block_seed(seed, round_no * tables_per_round + table)
