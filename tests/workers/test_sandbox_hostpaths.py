"""A sandboxed bot sees no host path: its mount table (``/proc/*/mountinfo``, ``mounts``,
``mountstats``), PID 1's command line, environment and files, and its cgroup name none of
the worker's checkout, Python (environment, installation), node, temporary directory, the
bot's own host directory, bubblewrap, ``/root`` or ``/home`` — for Python, Node and static
bots, alone, through a worker and in local play, as root and as an unprivileged user; and a
sandbox that cannot hide them does not start.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import uuid
import zipfile
from pathlib import Path

import pytest

import games
from bots.archive import Runtime
from tests.workers.test_hostile_unprivileged import (  # noqa: F401 (a fixture)
    SETPRIV,
    _system_python,
    delegated_cgroup,
    unprivileged_skip_reason,
)
from workers import localplay, sandbox_layout
from workers.clients import CodeCache, SeatClients
from workers.localplay import LocalPlay, prepare
from workers.model import BotKind, MatchPlan, SeatPlan
from workers.play import play_plan
from workers.sandbox import SandboxedBot, SandboxError, SandboxLimits
from workers.sandbox_check import (
    Guarantee,
    check,
    host_paths,
    missing_kernel_features,
    visible_host_paths,
)
from workers.sandbox_layout import bwrap_path, runtime_binary

ROOT = Path(__file__).resolve().parents[2]
PROBE = ROOT / "workers" / "sandbox_probe.py"
LIMITS = SandboxLimits(cgroup_parent=os.environ.get("HAMLET_SANDBOX_CGROUP", ""))
#: What each bot reads, whatever its runtime.
FILES = ["/proc/self/mountinfo", "/proc/self/mounts", "/proc/self/mountstats",
         "/proc/thread-self/mountinfo", "/proc/1/mountinfo", "/proc/1/cmdline",
         "/proc/1/environ", "/proc/self/cgroup", "/proc/1/maps"]  # fmt: skip


@pytest.fixture(scope="module", autouse=True)
def sandbox_here() -> None:
    lacking = missing_kernel_features()
    if lacking:
        pytest.skip(f"this kernel lacks what the sandbox needs: {'; '.join(lacking)}")


def secrets(bot_root: Path | None = None) -> list[str]:
    """The brief list, spelled out (beside :func:`host_paths`, which the check uses)."""
    node = runtime_binary(Runtime.NODE, LIMITS.python)
    out = [str(ROOT), sys.prefix, sys.base_prefix, str(Path(sys.executable).resolve().parent)]
    out += [os.path.dirname(node)] if node else []
    out += [str(Path(str(bwrap_path())).parent), "/root", "/home", tempfile.gettempdir()]
    out += [str(bot_root)] if bot_root else []
    out = [p for p in out if not Path(p).is_relative_to("/usr") and p not in ("/", "/tmp")]
    return sorted(set(out) | set(host_paths(LIMITS)))


def assert_hidden(view: dict[str, str], bot_root: Path | None = None) -> None:
    shown = visible_host_paths(view, secrets(bot_root))
    assert not shown, "\n".join(shown) + "\n" + "\n".join(f"{k}:\n{v}" for k, v in view.items())
    mountinfo = view["/proc/self/mountinfo"]
    roots = {line.split()[3] for line in mountinfo.splitlines()}
    # Every bind's root inside its file system: bubblewrap's own tmpfs, /usr, or a whole one.
    dev = ("/bindfile", "/null", "/zero", "/full", "/random", "/urandom", "/tty")
    known = ("/", "/newroot", "/usr", "/etc/ld.so.cache")
    assert all(r in known or r.startswith(dev) for r in roots), roots
    assert "bwrap" not in view["/proc/1/cmdline"]


def test_a_python_bot_sees_no_host_path(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_bytes(PROBE.read_bytes())
    with SandboxedBot(probe, LIMITS) as bot:
        facts = json.loads(bot.exchange(b"probe", 30))
        view: dict[str, str] = facts["host_view"]
        assert_hidden(view, bot.root)
    # The bot is PID 1 (no bubblewrap in its PID namespace): its runtime, from the image or /usr.
    assert "/proc/1/mountinfo" in view and "\0/opt/hamlet/boot.py\0" in view["/proc/1/cmdline"]
    assert view["/proc/1/exe"].startswith(("/opt/hamlet/python/", "/usr/"))


NODE_PROBE = """
const fs = require('fs');
const files = %s;
let buf = Buffer.alloc(0);
process.stdin.on('data', (d) => {
  buf = Buffer.concat([buf, d]);
  if (buf.length < 4 || buf.length < 4 + buf.readUInt32BE(0)) return;
  const out = {};
  for (const f of files) {
    try { out[f] = fs.readFileSync(f).toString('latin1'); } catch (e) { out[f] = 'unreadable'; }
  }
  const body = Buffer.from(JSON.stringify(out));
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  fs.writeSync(1, Buffer.concat([head, body]));
});
"""


def archive(tmp_path: Path, runtime: str, entry: str, path: Path) -> Path:
    out = tmp_path / "bot.zip"
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("hamlet.json", json.dumps({"runtime": runtime, "entry": entry}))
        zf.write(path, entry)
    return out


@pytest.mark.skipif(shutil.which("node") is None, reason="no node runtime on this host")
def test_a_node_bot_sees_no_host_path(tmp_path: Path) -> None:
    (tmp_path / "main.js").write_text(NODE_PROBE % json.dumps(FILES))
    with SandboxedBot(archive(tmp_path, "node", "main.js", tmp_path / "main.js"), LIMITS) as bot:
        view = json.loads(bot.exchange(b"probe", 30))
        assert_hidden(view, bot.root)
    assert "node" in view["/proc/1/cmdline"].split("\0")[0]


C_PROBE = r"""
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static char out[1 << 20];
int main(int argc, char **argv) {
    unsigned char head[4];
    if (read(0, head, 4) != 4) return 1;
    size_t n = 0;
    for (int i = 1; i < argc; i++) {
        n += snprintf(out + n, sizeof out - n, "\n==%s==\n", argv[i]);
        FILE *f = fopen(argv[i], "rb");
        if (f) { n += fread(out + n, 1, sizeof out - n - 1, f); fclose(f); }
    }
    unsigned char len[4] = {n >> 24, n >> 16, n >> 8, n};
    write(1, len, 4);
    write(1, out, n);
    return 0;
}
"""


def test_a_static_executable_sees_no_host_path(tmp_path: Path) -> None:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("no C compiler to build a static test bot")
    # The files to read are baked in: a native bot gets no arguments of ours.
    paths = ", ".join(f'"{f}"' for f in FILES)
    baked = f"int main(void) {{\n    char *argv[] = {{0, {paths}}}; int argc = {len(FILES) + 1};"
    source = C_PROBE.replace("int main(int argc, char **argv) {", baked)
    (tmp_path / "bot.c").write_text(source)
    built = subprocess.run([gcc, "-static", "-O2", "-o", str(tmp_path / "bot"),
                            str(tmp_path / "bot.c")], capture_output=True)  # fmt: skip
    if built.returncode != 0:
        pytest.skip(f"cannot link a static executable here: {built.stderr.decode()[-300:]}")
    with SandboxedBot(archive(tmp_path, "native", "bot", tmp_path / "bot"), LIMITS) as bot:
        text = bot.exchange(b"probe", 30).decode(errors="replace")
        parts = text.split("\n==")[1:]
        view = {p.split("==\n", 1)[0]: p.split("==\n", 1)[1] for p in parts}
        assert set(view) == set(FILES)
        assert_hidden(view, bot.root)
    assert view["/proc/1/cmdline"].startswith("/bot/bot")  # the boot step exec'd it as PID 1


#: An SDK bot that forfeits (exit status 42, ``BREACH`` on stderr) if any file shows a secret.
SDK_PROBE = """
import os, re, sys
from bots.sdk import run

