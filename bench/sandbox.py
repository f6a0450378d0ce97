"""Sandbox cost: what starting one seat and one exchange cost, with and without the sandbox.

``python bench/sandbox.py [--runs N]`` (``make bench-sandbox``) prints medians (and the
90th percentile) over N runs of:

- ``true``: a bare ``true`` process, then under bubblewrap with the bot's namespaces (the
  cost bubblewrap itself adds to a start);
- ``cgroup``: making, limiting and removing one bot's cgroups;
- ``runtime image``: making the worker process's read-only tmpfs copy of the runtime and
  the SDK (once per worker process: what hides the host's paths from the mount table), its
  size in memory, and attaching a clone of it plus a tmpfs copy of the bot's files (per
  seat, inside the seat start below);
- ``seat start``: a minimal raw-protocol Python bot from spawn to its first answer, in
  insecure mode (launcher + rlimits only) and in the strict sandbox (launcher, cgroup,
  mounts, throw-away uid, bubblewrap, seccomp, boot step), and the difference; and the
  clean-up after it (kill, cgroup removal, directory removal);
- ``round trip``: one 200-byte request frame and its answer to an already started bot;
- ``freeze/thaw``: what one seat at a time costs per decision: the thaw before it (off the
  bot's clock), a round trip of a freezing seat against one that is never frozen, and the
  wait for the freeze after it; and, for the futex channel, the size of what a per-seat copy
  of the runtime would copy at every seat start (the filter's argument check costs nothing
  measurable: it is a few BPF instructions on ``futex`` calls).

Numbers, never assertions: tests do not time anything.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workers import sandbox_layout
from workers.cgroups import BotCgroup, CgroupLimits
from workers.sandbox import SandboxedBot, SandboxLimits, SandboxMode
from workers.sandbox_layout import bwrap_path, host_root_args, layout, runtime_image

ECHO_BOT = """
import struct, sys
while True:
    head = sys.stdin.buffer.read(4)
    if len(head) < 4:
        break
    body = sys.stdin.buffer.read(struct.unpack(">I", head)[0])
    sys.stdout.buffer.write(struct.pack(">I", 2) + b"ok")
    sys.stdout.buffer.flush()
