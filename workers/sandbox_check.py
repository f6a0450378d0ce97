"""Which sandbox guarantees this host gives, checked by running a probe bot in the sandbox.

``hamlet worker --check-sandbox`` prints :func:`check` as held/missing lines; a worker runs
the same check at start-up (logged, and the tier exported as a metric label) and before
its first uploaded bot. In strict mode a worker missing any guarantee refuses uploaded bots
(the match is voided with the reason); ``HAMLET_SANDBOX=insecure`` runs them without the
sandbox and marks their matches unrated.
"""

from __future__ import annotations

import enum
import errno
import functools
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bots.archive import Runtime
from workers.cgroups import CgroupVersion, detect_version
from workers.sandbox import SandboxedBot, SandboxLimits, SandboxMode
from workers.sandbox_layout import SANDBOX_UID, bwrap_path, python_prefix, runtime_binary
from workers.sandbox_procs import PARENT_PREFIX, sandbox_base

_PROBE = Path(__file__).with_name("sandbox_probe.py")
#: What / may hold: a runtime outside /usr is copied under /opt/hamlet, never bound at its path.
_ALLOWED_ROOT = {"bin", "bot", "dev", "etc", "lib", "lib32", "lib64", "libx32", "opt", "proc"}
_ALLOWED_ROOT |= {"sbin", "tmp", "usr"}


class Guarantee(enum.Enum):
    """One thing the sandbox promises about an uploaded bot."""

    BUBBLEWRAP = "bubblewrap is installed and builds the sandbox"
    IDENTITY = "the bot is nobody: an unprivileged user namespace (and a throw-away uid as root)"
    NO_PRIVILEGES = "no capabilities, PR_SET_NO_NEW_PRIVS"
    SECCOMP = "seccomp allow-list: x86-64 only; namespaces, mounts, ptrace, bpf, AIO... refused"
    MOUNTS = "own mount namespace: minimal read-only root, host files not visible"
    PID = "own PID namespace and /proc: no other process visible, none outlives the bot"
    NETWORK = "empty network namespace: loopback only"
    TMPFS = "private size-limited tmpfs as /tmp and working directory"
    TREE_LIMITS = "memory, process and CPU limits for the whole process tree (cgroup)"
    SEATS_FROZEN = "one seat runs at a time: a seat not deciding is frozen, its whole tree"
    CHANNELS_CLOSED = "no state shared by seats: locks, inotify, shared futexes; /proc masked"
    HOST_PATHS = "host paths hidden: mount table, PID 1 and cgroup name no host directory"


class SandboxTier(enum.Enum):
    """What an uploaded bot runs in (a metric label: a closed set)."""

    BWRAP_CGROUP2 = "bwrap-cgroup2"
    BWRAP_CGROUP1 = "bwrap-cgroup1"
    INSECURE = "insecure"
    #: Strict mode without every guarantee: uploaded bots are refused.
    REFUSED = "refused"


@dataclass(frozen=True, slots=True)
class SandboxReport:
    """The outcome of :func:`check`."""

    tier: SandboxTier
    held: tuple[tuple[Guarantee, str], ...]
    missing: tuple[tuple[Guarantee, str], ...]

    @property
    def plays_uploaded(self) -> bool:
        """Whether this worker may run uploaded bots at all."""
        return self.tier is not SandboxTier.REFUSED

    @property
    def unrated(self) -> bool:
        """Whether matches with uploaded bots must be marked unrated."""
        return self.tier is SandboxTier.INSECURE

    def why_refused(self) -> str:
        """One line naming the missing guarantees (empty if none is missing)."""
        by_reason: dict[str, list[str]] = {}
        for g, why in self.missing:
            by_reason.setdefault(why, []).append(g.name.lower())
        return "; ".join(f"{', '.join(names)}: {why}" for why, names in by_reason.items())

    def lines(self) -> list[str]:
        """Human-readable lines, one per guarantee, then the tier."""
        out = [f"held     {g.name.lower():<15} {g.value} ({why})" for g, why in self.held]
        out += [f"MISSING  {g.name.lower():<15} {g.value}: {why}" for g, why in self.missing]
        out.append(f"sandbox tier: {self.tier.value}")
        if self.tier is SandboxTier.REFUSED:
            out.append("this worker refuses uploaded bots (HAMLET_SANDBOX=insecure for local use)")
        elif self.tier is SandboxTier.INSECURE:
            out.append("HAMLET_SANDBOX=insecure: uploaded bots run unsandboxed, matches unrated")
        return out


