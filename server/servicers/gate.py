"""A cap on concurrent server streams: each open stream holds a server thread."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from server.services.errors import ResourceExhaustedError


class StreamGate:
    """At most ``cap`` streams open at once; the next one is refused, saying the cap."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._open = 0
        self._lock = threading.Lock()

    @property
    def open(self) -> int:
        """Streams open now."""
        return self._open

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Hold one place for the duration of a stream, or raise ResourceExhaustedError."""
        with self._lock:
            if self._open >= self.cap:
                raise ResourceExhaustedError(
                    f"the server already holds its cap of {self.cap} open streams "
                    "(HAMLET_MAX_STREAMS); close one or retry later"
                )
            self._open += 1
        try:
            yield
        finally:
            with self._lock:
                self._open -= 1
