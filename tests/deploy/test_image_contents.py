"""What the image holds: exactly what deploy/Dockerfile copies, installed (not editable) into a
fresh virtual environment the way its ``RUN pip install`` does, then ``hamlet server``,
``hamlet worker --check-sandbox`` and ``hamlet web`` started from it, outside the checkout.

The third-party dependencies come from the test's own environment (a path entry, not its
``.pth`` files, so the checkout's editable install stays out of sight): the test checks our
files, not PyPI. A package or data file the Dockerfile or the package data leaves out fails
here (the web app's templates, say), as ``No module named 'web'`` once did in the image.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import site
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.deploy.composerun import DEPLOY, ROOT, dockerfile_env
from tests.integration.stack import free_port, scaled, wait_until


def copies(dockerfile: str) -> list[tuple[list[str], str]]:
    """``(sources, destination)`` of each COPY line."""
    found = []
    for line in dockerfile.splitlines():
        if line.startswith("COPY "):
            *sources, dest = line.split()[1:]
            found.append((sources, dest))
    return found


def build_context(tmp: Path) -> Path:
    """The image's /app: the Dockerfile's COPY lines applied to an empty directory."""
    text = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    app = tmp / "app"
    app.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".mypy_cache")
    for sources, dest in copies(text):
        for source in sources:
            src = ROOT / source
            target = app / dest if dest not in ("./", ".") else app / Path(source).name
            if dest.endswith("/") and dest not in ("./",):
                target = app / dest / Path(source).name
            if src.is_dir():
                shutil.copytree(src, target, ignore=ignore)
            else:
                shutil.copy2(src, target)
    return app


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment holding what the image holds; its bin directory."""
    tmp = tmp_path_factory.mktemp("image")
    text = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    install = re.search(r"RUN (pip install [^&\n]*)", text)
    assert install is not None, "the Dockerfile installs the project with pip"
    args = shlex.split(install.group(1))[2:]
    assert args[-1] == ".", args
    app = build_context(tmp)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    # The dependencies: this environment's site-packages as a plain path entry.
    (venv_site := next((venv / "lib").glob("python3*/site-packages"))).mkdir(exist_ok=True)
    (venv_site / "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    python = venv / "bin" / "python"
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", *[a for a in args[:-1] if a != "--no-cache-dir"], str(app)],
        cwd=tmp, capture_output=True, text=True, timeout=scaled(300),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return venv / "bin"


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp), "LANG": "C.UTF-8"}
    env.update(dockerfile_env((DEPLOY / "Dockerfile").read_text(encoding="utf-8")))
    env["HAMLET_DATA_DIR"] = str(tmp / "data")
    env.update(extra)
    return env


def test_the_installed_packages_come_from_the_image_not_the_checkout(
    image: Path, tmp_path: Path
) -> None:
    where = subprocess.run(
        [str(image / "python"), "-c",
         "import cli, server, workers, web, games, bots, hamlet; "
         "print('\\n'.join(m.__file__ for m in (cli, server, workers, web, games, bots, hamlet)))"],
        cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True, check=True,
    )  # fmt: skip
    for path in where.stdout.split():
        assert str(image.parent) in path, path


def test_hamlet_server_worker_check_and_web_start_from_the_image(
    image: Path, tmp_path: Path
) -> None:
    hamlet = str(image / "hamlet")
    grpc_port, web_port = free_port(), free_port()
    env = _env(
        tmp_path,
        HAMLET_GRPC_PORT=str(grpc_port),
        HAMLET_METRICS_PORT="-1",
        HAMLET_REDIS_URL=f"redis://127.0.0.1:{free_port()}/0",
        HAMLET_SERVER_ADDR=f"127.0.0.1:{grpc_port}",
        HAMLET_WEB_PORT=str(web_port),
    )
    logs = {name: (tmp_path / f"{name}.log").open("wb") for name in ("server", "web")}
    server = subprocess.Popen(
        [hamlet, "server"], env=env, cwd=tmp_path, stdout=logs["server"],
        stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    web = None
    try:

        def healthy() -> bool:
            assert server.poll() is None, (tmp_path / "server.log").read_text()
            probe = subprocess.run(
                [hamlet, "health", "--timeout", "2"], env=env, cwd=tmp_path, capture_output=True
            )
            return probe.returncode == 0

        wait_until(healthy, scaled(60), "hamlet server from the image")
        check = subprocess.run(
            [hamlet, "worker", "--check-sandbox"], env=env, cwd=tmp_path,
            capture_output=True, text=True, timeout=scaled(120),
        )  # fmt: skip
        # 0: uploaded bots can be played here; 1: a guarantee is missing on this host. Either
        # way the check ran from the image's files (an import error would be neither).
        assert check.returncode in (0, 1), check.stdout + check.stderr
        assert "sandbox tier:" in check.stdout, check.stdout + check.stderr
        web = subprocess.Popen(
            [hamlet, "web"], env=env, cwd=tmp_path, stdout=logs["web"],
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        base = f"http://127.0.0.1:{web_port}"

        def page(path: str) -> tuple[int, str]:
            with urllib.request.urlopen(base + path, timeout=10) as answer:
                return answer.status, answer.read().decode()

        def serving() -> bool:
            assert web is not None and web.poll() is None, (tmp_path / "web.log").read_text()
            try:
                return page("/livez")[0] == 200
            except OSError:
                return False

        wait_until(serving, scaled(60), "hamlet web from the image")
        status, html = page("/")
        assert status == 200 and "<html" in html.lower()
        assert page("/static/style.css")[0] == 200
        assert page("/healthz")[0] == 200  # the server answers
        # The rulebooks come with the installed copy (no checkout in the image).
        status, rules = page("/games/village/rules")
        assert status == 200 and "<table" in rules, rules[:500]
        print(f"\nimage contents: server, worker --check-sandbox (exit {check.returncode}), web")
        print(check.stdout.strip().splitlines()[-1])
    finally:
        for proc in (web, server):
            if proc is not None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(scaled(30))
        for log in logs.values():
            log.close()
