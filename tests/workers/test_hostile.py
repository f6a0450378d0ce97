"""The hostile-bot suite: one uploaded bot per attack, each played in a real match.

Seat 0 is the attacker, seat 1 an honest uploaded bot (``bots/examples/random_uploaded.py``)
in a sandbox of its own. A bot whose attack *works* says so by exiting with status 42
(``BREACH`` on stderr), which would show as a crash naming the status. Every test asserts:
containment (no breach, and the host-side check of the attack), the attacker's forfeit
reason where there is one, the honest seat playing to the end without a forfeit, the
worker (this process) unharmed, and no process, cgroup or directory of the match left.

The suite runs as root here and, through ``test_hostile_suite_as_an_unprivileged_user``,
again as uid 65534 with a delegated cgroup: the way the container image runs a worker.
"""

from __future__ import annotations

import hashlib
import os
import socket
import sys
import tempfile
import textwrap
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import games
import workers
from workers.cgroups import detect_version, parent_dirs
from workers.clients import CodeCache, SeatClients
from workers.model import BotKind, ForfeitReason, MatchPlan, MatchRecord, SeatPlan
from workers.play import play_plan
from workers.sandbox import SandboxLimits
from workers.sandbox_check import cached_check, missing_kernel_features
from workers.sandbox_procs import PARENT_PREFIX, sandbox_base

ROOT = Path(__file__).resolve().parents[2]
HONEST = (ROOT / "bots" / "examples" / "random_uploaded.py").read_bytes()
LIMITS = SandboxLimits(
    memory_bytes=256 << 20,
    cpu_seconds=30,
    processes=32,
    tmpfs_bytes=16 << 20,
    stderr_budget_bytes=4 << 20,
    cgroup_parent=os.environ.get("HAMLET_SANDBOX_CGROUP", ""),
)
WORKER_PID = os.getpid()

PRELUDE = """
import ctypes, glob, os, random, resource, socket, sys, time
from bots.sdk import run

rng = random.Random(0)
attacked = False

def breach(what):
    sys.stderr.write(f"BREACH: {what}\\n")
    sys.stderr.flush()
    os._exit(42)

def attack():
"""
EPILOGUE = """
def decide(observation, legal):
    global attacked
    if not attacked:
        attacked = True
        attack()
    return rng.randrange(len(legal))

run(decide)
"""


def attack_bot(body: str, **values: object) -> bytes:
    """An SDK bot that runs ``body`` (formatted with ``values``) at its first decision."""
    code = textwrap.indent(textwrap.dedent(body).format(**values), "    ")
    return (PRELUDE + code + EPILOGUE).encode()


@dataclass
class Played:
    record: MatchRecord

    def attacker(self) -> ForfeitReason | None:
        forfeit = next((f for f in self.record.forfeits if f.seat == 0), None)
        return None if forfeit is None else forfeit.reason

    def detail(self) -> str:
        return " ".join(f.detail for f in self.record.forfeits)


Play = Callable[..., Played]


def leftovers() -> list[str]:
    """Directories, cgroups and processes of this process's sandboxes that still exist."""
    mark = f"bot-{WORKER_PID}-"
    found = [str(p) for p in sandbox_base().glob(f"hamlet-bot-{WORKER_PID}-*")]
    found += [str(p) for p in sandbox_base().glob(f"{PARENT_PREFIX}{WORKER_PID}-*/bot-*")]
    for parent in parent_dirs(detect_version(), LIMITS.cgroup_parent).values():
        found += [str(p) for p in parent.glob(f"{mark}*")]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if f"/{mark}" in (entry / "cgroup").read_text():
                    found.append(f"process {entry.name}")
            except OSError:
                continue
    return found


@pytest.fixture(scope="module", autouse=True)
def full_sandbox() -> None:
    lacking = missing_kernel_features()
    if lacking:
        pytest.skip(f"this kernel lacks what the sandbox needs: {'; '.join(lacking)}")
    report = cached_check(LIMITS)
    assert report.plays_uploaded, report.why_refused()


