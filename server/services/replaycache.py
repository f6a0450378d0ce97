"""A bounded, least-recently-used cache of immutable values, counted in bytes, computing each
missing value once however many callers ask for it at the same time.

Replays (:mod:`server.servicers.replay_pages`) are cached by match id once the match is final:
nothing can change them, so an entry never goes stale, and the bound is the only reason one
leaves.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ByteLRU(Generic[K, V]):
    """Values with their sizes; the least recently used leave first once the total passes
    ``max_bytes``. A value larger than the whole budget is computed and returned, never kept.
    Thread-safe; concurrent misses for one key compute it once (the others wait for it)."""

    def __init__(self, max_bytes: int) -> None:
        if max_bytes < 0:
            raise ValueError(f"max_bytes must not be negative, not {max_bytes}")
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._computing: dict[K, threading.Lock] = {}
        self.bytes = 0
        #: Values computed (misses) and served from the cache (hits), since start.
        self.computed = 0
        self.hits = 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def get(self, key: K) -> V | None:
        """The cached value (now the most recently used), or None."""
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return found[0]

    def get_or_compute(self, key: K, compute: Callable[[], tuple[V, int]]) -> V:
        """The cached value, or ``compute()``'s (value, size in bytes), kept if it fits."""
        found = self.get(key)
        if found is not None:
            return found
        with self._lock:
            flight = self._computing.setdefault(key, threading.Lock())
        with flight:  # one caller computes; the others find its value
            found = self.get(key)
            if found is not None:
                return found
            try:
                value, size = compute()
                with self._lock:
                    self.computed += 1
                self.put(key, value, size)
                return value
            finally:
                with self._lock:
                    if self._computing.get(key) is flight:
                        del self._computing[key]

    def put(self, key: K, value: V, size: int) -> None:
        """Keep ``value`` (``size`` bytes), evicting the least recently used to fit."""
        if size > self.max_bytes:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            self._items[key] = (value, size)
            self.bytes += size
            while self.bytes > self.max_bytes:
                _, (_, dropped) = self._items.popitem(last=False)
                self.bytes -= dropped