SECRETS = {secrets!r}
FILES = {files!r}

def decide(observation, legal):
    for path in FILES + [f"/proc/{{p}}/mountinfo" for p in os.listdir("/proc") if p.isdigit()]:
        try:
            with open(path, "rb") as f:
                text = f.read().decode(errors="replace")
        except OSError:
            continue
        for secret in SECRETS:
            if re.search(re.escape(secret) + r"(?=[/\\s\\x00,]|$)", text):
                sys.stderr.write(f"BREACH: {{path}} shows {{secret}}\\n")
                sys.stderr.flush()
                os._exit(42)
    return 0

run(decide)
"""


def sdk_probe() -> bytes:
    return textwrap.dedent(SDK_PROBE).format(secrets=secrets(), files=FILES).encode()


def test_through_a_worker(tmp_path: Path) -> None:
    code = sdk_probe()
    sha = hashlib.sha256(code).hexdigest()
    seats = tuple(SeatPlan(i, f"probe{i}", 1, BotKind.UPLOADED, code_sha256=sha) for i in (0, 1))
    plan = MatchPlan(f"paths-{uuid.uuid4().hex[:8]}", "village",
                     games.get("village").rules_version, 5, seats, 5.0, 10.0)  # fmt: skip
    clients = SeatClients(CodeCache(tmp_path / "cache", {sha: code}.__getitem__), LIMITS)
    record = play_plan(plan, clients)
    assert not record.forfeits, " ".join(f.detail for f in record.forfeits)
    assert record.decisions and record.sandbox_tier.startswith("bwrap")


def test_in_local_play(tmp_path: Path) -> None:
    bot = tmp_path / "probe.py"
    bot.write_bytes(sdk_probe())
    request = LocalPlay(str(bot), "village", ("random",), 2, seed=3, players=2)
    summary = localplay.play(prepare(request), lambda _: None)
    assert summary.forfeits == () and summary.opponent_forfeits == 0, summary.forfeits


def test_the_check_judges_what_a_bot_saw() -> None:
    # The mount table and PID 1 as they were before the runtime image: the check refuses.
    before = {
        "/proc/self/mountinfo": "370 366 254:0 /root/.pyenv/versions/3.11.7 /root/.pyenv/"
        "versions/3.11.7 ro,nosuid - ext4 /dev/vda rw\n369 366 254:0 /tmp/hamlet-sandbox-"
        "18764-vr1upd45/bot-fnoyjpbp/code /bot ro,nosuid - ext4 /dev/vda rw\n",
        "/proc/1/cmdline": f"bwrap\0--args\0{ROOT}/x\0",
    }
    shown = visible_host_paths(before, ["/root", str(ROOT), "hamlet-sandbox-"])
    assert shown == [
        "/proc/self/mountinfo: /root",
        "/proc/self/mountinfo: hamlet-sandbox-",
        f"/proc/1/cmdline: {ROOT}",
    ]
    assert visible_host_paths({"x": "/rootfs /homework"}, ["/root", "/home"]) == []
    report = check(LIMITS)
    assert Guarantee.HOST_PATHS in {g for g, _ in report.held}, report.lines()


def test_without_a_runtime_image_nothing_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A source that cannot be copied: the image cannot be made, so no bot starts, and the
    # check names the reason for every guarantee (fail closed).
    real = sandbox_layout._sdk_sources
    missing = str(tmp_path / "gone")
    monkeypatch.setattr(sandbox_layout, "_sdk_sources", lambda: [*real(), (missing, "gone")])
    probe = tmp_path / "probe.py"
    probe.write_bytes(PROBE.read_bytes())
    with pytest.raises(SandboxError, match="host paths cannot be hidden: cannot make the runtime"):
        SandboxedBot(probe, LIMITS)
    report = check(LIMITS)
    assert not report.plays_uploaded
    assert "host paths cannot be hidden" in report.why_refused()


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="switching to uid 65534 needs root")
def test_as_an_unprivileged_user(delegated_cgroup: str) -> None:  # noqa: F811
    reason = unprivileged_skip_reason()
    if reason is not None:
        pytest.skip(reason)
    python = _system_python()
    assert python is not None
    import sysconfig

    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8",
           "PYTHONPATH": f"{ROOT}:{sysconfig.get_paths()['purelib']}",
           "PYTHONDONTWRITEBYTECODE": "1", "HAMLET_SANDBOX_CGROUP": delegated_cgroup}  # fmt: skip
    args = ["-m", "pytest", __file__, "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
    args += ["-k", "not unprivileged"]
    result = subprocess.run(
        [*SETPRIV, python, *args], capture_output=True, cwd=ROOT, env=env, timeout=900
    )
    out = result.stdout.decode(errors="replace")
    assert result.returncode == 0, out[-4000:] + result.stderr.decode(errors="replace")[-2000:]
    assert " passed" in out and "failed" not in out, out[-2000:]
    # Everything but the static bot (a compiler may be missing) ran, as that user.
    assert "6 passed" in out or "7 passed" in out, out[-2000:]