@pytest.fixture
def play(tmp_path: Path) -> Iterator[Play]:
    cache = tmp_path / "code-cache"

    def run(attacker: bytes, decision_s: float = 1.0, bank_s: float = 6.0) -> Played:
        codes = {hashlib.sha256(c).hexdigest(): c for c in (attacker, HONEST)}
        seats = tuple(
            SeatPlan(i, f"seat{i}", 1, BotKind.UPLOADED, code_sha256=hashlib.sha256(c).hexdigest())
            for i, c in enumerate((attacker, HONEST))
        )
        plan = MatchPlan(
            f"hostile-{uuid.uuid4().hex[:8]}",
            "village",
            games.get("village").rules_version,
            7,
            seats,
            decision_s,
            bank_s,
        )
        record = play_plan(plan, SeatClients(CodeCache(cache, codes.__getitem__), LIMITS))
        played = Played(record)
        assert "BREACH" not in played.detail() and "status 42" not in played.detail()
        assert not any(f.seat == 1 for f in record.forfeits), played.detail()
        assert len(record.ranks) == 2 and record.decisions  # played to the end
        assert leftovers() == []
        return played

    yield run
    assert leftovers() == []


def test_infinite_loop(play: Play) -> None:
    assert play(attack_bot("while True: pass")).attacker() is ForfeitReason.TIMEOUT


def test_sleep_past_the_deadline(play: Play) -> None:
    assert play(attack_bot("time.sleep(600)")).attacker() is ForfeitReason.TIMEOUT


def test_memory_bomb(play: Play) -> None:
    played = play(attack_bot("hog = b'x' * (1 << 30)"))
    assert played.attacker() is ForfeitReason.CRASH and "MemoryError" in played.detail()


def test_memory_spread_over_a_process_tree(play: Play) -> None:
    # Eight processes of 64 MiB each, every one under the per-process limit, 512 MiB in all:
    # the tree's cgroup (256 MiB) stops them.
    played = play(
        attack_bot(
            """
            r, w = os.pipe()
            kids = []
            for _ in range(8):
                pid = os.fork()
                if pid == 0:
                    hog = b"x" * (64 << 20)
                    os.write(w, b"+")
                    time.sleep(600)
                kids.append(pid)
            os.close(w)
            allocated, deadline = 0, time.monotonic() + 15
            import select
            while allocated < 8 and time.monotonic() < deadline:
                if select.select([r], [], [], 0.5)[0]:
                    allocated += len(os.read(r, 8))
            # Each "+" says one child's 64 MiB was allocated; the limit may have been kept by
            # killing an earlier child, so what counts is whether all eight are alive at once.
            alive = [pid for pid in kids if os.waitpid(pid, os.WNOHANG) == (0, 0)]
            if allocated == 8 and len(alive) == 8:
                breach("8 x 64 MiB held at once")
            """
        ),
        decision_s=20,
    )
    assert played.attacker() in (None, ForfeitReason.CRASH)


def test_fork_flood(play: Play) -> None:
    played = play(
        attack_bot(
            """
            kids = 0
            for _ in range(300):
                try:
                    if os.fork() == 0:
                        time.sleep(600)
                        os._exit(0)
                    kids += 1
                except OSError:
                    break
            if kids >= 32:
                breach(f"{{kids}} processes")
            """
        )
    )
    assert played.attacker() is None, played.detail()


def test_daemonized_grandchild(play: Play) -> None:
    token = f"hamlet-daemon-{uuid.uuid4().hex}"
    played = play(
        attack_bot(
            """
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    code = "import time; time.sleep(600)"
                    os.execv(sys.executable, [sys.executable, "-c", code, "{token}"])
                os._exit(0)
            time.sleep(0.2)
            """,
            token=token,
        )
    )
    assert played.attacker() is None, played.detail()
    assert not [p for p in Path("/proc").glob("[0-9]*/cmdline") if _has(p, token)]


def _has(path: Path, token: str) -> bool:
    try:
        return token.encode() in path.read_bytes()
    except OSError:
        return False


def test_connection_to_a_loopback_port(play: Play) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.setblocking(False)
        port = listener.getsockname()[1]
        played = play(
            attack_bot(
                """
                for host in ("127.0.0.1", "localhost", "::1"):
                    try:
                        socket.create_connection((host, {port}), timeout=2).close()
                        breach(f"connected to {{host}}:{port}")
                    except OSError:
                        pass
                """,
                port=port,
            )
        )
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert played.attacker() is None, played.detail()


