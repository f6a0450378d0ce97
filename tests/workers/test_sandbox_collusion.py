"""Two colluding uploaded bots at one table: seat 0 sends, seat 1 listens, through every
channel outside the game that sandboxes on one host could share — each must carry nothing,
through a worker and in local play; what a bot can learn of the host; and the seats'
turns: one runs at a time, an opponent's load never reaches a deciding seat.

A listener that hears anything exits with status 42 (``BREACH`` on stderr): its seat would
forfeit with a crash naming the status, and the match asserts it did not.
"""

from __future__ import annotations

import hashlib
import os
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

import games
from workers import localplay, sandbox_freeze
from workers.clients import CodeCache, SeatClients
from workers.localplay import LocalPlay, prepare
from workers.model import BotKind, MatchPlan, MatchRecord, SeatPlan
from workers.pause import WorkerPausedError
from workers.play import play_plan
from workers.sandbox import SandboxedBot, SandboxLimits
from workers.sandbox_check import cached_check, missing_kernel_features
from workers.sandbox_freeze import FreezeMethod

LIMITS = SandboxLimits(cgroup_parent=os.environ.get("HAMLET_SANDBOX_CGROUP", ""))

PRELUDE = """
import ctypes, fcntl, os, random, struct, sys, threading, time
from bots.sdk import run

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
libc.syscall.restype = ctypes.c_long
SHARED = sys.executable  # the runtime: the same file (inode) in every sandbox of the host
QUIET = os.path.join(os.path.dirname(os.__file__), "antigravity.py")  # opened by nobody else
rng = random.Random(0)
TURNS = 12  # the channel is tried at the bot's first decisions (a match has over a hundred)
state = {}
keep = []

def breach(what):
    sys.stderr.write(f"BREACH: {what}\\n")
    sys.stderr.flush()
    os._exit(42)

def shared_page():
    if "page" not in state:
        fd = os.open(SHARED, os.O_RDONLY)
        state["page"] = libc.mmap(None, 4096, 1, 2, fd, 0)  # PROT_READ, MAP_PRIVATE
        os.close(fd)
    return state["page"]


def shared_fd():
    if "fd" not in state:
        state["fd"] = os.open(SHARED, os.O_RDONLY)
    return state["fd"]

def futex(addr, op, val):
    return libc.syscall(ctypes.c_long(202), ctypes.c_void_p(addr), ctypes.c_long(op),
                        ctypes.c_long(val), None)

def act():
"""
EPILOGUE = """
def decide(observation, legal):
    state["n"] = state.get("n", 0) + 1
    if state["n"] <= TURNS:
        act()
    return rng.randrange(len(legal))

run(decide)
"""

