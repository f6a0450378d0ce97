"""Whole-tree limits for one sandboxed bot: a cgroup per bot, v2 or v1.

A :class:`BotCgroup` is made by the worker before the bot starts; the sandbox launcher
writes its own pid into :attr:`BotCgroup.procs_files` before it execs bubblewrap, so the
bot and everything it forks are inside from the first instruction. Limits: memory (with
swap, where the host accounts swap), number of processes, and one CPU's worth of time;
CPU seconds used by the whole tree are read back for the match's CPU budget.

Where it lives: under ``HAMLET_SANDBOX_CGROUP`` when set (a directory delegated to the
worker's uid, relative to each controller's mount), else below the worker's own cgroup
(``hamlet-sandbox/``), which needs root on v1 and a delegated subtree on v2.
"""

from __future__ import annotations

import contextlib
import enum
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
V1_CONTROLLERS = ("memory", "pids", "cpu", "cpuacct")
#: v1 controllers used where the host mounts (and delegates) them: the freezer stops a seat
#: between its decisions (:mod:`workers.sandbox_freeze`; without it, SIGSTOP does).
V1_OPTIONAL = ("freezer",)
_PERIOD_US = 100_000


class CgroupVersion(enum.Enum):
    """Which cgroup hierarchy the host offers."""

    V2 = "v2"
    V1 = "v1"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class CgroupLimits:
    """Limits for the whole process tree of one bot."""

    memory_bytes: int
    processes: int
    cpus: float = 1.0


def detect_version(root: Path = CGROUP_ROOT) -> CgroupVersion:
    """v2 if the unified hierarchy is mounted at the root, v1 if the controllers are."""
    if (root / "cgroup.controllers").exists():
        return CgroupVersion.V2
    if all((root / c / "cgroup.procs").exists() for c in ("memory", "pids", "cpu")):
        return CgroupVersion.V1
    return CgroupVersion.NONE


