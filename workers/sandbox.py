"""Run an uploaded bot in a sandboxed subprocess and exchange length-prefixed frames with it.

Isolation, in tiers that switch on when the host allows them (see docs/workers.md):

- always: its own session and process group; a clean environment; an empty temporary
  working directory; ``python -I -B`` (no user site, no ``PYTHON*`` variables); rlimits on
  CPU seconds, address space, open files, file size and core dumps; stdout read only as
  frames up to a size cap, stderr kept as a bounded tail; a deadline on every exchange;
  the whole process group killed on breach and at the end;
- when the worker runs as root: a throw-away uid (so ``RLIMIT_NPROC`` caps a fork bomb,
  and every process of that uid — even one that left the process group — is killed at the
  end), with a working directory only that uid may write;
- when the kernel allows: a new network namespace (only a downed loopback inside) and a
  new PID namespace (the bot is its PID 1: everything it spawns dies with it). Where the
  kernel does not allow one, the sandbox records a warning in :attr:`SandboxedBot.warnings`;
- always: the bot gets SIGKILL when the worker process dies (``PR_SET_PDEATHSIG``), and
  :func:`sweep_stale_dirs` removes the directories a killed worker left behind.

The limits are applied by a small launcher (:mod:`workers.sandbox_launch`, run as a script)
that then ``execve``\\s the bot's interpreter, instead of a ``preexec_fn``: the worker
process has gRPC threads, and ``preexec_fn`` is unsafe in a threaded parent.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from workers.model import BotError, ForfeitReason

_HEADER = struct.Struct(">I")
_UID_BASE = 100_000
_DIR_PREFIX = "hamlet-bot-"
_LAUNCH_TIMEOUT_S = 30.0

#: The launcher script, run by path with ``python -I -S -B`` (see its docstring).
_LAUNCHER = str(Path(__file__).with_name("sandbox_launch.py"))


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    """Resource limits of one sandboxed bot process."""

    memory_bytes: int = 1 << 30
    #: CPU seconds for the bot's whole life (one match); the per-decision deadline is separate.
    cpu_seconds: int = 600
    open_files: int = 64
    #: Processes of the sandbox uid (only enforced when the worker runs as root).
    processes: int = 32
    file_bytes: int = 16 << 20
    #: Largest answer frame accepted (DecisionResponse is a few bytes).
    max_message_bytes: int = 64 << 10
    #: How much of the bot's stderr is kept (the tail).
    stderr_bytes: int = 16 << 10
    isolate_network: bool = True
    #: Run as a throw-away uid when root; set False to keep the worker's uid.
    switch_uid: bool = True
    python: str = field(default_factory=lambda: sys.executable)


class SandboxError(RuntimeError):
    """The sandbox itself could not be set up (an infrastructure fault, not the bot's)."""


class SandboxedBot:
    """One uploaded bot process for one seat of one match.

    Use as a context manager, or call :meth:`close`; either way nothing it started is
    left running.
    """

    _counter = 0

    def __init__(self, script: Path, limits: SandboxLimits | None = None) -> None:
        self.limits = limits or SandboxLimits()
        self.warnings: list[str] = []
        self._stderr = bytearray()
        self._stdout = bytearray()
        # The pid in the name lets sweep_stale_dirs() clean up after a killed worker.
        self._root = Path(tempfile.mkdtemp(prefix=f"{_DIR_PREFIX}{os.getpid()}-"))
        self._uid = self._pick_uid()
        self._proc: subprocess.Popen[bytes] | None = None
        self._pid_namespace = False
        try:
            self._start(script)
        except BaseException:
            self.close()
            raise

    # -- life cycle -------------------------------------------------------------------

    def _pick_uid(self) -> int | None:
        if not (self.limits.switch_uid and os.geteuid() == 0):
            return None
        blocked = _not_world_usable(self.limits.python)
        if blocked:
            self.warnings.append(
                f"WARNING uid switch disabled: {blocked} is not usable by other users "
                "(install Python where other users can run it)"
            )
            return None
        SandboxedBot._counter += 1
        return _UID_BASE + (os.getpid() % (1 << 20)) * 8 + SandboxedBot._counter % 8

    def _start(self, script: Path) -> None:
        code_dir = self._root / "code"
        work_dir = self._root / "work"
        code_dir.mkdir()
        work_dir.mkdir(mode=0o700)
        bot_file = code_dir / "bot.py"
        shutil.copyfile(script, bot_file)
        bot_file.chmod(0o444)
        self._root.chmod(0o711)
        code_dir.chmod(0o555)
        if self._uid is not None:
            os.chown(work_dir, self._uid, self._uid)
        lim = self.limits
        rlimits = [
            ("RLIMIT_AS", lim.memory_bytes),
            ("RLIMIT_CPU", lim.cpu_seconds),
            ("RLIMIT_NOFILE", lim.open_files),
            ("RLIMIT_FSIZE", lim.file_bytes),
            ("RLIMIT_CORE", 0),
        ]
        if self._uid is not None:
            rlimits.append(("RLIMIT_NPROC", lim.processes))
        else:
            self.warnings.append("WARNING no uid switch: the bot keeps the worker's uid")
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(work_dir),
            "TMPDIR": str(work_dir),
            "LANG": "C.UTF-8",
            "PYTHONHASHSEED": "0",
        }
        status_r, status_w = os.pipe()
        config = {
            "net": lim.isolate_network,
            "uid": self._uid,
            "rlimits": rlimits,
            "status_fd": status_w,
            "parent": os.getpid(),
            "argv": [lim.python, "-I", "-B", str(bot_file)],
            "env": env,
        }
        try:
            self._proc = subprocess.Popen(
                [lim.python, "-I", "-S", "-B", _LAUNCHER, json.dumps(config)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=work_dir,
                env=env,
                close_fds=True,
                pass_fds=(status_w,),
                start_new_session=True,
                bufsize=0,
            )
        except OSError as exc:
            os.close(status_r)
            raise SandboxError(f"cannot start the sandbox: {exc}") from exc
        finally:
            os.close(status_w)
        raw = _read_until_eof(status_r, _LAUNCH_TIMEOUT_S)  # EOF: the bot is exec'd (or died)
        if raw is None:
            raise SandboxError(f"the sandbox launcher did not start within {_LAUNCH_TIMEOUT_S}s")
        if not raw:
            tail = self._drain_stderr_blocking()
            raise SandboxError(f"the sandbox launcher failed: {tail}")
        self.warnings.extend(json.loads(raw))
        self._pid_namespace = not any("no PID namespace" in w for w in self.warnings)
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            assert stream is not None
            os.set_blocking(stream.fileno(), False)

    def _drain_stderr_blocking(self) -> str:
        assert self._proc is not None
        with contextlib.suppress(subprocess.TimeoutExpired):
            _, err = self._proc.communicate(timeout=5)
            return err[-2000:].decode(errors="replace")
        return ""

    def close(self) -> None:
        """Kill the bot, everything it spawned, and remove its directory. Idempotent."""
        proc, self._proc = self._proc, None
        if proc is not None:
            if self._pid_namespace:
                proc.terminate()  # the launcher kills the bot and waits for its namespace
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(5)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            if self._uid is not None:
                kill_uid(self._uid)
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            proc.wait()
        shutil.rmtree(self._root, ignore_errors=True)

    def __enter__(self) -> SandboxedBot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The bot's process id while it runs."""
        return None if self._proc is None else self._proc.pid

    @property
    def uid(self) -> int | None:
        """The throw-away uid the bot runs as, if any."""
        return self._uid

    def stderr_tail(self) -> str:
        """The last bytes the bot wrote to stderr, as text without NUL characters (no
        database stores a NUL in text; the server strips them too)."""
        return self._stderr.decode(errors="replace").replace("\x00", "")

    # -- exchanging frames ----------------------------------------------------------

    def exchange(self, request: bytes, timeout_s: float) -> bytes:
        """Send one frame and read one frame back within ``timeout_s``.

        Raises :class:`BotError`: TIMEOUT past the deadline, CRASH if the process ends,
        BAD_OUTPUT for a frame over the size cap.
        """
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdout is None or proc.stderr is None:
            raise BotError(ForfeitReason.CRASH, "the bot process is not running")
        deadline = time.monotonic() + max(0.0, timeout_s)
        outgoing = memoryview(_HEADER.pack(len(request)) + request)
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ, "out")
            sel.register(proc.stderr, selectors.EVENT_READ, "err")
            sel.register(proc.stdin, selectors.EVENT_WRITE, "in")
            while True:
                answer = self._take_frame()
                if answer is not None:
                    return answer
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise BotError(ForfeitReason.TIMEOUT, f"no answer within {timeout_s:.3f}s")
                for key, _ in sel.select(remaining):
                    if key.data == "in":
                        outgoing = self._write_some(proc, outgoing)
                        if not outgoing:
                            sel.unregister(proc.stdin)
                    elif key.data == "err":
                        self._read_stderr(proc)
                    elif not self._read_stdout(proc):
                        raise BotError(ForfeitReason.CRASH, self._exit_detail(proc))

    def _take_frame(self) -> bytes | None:
        if len(self._stdout) < _HEADER.size:
            return None
        (length,) = _HEADER.unpack_from(self._stdout)
        if length > self.limits.max_message_bytes:
            raise BotError(
                ForfeitReason.BAD_OUTPUT,
                f"answer frame of {length} bytes exceeds {self.limits.max_message_bytes}",
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

    def _read_stderr(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stderr is not None
        with contextlib.suppress(BlockingIOError):
            self._stderr += os.read(proc.stderr.fileno(), 1 << 16)
            overflow = len(self._stderr) - self.limits.stderr_bytes
            if overflow > 0:
                del self._stderr[:overflow]

    def _exit_detail(self, proc: subprocess.Popen[bytes]) -> str:
        try:
            code = proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "the bot closed its output"
        if proc.stderr is not None:
            with contextlib.suppress(OSError, ValueError):
                self._read_stderr(proc)
        how = f"killed by signal {-code}" if code < 0 else f"exited with status {code}"
        tail = self.stderr_tail().strip().splitlines()[-5:]
        return f"the bot {how}" + (": " + " | ".join(tail) if tail else "")


def _read_until_eof(fd: int, timeout_s: float) -> bytes | None:
    """Everything readable from ``fd`` until EOF (then closed); ``None`` on timeout."""
    deadline = time.monotonic() + timeout_s
    data = bytearray()
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not sel.select(remaining):
                    return None
                chunk = os.read(fd, 4096)
                if not chunk:
                    return bytes(data)
                data += chunk
    finally:
        os.close(fd)


def sweep_stale_dirs(parent: Path | None = None) -> int:
    """Remove sandbox directories left by processes that no longer exist (a SIGKILLed
    worker cannot clean up after itself); how many were removed."""
    removed = 0
    for entry in Path(parent or tempfile.gettempdir()).glob(f"{_DIR_PREFIX}*-*"):
        pid = entry.name[len(_DIR_PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(entry, ignore_errors=True)
            removed += 1
    return removed


def _not_world_usable(python: str) -> str | None:
    """The first path another uid could not traverse/read to run ``python``, if any."""
    import sysconfig

    needed = [Path(os.path.realpath(python))]
    if needed[0] == Path(os.path.realpath(sys.executable)):
        # The worker's own interpreter: the bot needs its stdlib and site-packages too.
        needed.append(Path(sysconfig.get_paths()["stdlib"]))
        needed += [Path(p) for p in sys.path if p and Path(p).is_dir()]
    for target in needed:
        real = Path(os.path.realpath(target))
        for part in [*reversed(real.parents), real]:
            try:
                mode = part.stat().st_mode
            except OSError:
                continue
            want = 0o005 if part == real else 0o001
            if mode & want != want:
                return str(part)
    return None


def kill_uid(uid: int, rounds: int = 5) -> int:
    """SIGKILL every process owned by ``uid`` (repeated, to catch forks); how many were hit."""
    hit = 0
    for _ in range(rounds):
        found = processes_of_uid(uid)
        if not found:
            break
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                hit += 1
        time.sleep(0.01)
    return hit


def processes_of_uid(uid: int) -> list[int]:
    """Live (not zombie) pids whose real uid is ``uid``, from /proc."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        state = fields.get("State", "").strip()
        uids = fields.get("Uid", "").split()
        if uids and int(uids[0]) == uid and not state.startswith("Z"):
            pids.append(int(entry.name))
    return pids