#: (what the sender does at each of its decisions, what the listener checks at each of its).
CHANNELS: dict[str, tuple[str, str]] = {
    "flock and record locks on a file both seats see": (
        """
        fd = shared_fd()
        for lock in (lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB),
                     lambda: fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)):
            try:
                lock()
            except OSError:
                pass
        """,
        """
        fd = os.open(SHARED, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            breach("the other seat's flock() is seen")
        except OSError:
            pass
        try:
            got = fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0))
            if struct.unpack("hhqqi", got)[0] != fcntl.F_UNLCK:
                breach("the other seat's record lock is seen")
        except OSError:
            pass
        os.close(fd)
        """,
    ),
    "futex on a page of a file both seats map": (
        """
        addr = shared_page()
        value = ctypes.c_uint32.from_address(addr).value
        threading.Thread(target=futex, args=(addr, 0, value), daemon=True).start()
        time.sleep(0.05)
        """,
        """
        addr = shared_page()
        woken = futex(addr, 1, 1 << 30)
        if woken > 0:
            breach(f"FUTEX_WAKE woke {woken} waiter(s) of the other seat")
        """,
    ),
    "inotify IN_OPEN on a file both seats see": (
        """
        os.close(os.open(QUIET, os.O_RDONLY))
        """,
        """
        if "ifd" not in state:
            state["ifd"] = libc.inotify_init1(os.O_NONBLOCK)
            if state["ifd"] >= 0:
                libc.inotify_add_watch(state["ifd"], QUIET.encode(), 0x20)  # IN_OPEN
        if state["ifd"] >= 0:
            try:
                if os.read(state["ifd"], 4096):
                    breach("inotify saw the other seat open a file")
            except BlockingIOError:
                pass
        """,
    ),
    "host-wide counters: /proc, sysinfo": (
        """
        end = time.process_time() + 0.1
        while time.process_time() < end:
            pass
        if len(keep) < 8:
            keep.append(bytearray(16 << 20))
            keep.append(os.open("/dev/null", os.O_RDONLY))
            if os.fork() == 0:
                time.sleep(600)
        """,
        """
        def read(path):
            try:
                with open(path, "rb") as f:
                    return f.read()
            except OSError:
                return None
        paths = ["/proc/stat", "/proc/meminfo", "/proc/loadavg", "/proc/uptime",
                 "/proc/vmstat", "/proc/interrupts", "/proc/softirqs", "/proc/schedstat",
                 "/proc/diskstats", "/proc/locks", "/proc/cpuinfo", "/proc/pressure/cpu",
                 "/proc/pressure/memory", "/proc/sys/fs/file-nr", "/proc/sys/fs/inode-nr",
                 "/proc/sys/kernel/random/entropy_avail"]
        now = {p: read(p) for p in paths}
        info = ctypes.create_string_buffer(128)
        now["sysinfo"] = info.raw[8:] if libc.sysinfo(info) == 0 else None  # past uptime
        first = state.setdefault("first", now)
        changed = [p for p in paths + ["sysinfo"] if now[p] != first[p]]
        if changed:
            breach(f"host-wide counters moved: {changed}")
        """,
    ),
}


def bot(body: str) -> bytes:
    return (PRELUDE + textwrap.indent(textwrap.dedent(body), "    ") + EPILOGUE).encode()


@pytest.fixture(scope="module", autouse=True)
def full_sandbox() -> None:
    lacking = missing_kernel_features()
    if lacking:
        pytest.skip(f"this kernel lacks what the sandbox needs: {'; '.join(lacking)}")
    report = cached_check(LIMITS)
    assert report.plays_uploaded, report.why_refused()


def _clean(record: MatchRecord) -> None:
    detail = " ".join(f.detail for f in record.forfeits)
    assert "BREACH" not in detail and "status 42" not in detail, detail
    assert not record.forfeits, detail
    assert len(record.ranks) == 2 and record.decisions


def play_pair(
    tmp_path: Path, sender: bytes, listener: bytes, decision_s: float = 1.0
) -> MatchRecord:
    codes = {hashlib.sha256(c).hexdigest(): c for c in (sender, listener)}
    seats = tuple(
        SeatPlan(i, f"seat{i}", 1, BotKind.UPLOADED, code_sha256=hashlib.sha256(c).hexdigest())
        for i, c in enumerate((sender, listener))
    )
    spec = games.get("village")
    plan = MatchPlan(f"collude-{uuid.uuid4().hex[:8]}", "village", spec.rules_version, 5, seats,
                     decision_s, 10.0)  # fmt: skip
    clients = SeatClients(CodeCache(tmp_path / "cache", codes.__getitem__), LIMITS)
    for _ in range(3):
        try:
            return play_plan(plan, clients)
        except WorkerPausedError:
            # This process did not run for a second or more while a seat decided (a host
            # busier than the test's own burners): the service voids and replays such a
            # match, and so does the test.
            continue
    raise AssertionError("the match was voided for a worker pause three times running")


@pytest.mark.parametrize("channel", sorted(CHANNELS))
def test_colluding_seats_carry_nothing_through_a_worker(tmp_path: Path, channel: str) -> None:
    send, listen = CHANNELS[channel]
    _clean(play_pair(tmp_path, bot(send), bot(listen)))