def test_setns_into_any_namespace_under_proc(play: Play) -> None:
    played = play(
        attack_bot(
            """
            libc = ctypes.CDLL(None, use_errno=True)
            paths = glob.glob("/proc/*/ns/*") + glob.glob("/proc/{worker}/ns/*")
            for path in paths:
                try:
                    fd = os.open(path, os.O_RDONLY)
                except OSError:
                    continue
                if libc.setns(fd, 0) == 0:
                    breach(f"setns({{path}})")
            if libc.unshare(0x10000000) == 0 or libc.unshare(0x40000000) == 0:
                breach("unshare")
            """,
            worker=WORKER_PID,
        )
    )
    assert played.attacker() is None, played.detail()


def test_reading_secrets(play: Play, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "hamlet.sqlite").write_text("SECRET-DB")
    monkeypatch.setenv("HAMLET_TEST_SECRET", "SECRET-ENV")
    played = play(
        attack_bot(
            """
            if any("SECRET" in v or k.startswith("HAMLET") for k, v in os.environ.items()):
                breach("environment")
            targets = ["/etc/shadow", "{data}/hamlet.sqlite", "/proc/{worker}/environ",
                       "/proc/{worker}/mem", "/proc/{worker}/cmdline"]
            targets += glob.glob("{cache}/*") + glob.glob("/tmp/hamlet-bot-*/code/*")
            targets += glob.glob("{tmp}/hamlet-bot-*/code/*")
            for path in targets:
                try:
                    with open(path, "rb") as f:
                        if f.read(64):
                            breach(path)
                except OSError:
                    pass
            for path in glob.glob("/proc/[0-9]*/cmdline") + glob.glob("/proc/[0-9]*/environ"):
                try:
                    seen = open(path, "rb").read()
                except OSError:
                    continue
                if b"pytest" in seen or b"SECRET" in seen or b"workers" in seen:
                    breach(path)
            """,
            data=data,
            worker=WORKER_PID,
            cache=tmp_path / "code-cache",
            tmp=tempfile.gettempdir(),
        )
    )
    assert played.attacker() is None, played.detail()


def test_writing_into_the_worker_code_and_site_packages(play: Play) -> None:
    import grpc

    targets = [Path(workers.__file__).parent, Path(grpc.__file__).parent, Path(sys.prefix)]
    name = f"pwned_{uuid.uuid4().hex[:8]}.py"
    played = play(
        attack_bot(
            """
            import bots, grpc
            for d in {targets!r} + ["/opt/hamlet/lib", os.path.dirname(bots.__file__),
                                   os.path.dirname(grpc.__file__), sys.prefix, "/bot", "/"]:
                try:
                    with open(os.path.join(d, "{name}"), "w") as f:
                        f.write("print('owned')")
                    breach(d)
                except OSError:
                    pass
            """,
            targets=[str(t) for t in targets],
            name=name,
        )
    )
    assert played.attacker() is None, played.detail()
    assert not [t for t in targets if (t / name).exists()]


def test_writing_into_other_processes_fds(play: Play) -> None:
    played = play(
        attack_bot(
            """
            # Its own pipes are fair game (it only hurts itself); anyone else's are the attack.
            mine = {{os.readlink(f"/proc/self/fd/{{fd}}") for fd in (0, 1, 2)}}
            frame = (5).to_bytes(4, "big") + b"\\xff" * 5
            for path in glob.glob("/proc/[0-9]*/fd/*") + glob.glob("/proc/{worker}/fd/*"):
                try:
                    if os.readlink(path) in mine:
                        continue
                    fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                    os.write(fd, frame)
                    os.close(fd)
                except OSError:
                    pass
            """,
            worker=WORKER_PID,
        )
    )
    assert played.attacker() is None, played.detail()  # the honest seat: checked by play


