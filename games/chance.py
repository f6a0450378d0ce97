"""Named chance streams.

Every kind of chance in a game (a deck's shuffle, round 3's bag draw, the mouse die)
draws from its own generator, derived from ``(seed, stream name, index)``. Two games
with the same seed therefore see the same shuffles and rolls for each stream even after
the players' choices diverge (the basis of duplicate seeds), and a determinized copy
re-seeds all of them at once from a new seed.
"""

from __future__ import annotations

import hashlib
import random


def derive_seed(seed: int, name: str, index: int = 0) -> int:
    """A 64-bit seed for stream ``name``/``index`` of a game seeded with ``seed``."""
    digest = hashlib.blake2b(f"{seed}\x1f{name}\x1f{index}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


class Chance:
    """The chance source of one game: a base seed and its lazily created named streams.

    ``stream(name, index)`` returns the same generator object on every call, so a
    stream may be drawn from over several steps (a deck dealt across rounds);
    ``once(name, index)`` gives the same generator uncached, for a draw made once per
    occasion with a fresh index (``once("bag", round_no)``).
    """

    __slots__ = ("_streams", "seed")

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._streams: dict[tuple[str, int], random.Random] = {}

    def stream(self, name: str, index: int = 0) -> random.Random:
        """The generator for ``(name, index)``; created on first use."""
        key = (name, index)
        rng = self._streams.get(key)
        if rng is None:
            rng = random.Random(derive_seed(self.seed, name, index))
            self._streams[key] = rng
        return rng

    def once(self, name: str, index: int = 0) -> random.Random:
        """The generator ``stream(name, index)`` would give, for one-off use (a shuffle,
        one round's draw), not kept here: every kept stream is copied by each ``clone()``,
        which costs a Mersenne Twister state per stream on a search bot's hot path."""
        return random.Random(derive_seed(self.seed, name, index))

    def clone(self) -> Chance:
        """An independent copy: each stream continues from the same point."""
        twin = Chance(self.seed)
        for key, rng in self._streams.items():
            copy = random.Random()
            copy.setstate(rng.getstate())
            twin._streams[key] = copy
        return twin

    def reseeded(self, rng: random.Random) -> Chance:
        """A fresh source whose every stream is seeded from ``rng`` (for determinize)."""
        return Chance(rng.getrandbits(64))
