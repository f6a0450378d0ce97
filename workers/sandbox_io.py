"""The worker's side of a sandboxed bot process: frames in and out, a bounded stderr, and
a clean-up that leaves nothing behind. :class:`workers.sandbox.SandboxedBot` builds on it.
"""

from __future__ import annotations

import contextlib
import os
import select
import selectors
import signal
import struct
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from workers.model import BotError, ForfeitReason
from workers.sandbox_procs import kill_uid, remove_tree

if TYPE_CHECKING:
    from workers.cgroups import BotCgroup

_HEADER = struct.Struct(">I")
#: How often a waiting exchange checks the tree's CPU seconds.
_CPU_CHECK_S = 0.25


class BotProcess:
    """A started bot process (the launcher, then bubblewrap, then the bot)."""

    cgroup: BotCgroup | None = None
    stderr_budget: int = 0
    cpu_budget_s: float = 0.0

    def __init__(self, root: Path, uid: int | None, max_message: int, stderr_keep: int) -> None:
        self.root = root
        self.uid = uid
        self._max_message = max_message
        self._stderr_keep = stderr_keep
        self._stderr = bytearray()
        self._stderr_read = 0
        self._stdout = bytearray()
        self._proc: subprocess.Popen[bytes] | None = None

    def spawn(self, argv: Sequence[str], pass_fds: Sequence[int], cwd: Path) -> None:
        """Start ``argv`` in a new session with pipes for stdin, stdout and stderr."""
        self._proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={},
            close_fds=True,
            pass_fds=tuple(pass_fds),
            start_new_session=True,
            bufsize=0,
        )
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            assert stream is not None
            os.set_blocking(stream.fileno(), False)

    def drain_stderr(self) -> str:
        """Wait briefly for the process to end; the last of its stderr (start-up faults)."""
        proc = self._proc
        if proc is None:
            return ""
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5)
        self._read_stderr(proc, force=True)
        return self.stderr_tail()[-2000:].strip()

    def close(self) -> None:
        """Kill the bot, everything it spawned; remove its cgroup and directory. Idempotent."""
        proc, self._proc = self._proc, None
        if proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        if self.cgroup is not None:
            self.cgroup.remove()
        if self.uid is not None:
            kill_uid(self.uid)
        if proc is not None:
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            proc.wait()
        remove_tree(self.root)

    def __enter__(self) -> BotProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The process id of the sandbox (bubblewrap's, or the bot's in insecure mode)."""
        return None if self._proc is None else self._proc.pid

    def stderr_tail(self) -> str:
        """The last bytes the bot wrote to stderr, as text without NUL characters (no
        database stores a NUL in text; the server strips them too)."""
        return self._stderr.decode(errors="replace").replace("\x00", "")

    def stderr_mark(self) -> int:
        """Bytes of stderr read from the bot so far, after reading what is waiting (a trace
        takes the difference of two marks as one decision's stderr)."""
        proc = self._proc
        if proc is not None and proc.stderr is not None:
            with contextlib.suppress(OSError, ValueError):
                while select.select([proc.stderr], [], [], 0)[0]:
                    before = self._stderr_read
                    self._read_stderr(proc)
                    if self._stderr_read == before:
                        break
        return self._stderr_read

    def cpu_seconds(self) -> float:
        """CPU seconds used by the bot's whole process tree (0 without a cgroup)."""
        return 0.0 if self.cgroup is None else self.cgroup.cpu_seconds()

    # -- exchanging frames ----------------------------------------------------------

    def exchange(self, request: bytes, timeout_s: float) -> bytes:
        """Send one frame and read one frame back within ``timeout_s``.

        Raises :class:`BotError`: TIMEOUT past the deadline or the tree's CPU budget,
        CRASH if the process ends, BAD_OUTPUT for a frame over the size cap.
        """
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdout is None or proc.stderr is None:
            raise BotError(ForfeitReason.CRASH, "the bot process is not running")
        deadline = time.monotonic() + max(0.0, timeout_s)
        outgoing = memoryview(_HEADER.pack(len(request)) + request)
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ, "out")
            if self._stderr_read < self.stderr_budget:
                sel.register(proc.stderr, selectors.EVENT_READ, "err")
            sel.register(proc.stdin, selectors.EVENT_WRITE, "in")
            while True:
                answer = self._take_frame()
                if answer is not None:
                    return answer
                self._check_cpu()
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise BotError(ForfeitReason.TIMEOUT, f"no answer within {timeout_s:.3f}s")
                for key, _ in sel.select(min(remaining, _CPU_CHECK_S)):
                    if key.data == "in":
                        outgoing = self._write_some(proc, outgoing)
                        if not outgoing:
                            sel.unregister(proc.stdin)
                    elif key.data == "err":
                        self._read_stderr(proc)
                        if self._stderr_read >= self.stderr_budget:
                            sel.unregister(proc.stderr)  # a flood now blocks the bot only
                    elif not self._read_stdout(proc):
                        raise BotError(ForfeitReason.CRASH, self._exit_detail(proc))

    def _check_cpu(self) -> None:
        used = self.cpu_seconds()
        if self.cpu_budget_s and used > self.cpu_budget_s:
            raise BotError(
                ForfeitReason.TIMEOUT,
                f"used {used:.1f} CPU seconds (whole process tree); the budget is "
                f"{self.cpu_budget_s:.0f}",
            )

    def _take_frame(self) -> bytes | None:
        if len(self._stdout) < _HEADER.size:
            return None
        (length,) = _HEADER.unpack_from(self._stdout)
        if length > self._max_message:
            start = bytes(self._stdout[:40])
            if _looks_like_text(start):
                # A length header that spells letters: the bot printed to stdout.
                raise BotError(
                    ForfeitReason.BAD_OUTPUT,
                    "wrote text to stdout (print?): stdout carries the protocol's frames, so "
                    f"print to stderr instead; first bytes: {start.decode(errors='replace')!r}",
                )
            raise BotError(
                ForfeitReason.BAD_OUTPUT,
                f"answer frame of {length} bytes exceeds {self._max_message}",
            )
        end = _HEADER.size + length
        if len(self._stdout) < end:
            return None
        frame = bytes(self._stdout[_HEADER.size : end])
        del self._stdout[:end]
        return frame

    def _write_some(self, proc: subprocess.Popen[bytes], data: memoryview) -> memoryview:
        assert proc.stdin is not None
        try:
            written = os.write(proc.stdin.fileno(), data)
        except BlockingIOError:
            return data
        except (BrokenPipeError, ConnectionResetError):
            raise BotError(ForfeitReason.CRASH, self._exit_detail(proc)) from None
        return data[written:]

    def _read_stdout(self, proc: subprocess.Popen[bytes]) -> bool:
        assert proc.stdout is not None
        try:
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
        except BlockingIOError:
            return True
        self._stdout += chunk
        return bool(chunk)

    def _read_stderr(self, proc: subprocess.Popen[bytes], force: bool = False) -> None:
        if proc.stderr is None or (self._stderr_read >= self.stderr_budget and not force):
            return
        with contextlib.suppress(BlockingIOError, OSError, ValueError):
            chunk = os.read(proc.stderr.fileno(), 1 << 16)
            self._stderr_read += len(chunk)
            self._stderr += chunk
            overflow = len(self._stderr) - self._stderr_keep
            if overflow > 0:
                del self._stderr[:overflow]

    def _exit_detail(self, proc: subprocess.Popen[bytes]) -> str:
        try:
            code = proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "the bot closed its output"
        self._read_stderr(proc, force=True)
        if code < 0:
            how = f"killed by signal {-code}"
        elif code > 128 and self.cgroup is not None:  # bubblewrap: 128 + the bot's signal
            how = f"killed by signal {code - 128}"
        elif code == 0:
            how = "exited with status 0 before answering: does the file call bots.sdk.run(decide)?"
        else:
            how = f"exited with status {code}"
        if self.cgroup is not None and self.cgroup.memory_limit_hit():
            how += " (the memory limit of its process tree was reached)"
        tail = self.stderr_tail().strip().splitlines()[-5:]
        return f"the bot {how}" + (": " + " | ".join(tail) if tail else "")


def _looks_like_text(data: bytes) -> bool:
    """Whether bytes read as printable text (a stray ``print`` rather than a frame)."""
    try:
        text = data.decode()
    except UnicodeDecodeError:
        return False
    return len(text) >= 4 and all(c.isprintable() or c in "\n\r\t" for c in text)