def _own_path(controller: str) -> str:
    """This process's cgroup path in ``controller``'s hierarchy ("" for v2)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if (controller == "" and names == "") or controller in names.split(","):
            return path.lstrip("/")
    return ""


def _below_own(controller: str) -> str:
    return "/".join(p for p in (_own_path(controller), "hamlet-sandbox") if p)


def parent_dirs(version: CgroupVersion, delegated: str = "") -> dict[str, Path]:
    """Where bot cgroups are made, by controller ("" is the v2 unified directory)."""
    if version is CgroupVersion.V2:
        return {"": CGROUP_ROOT / (delegated.strip("/") or _below_own(""))}
    if version is CgroupVersion.V1:
        return {
            c: CGROUP_ROOT / c / (delegated.strip("/") or _below_own(c))
            for c in (*V1_CONTROLLERS, *V1_OPTIONAL)
            if (CGROUP_ROOT / c).is_dir()
        }
    return {}


class CgroupError(RuntimeError):
    """A bot cgroup could not be made or limited."""


class BotCgroup:
    """The cgroup(s) of one bot: made with limits, emptied and removed by :meth:`remove`."""

    def __init__(self, name: str, limits: CgroupLimits, delegated: str = "") -> None:
        self.version = detect_version()
        self.dirs: dict[str, Path] = {}
        parents = parent_dirs(self.version, delegated)
        if not parents:
            raise CgroupError("no cgroup hierarchy with memory, pids and cpu controllers")
        try:
            for controller, parent in parents.items():
                if self.version is CgroupVersion.V2:
                    _enable_v2_controllers(parent)
                try:
                    parent.mkdir(exist_ok=True)
                    path = parent / name
                    path.mkdir()
                except OSError:
                    if controller in V1_OPTIONAL:
                        continue  # not delegated to us: done without it
                    raise
                self.dirs[controller] = path
            self._limit(limits)
        except OSError as exc:
            self.remove()
            raise CgroupError(f"cannot set up the bot's cgroup: {exc}") from exc

    def _limit(self, limits: CgroupLimits) -> None:
        quota = str(int(limits.cpus * _PERIOD_US))
        if self.version is CgroupVersion.V2:
            d = self.dirs[""]
            (d / "memory.max").write_text(str(limits.memory_bytes))
            with contextlib.suppress(FileNotFoundError):
                (d / "memory.swap.max").write_text("0")
            (d / "pids.max").write_text(str(limits.processes))
            (d / "cpu.max").write_text(f"{quota} {_PERIOD_US}")
            return
        mem = self.dirs["memory"]
        (mem / "memory.limit_in_bytes").write_text(str(limits.memory_bytes))
        memsw = mem / "memory.memsw.limit_in_bytes"
        if memsw.exists():
            memsw.write_text(str(limits.memory_bytes))
        (self.dirs["pids"] / "pids.max").write_text(str(limits.processes))
        (self.dirs["cpu"] / "cpu.cfs_period_us").write_text(str(_PERIOD_US))
        (self.dirs["cpu"] / "cpu.cfs_quota_us").write_text(quota)

    @property
    def procs_files(self) -> list[str]:
        """The ``cgroup.procs`` files a process writes its pid to, to join."""
        return [str(d / "cgroup.procs") for d in self.dirs.values()]

    def pids(self) -> set[int]:
        """Every process in the bot's cgroup(s)."""
        found: set[int] = set()
        for d in self.dirs.values():
            with contextlib.suppress(OSError, ValueError):
                found |= {int(p) for p in (d / "cgroup.procs").read_text().split()}
        return found

    def cpu_seconds(self) -> float:
        """CPU time used by the whole tree so far."""
        try:
            if self.version is CgroupVersion.V2:
                for line in (self.dirs[""] / "cpu.stat").read_text().splitlines():
                    if line.startswith("usage_usec "):
                        return int(line.split()[1]) / 1e6
                return 0.0
            return int((self.dirs["cpuacct"] / "cpuacct.usage").read_text()) / 1e9
        except (OSError, KeyError, ValueError):
            return 0.0

    def memory_limit_hit(self) -> bool:
        """Whether the tree reached its memory limit (an OOM kill or a failed charge)."""
        try:
            if self.version is CgroupVersion.V2:
                events = (self.dirs[""] / "memory.events").read_text().split()
                stats = dict(zip(events[::2], events[1::2], strict=False))
                return int(stats.get("oom_kill", "0")) > 0 or int(stats.get("max", "0")) > 0
            return int((self.dirs["memory"] / "memory.failcnt").read_text()) > 0
        except (OSError, KeyError, ValueError):
            return False

    def remove(self, timeout_s: float = 5.0) -> None:
        """Kill everything in the cgroup(s) and remove them. Idempotent."""
        deadline = time.monotonic() + timeout_s
        while self.dirs:
            for pid in self.pids():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            for controller, d in list(self.dirs.items()):
                with contextlib.suppress(FileNotFoundError):
                    try:
                        d.rmdir()
                    except OSError:
                        continue  # still busy: its processes are dying
                del self.dirs[controller]
            if self.dirs and time.monotonic() > deadline:
                break
            if self.dirs:
                time.sleep(0.005)


def sweep_stale(delegated: str = "") -> int:
    """Remove bot cgroups (``bot-<pid>-...``) of worker processes that no longer exist (a
    SIGKILLed worker cannot remove its own); how many directories were removed."""
    removed = 0
    for parent in parent_dirs(detect_version(), delegated).values():
        for path in parent.glob("bot-*-*"):
            pid = path.name.split("-")[1]
            if not pid.isdigit() or Path(f"/proc/{pid}").exists():
                continue
            for victim in _pids_in(path):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(victim, signal.SIGKILL)
            with contextlib.suppress(OSError):
                path.rmdir()
                removed += 1
    return removed


def _pids_in(path: Path) -> list[int]:
    try:
        return [int(p) for p in (path / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def _enable_v2_controllers(parent: Path) -> None:
    """Make memory, pids and cpu available to the children of ``parent``."""
    above = parent.parent
    with contextlib.suppress(OSError):
        (above / "cgroup.subtree_control").write_text("+memory +pids +cpu")
    parent.mkdir(exist_ok=True)
    (parent / "cgroup.subtree_control").write_text("+memory +pids +cpu")
