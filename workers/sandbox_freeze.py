"""One seat runs at a time: a sandboxed bot's whole process tree is frozen while it is not
deciding.

A :class:`Freezer` stops every process in one bot's cgroup — with the cgroup freezer where
the host has one (v2 ``cgroup.freeze``, v1 ``freezer.state``), else with ``SIGSTOP`` of
each process, repeated until none is left running — and lets them go again. A frozen tree
takes no CPU and answers nothing: two seats of a match never run together, so neither
can time the other's load, and an opponent's work cannot slow a seat's decision.

Freezing is begun when a bot has answered (:meth:`Freezer.begin`, a write: it returns at
once) and completed before any other seat of this process is thawed
(:func:`settle_others`): the waiting is done off every bot's clock, in the runner's step
that wakes the next seat before its clock starts.
"""

from __future__ import annotations

import contextlib
import enum
import os
import signal
import time
import weakref
from collections.abc import Callable
from pathlib import Path

from workers.cgroups import BotCgroup, CgroupVersion

#: How long a tree may take to freeze before the bot is given up on (killed, and its next
#: decision a crash): a tree that cannot be stopped must not run beside another seat.
FREEZE_TIMEOUT_S = 5.0
_POLL_S = 0.0005
#: After start, a bot runs (alone: every other seat is frozen) until its tree has used no CPU
#: for ``IDLE_S`` (its imports done, waiting for its first request), at most ``SETTLE_S``;
#: then it is frozen until its first decision.
IDLE_S, SETTLE_S = 0.02, 3.0


class FreezeMethod(enum.Enum):
    """How a bot's tree is frozen on this host."""

    CGROUP2 = "cgroup v2 freezer"
    CGROUP1 = "cgroup v1 freezer"
    SIGSTOP = "SIGSTOP of every process"


class FreezeError(RuntimeError):
    """A bot's tree did not freeze in time."""


def method_for(cgroup: BotCgroup) -> FreezeMethod:
    """The best way to freeze ``cgroup``'s processes here."""
    if cgroup.version is CgroupVersion.V2 and (cgroup.dirs[""] / "cgroup.freeze").exists():
        return FreezeMethod.CGROUP2
    if "freezer" in cgroup.dirs:
        return FreezeMethod.CGROUP1
    return FreezeMethod.SIGSTOP


class Freezer:
    """Freezes and thaws the processes of one bot's cgroup."""

    def __init__(self, cgroup: BotCgroup, give_up: Callable[[str], None]) -> None:
        self._cgroup = cgroup
        #: Called with the reason when the tree will not freeze (the bot must be killed).
        self.give_up = give_up
        self.method = method_for(cgroup)
        self.frozen = False
        #: Whether :meth:`begin` was called and :meth:`wait` has not confirmed it yet.
        self.pending = False

    def begin(self) -> None:
        """Start freezing the tree (returns at once; :meth:`wait` confirms)."""
        if self.method is FreezeMethod.CGROUP2:
            (self._cgroup.dirs[""] / "cgroup.freeze").write_text("1")
        elif self.method is FreezeMethod.CGROUP1:
            (self._cgroup.dirs["freezer"] / "freezer.state").write_text("FROZEN")
        else:
            self._signal_all(signal.SIGSTOP)
        self.frozen, self.pending = True, True
        _pending.add(self)

    def wait(self, timeout_s: float = FREEZE_TIMEOUT_S) -> None:
        """Return once no process of the tree can run; :class:`FreezeError` past the timeout."""
        deadline = time.monotonic() + timeout_s
        while not self._is_frozen():
            if time.monotonic() > deadline:
                raise FreezeError(f"the bot's processes did not freeze within {timeout_s}s")
            if self.method is FreezeMethod.SIGSTOP:
                self._signal_all(signal.SIGSTOP)  # a child forked meanwhile
            time.sleep(_POLL_S)
        self.pending = False
        _pending.discard(self)

    def freeze(self) -> None:
        """Freeze the tree and wait until it is frozen."""
        self.begin()
        self.wait()

    def thaw(self) -> None:
        """Let the tree run again."""
        self.pending = False
        _pending.discard(self)
        if not self.frozen:
            return
        with contextlib.suppress(OSError):  # the cgroup is already gone: nothing to thaw
            if self.method is FreezeMethod.CGROUP2:
                (self._cgroup.dirs[""] / "cgroup.freeze").write_text("0")
            elif self.method is FreezeMethod.CGROUP1:
                (self._cgroup.dirs["freezer"] / "freezer.state").write_text("THAWED")
        if self.method is FreezeMethod.SIGSTOP:
            self._signal_all(signal.SIGCONT)
        self.frozen = False

    def _is_frozen(self) -> bool:
        try:
            if self.method is FreezeMethod.CGROUP2:
                events = (self._cgroup.dirs[""] / "cgroup.events").read_text().split()
                return dict(zip(events[::2], events[1::2], strict=False)).get("frozen") == "1"
            if self.method is FreezeMethod.CGROUP1:
                state = (self._cgroup.dirs["freezer"] / "freezer.state").read_text().strip()
                return state == "FROZEN"
        except OSError:
            return True  # the cgroup is gone: nothing of it runs
        return all(_stopped(pid) for pid in self._cgroup.pids())

    def _signal_all(self, sig: signal.Signals) -> None:
        for pid in self._cgroup.pids():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)


def _stopped(pid: int) -> bool:
    """Whether ``pid`` is stopped (or gone, or a zombie: it runs nothing either)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    state = stat.rsplit(")", 1)[1].split()[0]
    return state in ("T", "t", "Z", "X")


#: Freezes begun and not yet confirmed, in this process (a worker plays one match at a time).
_pending: weakref.WeakSet[Freezer] = weakref.WeakSet()


def settle_others(keep: Freezer | None) -> None:
    """Complete every freeze begun in this process but ``keep``'s; a tree that will not
    freeze is given up on (its bot killed: it must not run beside the seat about to)."""
    for freezer in list(_pending):
        if freezer is keep:
            continue
        try:
            freezer.wait()
        except FreezeError as exc:
            _pending.discard(freezer)
            freezer.give_up(str(exc))


def settle_start(cgroup: BotCgroup) -> None:
    """Let a bot that just started finish starting, alone (every other seat's freeze is
    completed first), until its tree is idle: its imports are not charged to its first
    decision, and it never runs beside another seat."""
    settle_others(None)
    deadline = time.monotonic() + SETTLE_S
    used = cgroup.cpu_seconds()
    while time.monotonic() < deadline:
        time.sleep(IDLE_S)
        now = cgroup.cpu_seconds()
        if now == used:
            return
        used = now
