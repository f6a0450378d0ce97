"""The front's process, seen from the server: started, watched, restarted, stopped.

The server makes a private directory (0700, in the system's temporary directory: a Unix
socket's path must stay short), listens on ``server.sock`` in it, and starts
``python -m server.front`` on the public address with that socket as its backend. If the
front dies, a watcher thread starts it again on the same port; it stops with the server,
and stops by itself if the server dies (it watches its parent).
"""

from __future__ import annotations

import contextlib
import json
import logging
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from server.front import FrontConfig

log = logging.getLogger(__name__)

#: How long a front may take to listen before the server gives up starting.
START_SECONDS = 60.0


class FrontError(RuntimeError):
    """The front process could not be started."""


#: The longest path of a Unix socket (sun_path holds 108 bytes with its NUL).
_SOCKET_PATH_MAX = 107


def private_socket_dir() -> Path:
    """A new directory only this user can enter, for the server's private socket: in the
    temporary directory, or in /tmp when that one's path is too long for a socket."""
    for parent in (tempfile.gettempdir(), "/tmp"):
        if len(parent) + len("/hamlet-12345678/server.sock") > _SOCKET_PATH_MAX:
            continue
        with contextlib.suppress(OSError):
            return Path(tempfile.mkdtemp(prefix="hamlet-", dir=parent))
    raise FrontError(
        f"no place for the server's private socket: {tempfile.gettempdir()} is too long a "
        "path for a Unix socket and /tmp cannot be written; set TMPDIR to a short writable "
        "directory, or HAMLET_FRONT=no"
    )


class FrontProcess:
    """One ``python -m server.front`` child, kept running until :meth:`stop`."""

    def __init__(self, config: FrontConfig, workdir: Path) -> None:
        self.config = config
        self.workdir = workdir
        self.port = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._stopping = threading.Event()
        self._watcher = threading.Thread(target=self._watch, name="hamlet-front", daemon=True)

    def start(self) -> int:
        """Start the front; returns the public port it listens on."""
        self.port = self._spawn(self.config.listen)
        self._watcher.start()
        return self.port

    def _argv(self, listen: str, port_file: Path) -> list[str]:
        config = self.config
        argv = [
            sys.executable,
            "-m",
            "server.front",
            "--listen",
            listen,
            "--backend",
            config.backend,
            "--port-file",
            str(port_file),
            "--max-workers",
            str(config.max_workers),
        ]
        if not config.public_reads:
            argv.append("--no-public-reads")
        if config.tls_cert is not None and config.tls_key is not None:
            argv += ["--tls-cert", str(config.tls_cert), "--tls-key", str(config.tls_key)]
        return argv

    def _spawn(self, listen: str) -> int:
        port_file = self.workdir / "front.port"
        port_file.unlink(missing_ok=True)
        log_file = (self.workdir / "front.log").open("ab")
        try:
            self._proc = subprocess.Popen(
                self._argv(listen, port_file), stdout=log_file, stderr=subprocess.STDOUT
            )
        finally:
            log_file.close()
        deadline = time.monotonic() + START_SECONDS
        while not port_file.exists():
            if self._proc.poll() is not None or time.monotonic() > deadline:
                self._kill()
                tail = (self.workdir / "front.log").read_text(errors="replace")[-2000:]
                raise FrontError(f"the front could not listen on {listen}: {tail.strip()}")
            time.sleep(0.05)
        return int(port_file.read_text())

    def _watch(self) -> None:
        while not self._stopping.wait(1.0):
            proc = self._proc
            if proc is None or proc.poll() is None:
                continue
            host = self.config.listen.rpartition(":")[0]
            log.error("the front process exited (status %s); starting it again", proc.returncode)
            try:
                self._spawn(f"{host}:{self.port}")
            except FrontError as exc:
                log.error("%s; trying again", exc)

    def _kill(self) -> None:
        proc = self._proc
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def refused(self) -> dict[str, int]:
        """The front's own refusals by reason, as it last wrote them (about once a second;
        counted from the front's last start)."""
        try:
            data = json.loads((self.workdir / "front.stats").read_text())
            return {str(k): int(v) for k, v in data["refused"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return {}

    def stop(self) -> None:
        """Stop the front (its open calls end) and remove the private directory."""
        self._stopping.set()
        self._kill()
        with contextlib.suppress(RuntimeError):
            self._watcher.join(5)
        shutil.rmtree(self.workdir, ignore_errors=True)
