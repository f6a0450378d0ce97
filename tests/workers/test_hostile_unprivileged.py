"""The hostile-bot suite again, as an unprivileged user: the way the container image runs.

As root, this runs ``tests/workers/test_hostile.py`` and the colluding-seats suite
(``test_sandbox_collusion.py``) in a child pytest each as uid/gid 65534
(``setpriv --reuid=65534 --regid=65534 --clear-groups``) with the system Python (a Python
the unprivileged user can run) and a cgroup directory delegated to that uid
(``HAMLET_SANDBOX_CGROUP``): no throw-away uid, no staging, bubblewrap building the sandbox
with an unprivileged user namespace. Skipped, with the reason, where the host cannot.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from workers.cgroups import CGROUP_ROOT, CgroupVersion, detect_version
from workers.sandbox_check import missing_kernel_features
from workers.sandbox_layout import bwrap_path

ROOT = Path(__file__).resolve().parents[2]
NOBODY = 65534
SETPRIV = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


def _system_python() -> str | None:
    """A Python of the same minor version that uid 65534 can run (the venv's may not be)."""
    want = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (f"/usr/bin/{want}", f"/usr/local/bin/{want}"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


@pytest.fixture
def delegated_cgroup() -> Iterator[str]:
    """A cgroup directory (the same relative path in every controller) owned by 65534."""
    name = f"hamlet-test-{secrets.token_hex(4)}"
    version = detect_version()
    if version is CgroupVersion.V2:
        (CGROUP_ROOT / "cgroup.subtree_control").write_text("+memory +pids +cpu")
        dirs = [CGROUP_ROOT / name]
    else:
        dirs = [CGROUP_ROOT / c / name for c in ("memory", "pids", "cpu", "cpuacct")]
    for d in dirs:
        d.mkdir()
        for path in [d, *d.iterdir()]:
            os.chown(path, NOBODY, NOBODY)
    yield name
    for d in dirs:
        for child in sorted(d.glob("*/"), reverse=True):
            if child.is_dir():
                child.rmdir()
        d.rmdir()


def unprivileged_skip_reason() -> str | None:
    """Why a suite cannot be run again as uid 65534 here (None: it can)."""
    lacking = missing_kernel_features()
    if lacking:
        return f"this kernel lacks what the sandbox needs: {'; '.join(lacking)}"
    if _system_python() is None or shutil.which("setpriv") is None:
        return "needs setpriv and a system Python of the venv's version for uid 65534"
    bwrap = bwrap_path()
    assert bwrap is not None
    probe = subprocess.run(
        [*SETPRIV, bwrap, "--unshare-user", "--ro-bind", "/", "/", "true"],
        capture_output=True,
        timeout=30,
    )
    if probe.returncode != 0:
        return f"unprivileged user namespaces refused: {probe.stderr.decode().strip()}"
    return None


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="switching to uid 65534 needs root")
@pytest.mark.parametrize("suite", ["test_hostile.py", "test_sandbox_collusion.py"])
def test_hostile_suite_as_an_unprivileged_user(delegated_cgroup: str, suite: str) -> None:
    reason = unprivileged_skip_reason()
    if reason is not None:
        pytest.skip(reason)
    python = _system_python()
    assert python is not None
    site = sysconfig.get_paths()["purelib"]
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONPATH": f"{ROOT}:{site}",
        "PYTHONDONTWRITEBYTECODE": "1",
        "HAMLET_SANDBOX_CGROUP": delegated_cgroup,
    }
    test_file = str(ROOT / "tests" / "workers" / suite)
    args = ["-m", "pytest", test_file, "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
    result = subprocess.run(
        [*SETPRIV, python, *args], capture_output=True, cwd=ROOT, env=env, timeout=900
    )
    out = result.stdout.decode(errors="replace")
    assert result.returncode == 0, out[-4000:] + result.stderr.decode(errors="replace")[-2000:]
    assert " passed" in out and "skipped" not in out, out[-2000:]