def test_colluding_seats_carry_nothing_in_local_play(tmp_path: Path) -> None:
    # Every channel at once: the sender does all, the listener checks all, in both seats.
    sender = tmp_path / "sender.py"
    sender.write_bytes(bot("\n".join(textwrap.dedent(s) for s, _ in CHANNELS.values())))
    listener = tmp_path / "listener.py"
    listener.write_bytes(bot("\n".join(textwrap.dedent(r) for _, r in CHANNELS.values())))
    request = LocalPlay(str(listener), "village", (str(sender),), 2, seed=3, players=2)
    summary = localplay.play(prepare(request), lambda _: None)
    assert summary.forfeits == () and summary.opponent_forfeits == 0, summary.forfeits


HOST_PROBE = """
with open("/proc/self/mountinfo") as f:
    mounts = f.read()
with open("/proc/1/cmdline", "rb") as f:
    init = f.read().decode(errors="replace")
for secret in SECRETS:
    if secret in mounts or secret in init:
        breach(f"{secret} is visible: {mounts if secret in mounts else init}")
if not os.path.isdir("/proc/sys") or os.listdir("/proc/sys"):
    breach(f"/proc/sys shows {os.listdir('/proc/sys')}")
"""


def test_what_the_host_shows_a_bot(tmp_path: Path) -> None:
    from workers.sandbox_layout import bwrap_path

    # Neither bubblewrap's path, nor the worker's checkout and environment (the runtime and
    # the SDK are copied into a tmpfs image: tests/workers/test_sandbox_hostpaths.py), nor its
    # code cache; the /proc masks come from no host file.
    secrets = [str(bwrap_path()), os.path.dirname(str(bwrap_path())), str(tmp_path / "cache")]
    checkout = str(Path(__file__).resolve().parents[2])
    if not Path(sys.base_prefix).resolve().is_relative_to(checkout):
        secrets.append(checkout)
    if sys.prefix != sys.base_prefix:  # a virtual environment (the SDK's grpc and protobuf)
        secrets.append(sys.prefix)
    probe = bot(f"SECRETS = {secrets!r}\n" + HOST_PROBE)
    honest = bot("pass")
    _clean(play_pair(tmp_path, honest, probe))


CPU_BURNER = """
if "kids" not in state:
    state["kids"] = 4
    for _ in range(4):
        if os.fork() == 0:
            while True:
                pass
end = time.monotonic() + 0.3
while time.monotonic() < end:
    pass
"""
#: Each decision of the honest seat is 50 ms of CPU; beside a burning neighbour that shared
#: its time, many went past the 1 s limit (26 of 60 in the report that led to the freezer).
STEADY = """
end = time.process_time() + 0.05
while time.process_time() < end:
    pass
"""


def test_a_cpu_burning_neighbour_does_not_reach_an_honest_seat(tmp_path: Path) -> None:
    steady = bot(STEADY).replace(b'if state["n"] <= TURNS:', b"if True:")
    record = play_pair(tmp_path, bot(CPU_BURNER), steady, decision_s=1.0)
    _clean(record)
    honest = [d for d in record.decisions if d.player == 1 and not d.by_fallback]
    assert len(honest) > 50
    over = [d.seconds for d in honest if d.seconds > 1.0]
    # Counts, not times: a load spike of the host may push one or two over; a neighbour
    # sharing the CPU pushed nearly half.
    assert len(over) <= len(honest) // 20, over


