"""Which system calls sandboxed bots make: the evidence behind ``workers/seccomp.py``'s
allow-list.

``strace -f -ff -qq -o /tmp/sc/t python bench/seccomp_derive.py --play`` plays, in the strict
sandbox, the runtimes' test bots (the Python example, every game's template, the Node
example, a static C executable) and a Python bot using threads, subprocesses and
``multiprocessing``; then ``python bench/seccomp_derive.py --read /tmp/sc`` prints every
system call made by a bot process after its runtime started (the boot step's ``execve``,
and every process or thread those processes cloned), with counts, and which of them the
filter refuses. Numbers, never assertions.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[1]
BUSY_PY = b"""
import multiprocessing, os, random, subprocess, sys, threading, time
from bots.sdk import run

def work(n):
    return sum(i * i for i in range(n))

def decide(observation, legal):
    t = threading.Thread(target=work, args=(1000,)); t.start(); t.join()
    subprocess.run([sys.executable, "-c", "pass"], check=False)
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pool.map(work, [100, 200])
    lock = multiprocessing.Lock(); lock.acquire(); lock.release()
    open("/tmp/x", "w").write(str(time.time())); os.listdir("/tmp"); os.remove("/tmp/x")
    return random.randrange(len(legal))

run(decide)
"""


def _archives() -> dict[str, bytes]:
    from bots import templates
    from bots.archive import pack
    from tests.workers.test_runtimes import C_BOT

    out = {"python example": (ROOT / "bots/examples/random_uploaded.py").read_bytes()}
    for game in templates.template_games():
        out[f"template {game}"] = templates.render("derive", game).encode()
    out["python threads+processes"] = BUSY_PY
    if shutil.which("node"):
        out["node example"] = pack(ROOT / "bots/examples/node_random")
    gcc = shutil.which("gcc")
    if gcc:
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "bot.c").write_text(C_BOT)
            subprocess.run([gcc, "-static", "-O2", "-o", f"{tmp}/bot", f"{tmp}/bot.c"], check=True)
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w") as zf:
                zf.writestr("hamlet.json", json.dumps({"runtime": "native", "entry": "bot"}))
                zf.write(f"{tmp}/bot", "bot")
            out["native (static C)"] = buf.getvalue()
    return out


def play() -> None:
    """Play each bot once against ``random`` in the strict sandbox."""
    import games
    from workers.clients import CodeCache, SeatClients
    from workers.model import BotKind, MatchPlan, SeatPlan
    from workers.play import play_plan

    for name, code in _archives().items():
        sha = hashlib.sha256(code).hexdigest()
        game = name.split()[-1] if name.startswith("template") else "village"
        seats = (
            SeatPlan(0, "derive", 1, BotKind.UPLOADED, code_sha256=sha),
            SeatPlan(1, "random", 0, BotKind.BUILTIN),
        )
        spec = games.get(game)
        plan = MatchPlan(f"derive-{sha[:6]}", game, spec.rules_version, 3, seats, 5.0, 20.0)
        with tempfile.TemporaryDirectory() as tmp:
            cache = CodeCache(Path(tmp), {sha: code}.__getitem__)
            record = play_plan(plan, SeatClients(cache))
        print(f"{name:<28} forfeits: {[f.reason.value for f in record.forfeits]}")


_CALL = re.compile(r"^(?:\d+\s+)?([a-z_0-9]+)\(")
_CLONED = re.compile(r"^(?:clone3?|fork|vfork)\(.*\)\s+=\s+(\d+)")
_BOT_EXEC = re.compile(r'^execve\("(?![^"]*bwrap")[^"]*", \[[^]]*"(/opt/hamlet/boot|/bot/)')


def read(directory: Path) -> Counter[str]:
    """System calls of bot processes in ``strace -ff`` output files ``directory/t.<pid>``."""
    lines = {
        int(p.suffix[1:]): p.read_text(errors="replace").splitlines() for p in directory.iterdir()
    }
    seen: Counter[str] = Counter()
    queue = [pid for pid, ls in lines.items() if any(_BOT_EXEC.match(x) for x in ls)]
    starts = {pid: next(i for i, x in enumerate(lines[pid]) if _BOT_EXEC.match(x)) for pid in queue}
    done: set[int] = set()
    while queue:
        pid = queue.pop()
        if pid in done or pid not in lines:
            continue
        done.add(pid)
        for line in lines[pid][starts.get(pid, 0) + 1 :]:
            m = _CALL.match(line)
            if m:
                seen[m.group(1)] += 1
            c = _CLONED.match(line)
            if c:
                queue.append(int(c.group(1)))
    return seen


def main() -> None:
    """``--play`` (under strace) or ``--read DIR``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--play", action="store_true")
    parser.add_argument("--read", type=Path)
    args = parser.parse_args()
    if args.play:
        play()
    if args.read:
        from workers import seccomp_policy as seccomp

        seen = read(args.read)
        allowed = set(seccomp.ALLOWED)
        for name, count in sorted(seen.items()):
            verdict = "allowed" if name in allowed else "REFUSED"
            verdict = "ENOSYS (the C library falls back)" if name in seccomp.ENOSYS else verdict
            print(f"{name:<24} {count:>8}  {verdict}")
        print(f"{len(seen)} distinct system calls; allow-list: {len(allowed)}")


if __name__ == "__main__":
    main()
