"""The worker's token file, re-read when it changes: token rotation without a restart.

A deployment mounts one secret into the server and every worker (HAMLET_WORKER_TOKEN_FILE).
During a rotation it lists two tokens, the new one first; the server accepts both, a worker
presents the first. A worker looks at the file's modification time and size before each call
to the server (a stat, no read unless it changed), so the new token is in use from the next
call on; then the old line can go. An unreadable or empty file keeps the last good token (and
says so once), since a half-written secret must not stop the matches in progress.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

log = logging.getLogger(__name__)


def first_token(text: str) -> str:
    """The first token of a token file (blank lines and ``#`` comments skipped)."""
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return line
    return ""


class TokenFile:
    """``current()``: the file's first token, re-read when the file changed."""

    def __init__(self, path: Path, token: str) -> None:
        self.path = path
        self._token = token
        self._stamp: tuple[float, int] | None = None
        self._lock = threading.Lock()
        self._complained = False

    def current(self) -> str:
        """The token to present now."""
        try:
            st = self.path.stat()
        except OSError as exc:
            return self._keep(f"cannot stat {self.path}: {exc}")
        stamp = (st.st_mtime, st.st_size)
        with self._lock:
            if stamp == self._stamp:
                return self._token
            try:
                token = first_token(self.path.read_text(encoding="utf-8"))
            except OSError as exc:
                return self._keep(f"cannot read {self.path}: {exc}")
            if not token:
                return self._keep(f"{self.path} holds no token")
            if self._stamp is not None and token != self._token:
                log.info("worker token changed in %s: presenting the new one", self.path)
            self._token, self._stamp, self._complained = token, stamp, False
            return token

    def _keep(self, why: str) -> str:
        if not self._complained:
            log.warning("%s; keeping the token read before", why)
            self._complained = True
        return self._token