def _probe(limits: SandboxLimits) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.py"
        probe.write_bytes(_PROBE.read_bytes())
        bot = SandboxedBot(probe, limits)
        with bot:
            facts: dict[str, object] = json.loads(bot.exchange(b"probe", 30))
            facts["frozen"] = bot.freeze_now()
            pids = bot.cgroup.pids() if bot.cgroup else set()
            facts["cgroup_pids"] = bool(pids)
            facts["host_uid"] = bot.uid
            facts["host_uids"] = sorted({_real_uid(pid) for pid in pids} - {-1})
            return facts


def _real_uid(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("Uid:"):
                return int(line.split()[1])
    except OSError:
        pass
    return -1


def host_paths(limits: SandboxLimits) -> list[str]:
    """Host directories a bot must not learn: the worker's code, its Python (environment and
    installation), node's installation, its temporary directory and the sandbox directories
    in it, bubblewrap's, the homes. A directory under ``/usr`` is not one: the sandbox shows
    ``/usr`` itself (and ``/tmp`` is its own)."""
    found = [Path(__file__).resolve().parents[1], Path(sys.prefix), Path(sys.base_prefix)]
    found += [python_prefix(limits.python), Path(os.path.realpath(limits.python)).parent]
    node = runtime_binary(Runtime.NODE, limits.python)
    if node:
        found.append(Path(node).parent.parent)
    bwrap = bwrap_path()
    if bwrap:
        found += [Path(bwrap).parent, Path(os.path.realpath(bwrap)).parent]
    found += [Path(tempfile.gettempdir()), sandbox_base(), Path("/root"), Path("/home")]
    out = {str(p) for p in found if not p.is_relative_to("/usr") and str(p) not in ("/", "/tmp")}
    return [*sorted(out), PARENT_PREFIX]


def visible_host_paths(view: Mapping[str, str], secrets: list[str]) -> list[str]:
    """``"file: path"`` for every secret (a whole path, or a path above another) that a
    text of ``view`` (file name -> what the bot read there) shows."""
    out = []
    for name, text in view.items():
        for secret in secrets:
            tail = "" if secret.endswith("-") else r"(?=[/\s\x00,]|$)"
            if re.search(re.escape(secret) + tail, text):
                out.append(f"{name}: {secret}")
    return out


def _judge(facts: dict[str, object], limits: SandboxLimits) -> dict[Guarantee, str | None]:
    """For each guarantee: None if held, else why not."""
    root = set(facts["root"])  # type: ignore[call-overload]
    outer = facts["host_uids"]
    eperm = 1
    shown = visible_host_paths(facts["host_view"], host_paths(limits))  # type: ignore[arg-type]
    expected = [facts["host_uid"] if os.geteuid() == 0 else os.geteuid()]
    return {
        Guarantee.IDENTITY: None
        if facts["uid"] == SANDBOX_UID and outer == expected and 0 not in outer  # type: ignore[operator]
        else f"uid {facts['uid']} inside, {outer} on the host",
        Guarantee.NO_PRIVILEGES: None
        if facts["cap_eff"] == 0 and facts["cap_bnd"] == 0 and facts["no_new_privs"]
        else "the bot keeps capabilities or may gain privileges",
        Guarantee.SECCOMP: None
        if facts["seccomp"] == "2" and facts["unshare_errno"] == eperm == facts["setns_errno"]
        else f"seccomp mode {facts['seccomp']!r}, unshare errno {facts['unshare_errno']}",
        Guarantee.MOUNTS: None
        if root <= _ALLOWED_ROOT and not facts["root_writable"] and "work" not in root
        else f"the bot sees / = {sorted(root)}",
        Guarantee.PID: None
        if len(facts["pids"]) <= 3  # type: ignore[arg-type]
        else f"the bot sees {len(facts['pids'])} processes",  # type: ignore[arg-type]
        Guarantee.NETWORK: None
        if facts["interfaces"] == ["lo"]
        else f"interfaces {facts['interfaces']}",
        Guarantee.TMPFS: None
        if facts["tmp_bytes"] == limits.tmpfs_bytes and facts["tmp_writable"]
        else f"/tmp has {facts['tmp_bytes']} bytes",
        Guarantee.TREE_LIMITS: None if facts["cgroup_pids"] else "the bot was not in its cgroup",
        Guarantee.SEATS_FROZEN: None if facts["frozen"] else "the bot's tree could not be frozen",
        Guarantee.CHANNELS_CLOSED: None
        if facts["flock_errno"] == facts["inotify_errno"] == facts["io_setup_errno"] == eperm
        and facts["futex_shared_errno"] == errno.EAGAIN
        and facts["proc_stat_masked"]
        and facts["proc_sys"] == []
        else "a channel is open: "
        + ", ".join(
            f"{k}={facts[k]}"
            for k in ("flock_errno", "inotify_errno", "io_setup_errno", "futex_shared_errno")
        )
        + f", /proc/stat masked: {facts['proc_stat_masked']}",
        Guarantee.HOST_PATHS: None if not shown else "the bot sees " + "; ".join(shown[:3]),
    }


def _bwrap_version(path: str) -> str:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"unusable: {exc}"
    return out.stdout.decode().strip()


def check(limits: SandboxLimits | None = None) -> SandboxReport:
    """Run the probe bot in the sandbox and judge every guarantee."""
    limits = limits or SandboxLimits()
    if limits.mode is SandboxMode.INSECURE:
        return SandboxReport(SandboxTier.INSECURE, (), ())
    version = detect_version()
    tier = SandboxTier.BWRAP_CGROUP2 if version is CgroupVersion.V2 else SandboxTier.BWRAP_CGROUP1
    bwrap = bwrap_path()
    if bwrap is None or not os.access(bwrap, os.X_OK):
        why = "bubblewrap is not installed" if bwrap is None else f"no bubblewrap at {bwrap}"
        return SandboxReport(SandboxTier.REFUSED, (), tuple((g, why) for g in Guarantee))
    held = [(Guarantee.BUBBLEWRAP, f"{bwrap}: {_bwrap_version(bwrap)}")]
    try:
        facts = _probe(limits)
        verdicts = _judge(facts, limits)
    except Exception as exc:  # whatever went wrong, the sandbox is not there: fail closed
        lines = [line for line in str(exc).splitlines() if line.strip()]
        why = lines[-1].strip() if lines else type(exc).__name__
        missing = tuple((g, f"the sandbox cannot start: {why}") for g in Guarantee)
        return SandboxReport(SandboxTier.REFUSED, (), missing)
    held += [(g, _held_detail(g, facts, version)) for g, why in verdicts.items() if why is None]
    missing2 = tuple((g, why) for g, why in verdicts.items() if why is not None)
    return SandboxReport(SandboxTier.REFUSED if missing2 else tier, tuple(held), missing2)


def _held_detail(g: Guarantee, facts: dict[str, object], version: CgroupVersion) -> str:
    if g is Guarantee.IDENTITY:
        host = facts["host_uid"]
        return f"uid {SANDBOX_UID} inside" + (f", uid {host} on the host" if host else "")
    if g is Guarantee.TREE_LIMITS:
        return f"cgroup {version.value}"
    if g is Guarantee.SEATS_FROZEN:
        return str(facts["frozen"])
    if g is Guarantee.HOST_PATHS:
        return f"{len(facts['host_view'])} files of /proc read"  # type: ignore[arg-type]
    if g is Guarantee.TMPFS:
        return f"{int(str(facts['tmp_bytes'])) >> 20} MiB"
    return "checked"


def available_runtimes(limits: SandboxLimits) -> list[str]:
    """The runtimes uploaded bots can name on this worker."""
    if limits.mode is SandboxMode.INSECURE:
        return [Runtime.PYTHON3.value]
    return [r.value for r in Runtime if runtime_binary(r, limits.python) is not None]


def missing_kernel_features() -> list[str]:
    """What the kernel lacks for the strict sandbox (empty: the sandbox should work here)."""
    missing = []
    for knob in (
        "/proc/sys/user/max_user_namespaces",
        "/proc/sys/kernel/unprivileged_userns_clone",
    ):
        try:
            if int(Path(knob).read_text()) == 0:
                missing.append(f"user namespaces are disabled ({knob} is 0)")
        except (OSError, ValueError):
            continue
    if not Path("/proc/self/ns/user").exists():
        missing.append("the kernel has no user namespaces")
    if "Seccomp:" not in Path("/proc/self/status").read_text():
        missing.append("the kernel has no seccomp")
    if detect_version() is CgroupVersion.NONE:
        missing.append("no cgroup hierarchy with the memory, pids and cpu controllers")
    return missing


@functools.lru_cache(maxsize=4)
def cached_check(limits: SandboxLimits) -> SandboxReport:
    """:func:`check`, once per process and limits."""
    return check(limits)