"""


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    """Seconds per call of ``fn``, ``runs`` times (after one warm-up call)."""
    fn()
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def show(name: str, samples: list[float]) -> float:
    """Print the median and 90th percentile in ms; return the median."""
    median = statistics.median(samples)
    p90 = sorted(samples)[int(0.9 * (len(samples) - 1))]
    print(f"{name:<44} median {median * 1e3:8.2f} ms   p90 {p90 * 1e3:8.2f} ms")
    return median


def main() -> None:
    """Run every measurement and print it."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    runs = args.runs
    bwrap = bwrap_path()
    assert bwrap, "bubblewrap is not installed"
    unshare = ["--unshare-all", "--unshare-user", "--disable-userns", "--new-session"]
    bwrap_true = [bwrap, *unshare, "--die-with-parent", "--cap-drop", "ALL", "--clearenv"]
    bwrap_true += [*host_root_args(), "--proc", "/proc", "--dev", "/dev", "--", "/usr/bin/true"]
    print(f"python {sys.version.split()[0]}, uid {os.geteuid()}, {runs} runs each")
    t_true = show("true (bare)", timed(lambda: subprocess.run(["/usr/bin/true"]), runs))
    t_bwrap = show(
        "true under bubblewrap", timed(lambda: subprocess.run(bwrap_true, check=True), runs)
    )
    print(f"{'  bubblewrap adds':<44} {(t_bwrap - t_true) * 1e3:8.2f} ms")

    def cgroup() -> None:
        name = f"bench-{os.getpid()}-{time.monotonic_ns()}"
        BotCgroup(name, CgroupLimits(1 << 30, 32)).remove()

    show("cgroup: make, limit, remove", timed(cgroup, runs))
    image_costs(max(3, runs // 10))
    with tempfile.TemporaryDirectory() as tmp:
        bot = Path(tmp) / "echo.py"
        bot.write_text(ECHO_BOT)
        medians = {}
        for mode in SandboxMode:
            limits = SandboxLimits(mode=mode)
            starts, closes = [], []
            for _ in range(runs + 1):
                began = time.perf_counter()
                b = SandboxedBot(bot, limits)
                b.exchange(b"x" * 200, 30)
                answered = time.perf_counter()
                b.close()
                starts.append(answered - began)
                closes.append(time.perf_counter() - answered)
            medians[mode] = show(f"seat start to first answer ({mode.value})", starts[1:])
            show(f"seat clean-up ({mode.value})", closes[1:])
        extra = medians[SandboxMode.STRICT] - medians[SandboxMode.INSECURE]
        print(f"{'  the strict sandbox adds per seat start':<44} {extra * 1e3:8.2f} ms")
        for mode in SandboxMode:
            with SandboxedBot(bot, SandboxLimits(mode=mode)) as b:
                samples = timed(lambda b=b: b.exchange(b"x" * 200, 30), runs * 20)  # type: ignore[misc]
                show(f"round trip, 200-byte frame ({mode.value})", samples)
        freeze_costs(bot, runs * 10)


def image_costs(runs: int) -> None:
    """What the runtime image costs a worker process (once); a seat's share (joining its
    namespace, copying the bot's files into a tmpfs) is inside the strict seat start."""
    from bots.archive import Runtime

    entries = layout(Runtime.PYTHON3, "bot.py", sys.executable, 0).image
    images: list[sandbox_layout.Image] = []

    def make() -> None:
        sandbox_layout._images.clear()  # a new image each time, as in a new worker process
        images.append(runtime_image(entries, sys.executable))

    show("runtime image: made once per worker process", timed(make, runs))
    size = sum(_tree_bytes(Path(source), skip) for source, _, skip in entries)
    print(f"{'  its size in memory (a tmpfs)':<44} {size / 1e6:8.1f} MB")
    for image in images:
        for fd in (image.user_fd, image.mnt_fd):
            if fd is not None:
                os.close(fd)
    sandbox_layout._images.clear()


def _tree_bytes(path: Path, skip: tuple[str, ...]) -> int:
    if path.is_file():
        return path.stat().st_size
    top = [p for p in path.iterdir() if p.name not in skip]
    files = [f for p in top for f in ([p] if p.is_file() else p.rglob("*"))]
    return sum(f.stat().st_size for f in files if f.is_file() and not f.is_symlink())


def freeze_costs(bot: Path, runs: int) -> None:
    """The per-decision cost of freezing the seats that are not deciding."""
    from workers.sandbox_io import BotProcess

    with SandboxedBot(bot, SandboxLimits()) as b:
        assert b._freezer is not None
        print(f"freezing by: {b._freezer.method.value}")
        thaw, wait, trip = [], [], []
        for _ in range(runs):
            t0 = time.perf_counter()
            b.thaw()
            t1 = time.perf_counter()
            b.exchange(b"x" * 200, 30)
            t2 = time.perf_counter()
            b.freeze_now()
            t3 = time.perf_counter()
            thaw.append(t1 - t0)
            trip.append(t2 - t1)
            wait.append(t3 - t2)
        show("thaw before a decision (off the clock)", thaw)
        frozen_trip = show("round trip of a freezing seat", trip)
        show("freeze after it, until frozen", wait)
        b.thaw()
        plain = timed(lambda: BotProcess.exchange(b, b"x" * 200, 30), runs)
        never = show("round trip, never frozen", plain)
        print(
            f"{'  freezing adds per decision (in the round trip)':<44} "
            f"{(frozen_trip - never) * 1e3:8.2f} ms"
        )
    prefix = Path(sys.base_prefix)
    size = sum(p.stat().st_size for p in prefix.rglob("*") if p.is_file() and not p.is_symlink())
    print(f"a per-seat copy of the runtime ({prefix}): {size / 1e6:.0f} MB per seat start")


if __name__ == "__main__":
    main()