@pytest.mark.parametrize("by_signals", [False, True], ids=["freezer", "sigstop"])
def test_one_seat_runs_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, by_signals: bool
) -> None:
    """While one seat decides, the other's whole tree (children burning CPU included) is
    frozen: its CPU seconds do not move. With the host's freezer, and with SIGSTOP (the way
    where there is none)."""
    if by_signals:
        monkeypatch.setattr(sandbox_freeze, "method_for", lambda _: FreezeMethod.SIGSTOP)
    header = "import os, struct, sys, time\n"
    burner = tmp_path / "burner.py"
    burner.write_text(
        header + "for _ in range(3):\n    if os.fork() == 0:\n        while True: pass\n"
        "while head := sys.stdin.buffer.read(4):\n"
        "    sys.stdin.buffer.read(struct.unpack('>I', head)[0])\n"
        "    sys.stdout.buffer.write(struct.pack('>I', 2) + b'ok'); sys.stdout.buffer.flush()\n"
    )
    decider = tmp_path / "decider.py"
    decider.write_text(
        header + "while head := sys.stdin.buffer.read(4):\n"
        "    sys.stdin.buffer.read(struct.unpack('>I', head)[0])\n"
        "    end = time.process_time() + 0.05\n"
        "    while time.process_time() < end: pass\n"
        "    sys.stdout.buffer.write(struct.pack('>I', 2) + b'ok'); sys.stdout.buffer.flush()\n"
    )
    with SandboxedBot(burner, LIMITS) as a, SandboxedBot(decider, LIMITS) as b:
        assert a.cgroup is not None and b.cgroup is not None
        assert a.frozen and b.frozen  # started, then frozen until their first decision
        for _ in range(5):
            assert a.exchange(b"go", 10) == b"ok"
            b.thaw()  # what the runner does before b's clock starts: a is fully frozen now
            before = a.cgroup.cpu_seconds()
            assert b.exchange(b"go", 10) == b"ok"
            time.sleep(0.05)
            assert a.cgroup.cpu_seconds() == before  # a's children never ran meanwhile
            assert a.frozen and b.frozen


NEIGHBOUR = """
import sys, time
from pathlib import Path
from workers.sandbox import SandboxedBot, SandboxLimits
bot = SandboxedBot(Path(sys.argv[1]), SandboxLimits(cgroup_parent=sys.argv[2]))
print("up", flush=True)
bot.exchange(b"burn", 600)  # deciding (thawed) for as long as it burns
"""


def test_a_cpu_burning_neighbouring_match_does_not_reach_an_honest_seat(tmp_path: Path) -> None:
    """Another worker process's seat burning CPU while it decides (not frozen by this one):
    its cgroup's CPU bound leaves this match's seat its time."""
    import subprocess

    burner = tmp_path / "burner.py"
    burner.write_text(
        "import os, sys\nfor _ in range(4):\n    if os.fork() == 0:\n        break\n"
        "sys.stdin.buffer.read(8)\nwhile True: pass\n"
    )
    neighbour = subprocess.Popen(
        [sys.executable, "-c", NEIGHBOUR, str(burner), LIMITS.cgroup_parent],
        stdout=subprocess.PIPE,
    )
    try:
        assert neighbour.stdout is not None and neighbour.stdout.readline() == b"up\n"
        steady = bot(STEADY).replace(b'if state["n"] <= TURNS:', b"if True:")
        record = play_pair(tmp_path, bot("pass"), steady, decision_s=1.0)
    finally:
        neighbour.kill()
        neighbour.wait()
        _sweep_after(neighbour.pid)
    _clean(record)
    honest = [d for d in record.decisions if d.player == 1 and not d.by_fallback]
    over = [d.seconds for d in honest if d.seconds > 1.0]
    assert len(over) <= len(honest) // 20, over


def _sweep_after(pid: int) -> None:
    """Remove what the SIGKILLed neighbour left (as a new pool process would)."""
    from workers.cgroups import sweep_stale
    from workers.sandbox import sweep_stale_dirs

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        sweep_stale_dirs()
        sweep_stale(LIMITS.cgroup_parent)
        if not list(Path("/tmp").glob(f"hamlet-sandbox-{pid}-*")):
            break
        time.sleep(0.1)