def test_filling_the_working_directory_and_tmp(play: Play) -> None:
    played = play(
        attack_bot(
            """
            written = 0
            for n, d in enumerate((".", "/tmp", os.environ["HOME"])):
                for i in range(64):
                    try:
                        with open(os.path.join(d, f"fill{{n}}-{{i}}"), "wb") as f:
                            for _ in range(4):
                                f.write(b"x" * (1 << 20))
                                written += 1 << 20
                    except OSError:
                        break
            if written > {limit}:
                breach(f"{{written}} bytes written")
            """,
            limit=LIMITS.tmpfs_bytes,
        )
    )
    assert played.attacker() is None, played.detail()


def test_a_gigabyte_to_stdout(play: Play) -> None:
    source = attack_bot(
        """
        chunk = b"\\xff" * (1 << 20)
        for _ in range(1024):
            sys.__stdout__.buffer.write(chunk)
        """
    )
    assert play(source).attacker() is ForfeitReason.BAD_OUTPUT


def test_a_gigabyte_to_stderr(play: Play) -> None:
    source = attack_bot(
        """
        chunk = b"y" * (1 << 20)
        for _ in range(1024):
            sys.stderr.buffer.write(chunk)
        """
    )
    played = play(source)
    # The worker stops reading after the stderr budget: the flood blocks the bot itself.
    assert played.attacker() is ForfeitReason.TIMEOUT


RAW = """
import os, struct, sys, time
def read():
    head = sys.stdin.buffer.read(4)
    return sys.stdin.buffer.read(struct.unpack(">I", head)[0]) if len(head) == 4 else None
def write(data):
    sys.stdout.buffer.write(struct.pack(">I", len(data)) + data)
    sys.stdout.buffer.flush()
"""


@pytest.mark.parametrize(
    ("name", "source", "reason", "says"),
    [
        ("exits at once", "import sys\nsys.exit(0)\n", ForfeitReason.CRASH, "status 0"),
        (
            "crash on import",
            "raise RuntimeError('broken on import')\n",
            ForfeitReason.CRASH,
            "broken on import",
        ),
        (
            "garbage frame",
            RAW + "read()\nwrite(b'\\xff' * 5)\ntime.sleep(60)\n",
            ForfeitReason.BAD_OUTPUT,
            "DecisionResponse",
        ),
        (
            "oversized frame",
            RAW + "read()\nsys.stdout.buffer.write(struct.pack('>I', 1 << 30))\n"
            "sys.stdout.flush()\ntime.sleep(60)\n",
            ForfeitReason.BAD_OUTPUT,
            "exceeds",
        ),
        (
            "illegal index",
            "from bots.sdk import run\nrun(lambda o, legal: 10**6)\n",
            ForfeitReason.ILLEGAL_ACTION,
            "legal indices",
        ),
        (
            "negative index",
            "from bots.sdk import run\nrun(lambda o, legal: -1)\n",
            ForfeitReason.ILLEGAL_ACTION,
            "legal indices",
        ),
        # bubblewrap's monitor holds the other end of the pipe: no EOF, the deadline ends it.
        (
            "closes stdout",
            RAW + "read()\nos.close(1)\ntime.sleep(60)\n",
            ForfeitReason.TIMEOUT,
            "no answer",
        ),
    ],
)
def test_misbehaving_protocol(
    play: Play, name: str, source: str, reason: ForfeitReason, says: str
) -> None:
    played = play(source.encode())
    assert played.attacker() is reason, played.detail()
    assert says in played.detail()


def test_raising_its_own_rlimits(play: Play) -> None:
    played = play(
        attack_bot(
            """
            names = ("RLIMIT_NPROC", "RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NOFILE", "RLIMIT_FSIZE")
            for name in names:
                which = getattr(resource, name)
                soft, hard = resource.getrlimit(which)
                if hard == resource.RLIM_INFINITY:
                    continue
                try:
                    resource.setrlimit(which, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
                    breach(name)
                except (ValueError, OSError):
                    pass
            """
        )
    )
    assert played.attacker() is None, played.detail()


def test_setuid_zero(play: Play) -> None:
    played = play(
        attack_bot(
            """
            for call in (lambda: os.setuid(0), lambda: os.setgid(0), lambda: os.setresuid(0, 0, 0)):
                try:
                    call()
                    breach("setuid")
                except OSError:
                    pass
            if os.getuid() == 0 or os.geteuid() == 0:
                breach("uid 0")
            """
        )
    )
    assert played.attacker() is None, played.detail()
