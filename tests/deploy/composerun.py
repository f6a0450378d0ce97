"""Run compose.yaml's Hamlet services as local processes, as faithfully as a machine without
a container engine allows.

What a container would give a service, and what stands in for it here:

* the image's environment (``ENV`` lines of the Dockerfile) under the service's own
  ``environment`` (nothing of the test runner's ``HAMLET_*`` leaks in);
* the service's ``command``, with ``hamlet`` and ``python`` the test's own;
* other services' host names: loopback, and every port a service listens on (the value of its
  ``*_PORT`` variables, ``--port``) a free one, rewritten wherever ``host:port`` appears;
  ``0.0.0.0`` becomes ``127.0.0.1``;
* ``/run/secrets/NAME``: the file the top-level ``secrets.NAME.file`` names, in a directory
  made by ``make-secrets.sh`` (only for the secrets the service lists: another one is missing,
  as in the container); named volumes and tmpfs mounts: directories;
* health checks: the ``healthcheck.test`` command, run with the same translation, until it
  passes (what ``depends_on: condition: service_healthy`` waits for).

A wiring mistake in compose.yaml (a variable the code does not read, a secret not mounted, a
host or port that does not match) makes a process fail or a health check never pass.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.integration.stack import free_port

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
BIN = Path(sys.executable).parent


def dockerfile_env(text: str) -> dict[str, str]:
    """The ``ENV`` of a Dockerfile (``ENV A=1 \\`` continuation lines included)."""
    joined = re.sub(r"\\\n\s*", " ", text)
    env: dict[str, str] = {}
    for line in joined.splitlines():
        if line.startswith("ENV "):
            env.update(dict(pair.split("=", 1) for pair in line[4:].split()))
    return env


def merge(base: dict[str, Any], overlay: dict[str, Any]) -> None:
    """Compose's merge of ``-f`` files, as far as ours need it: mappings merge key by key,
    sequences are unions in order (``secrets``), ``healthcheck.test`` is replaced."""
    for key, value in overlay.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            merge(base[key], value)
        elif isinstance(value, list) and isinstance(base.get(key), list) and key != "test":
            base[key] = [*base[key], *(v for v in value if v not in base[key])]
        else:
            base[key] = value


@dataclass
class Topology:
    """compose.yaml read, with the stand-ins of one run."""

    compose: dict[str, Any]
    tmp: Path
    secrets_dir: Path
    #: "service:port" (as written in compose) -> the loopback port standing in for it.
    ports: dict[str, int] = field(default_factory=dict)
    image_env: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(
        cls, tmp: Path, secrets_dir: Path, external: dict[str, int], overlays: tuple[str, ...] = ()
    ) -> Topology:
        """``external``: the ports of services run by the test itself (redis, postgres);
        ``overlays``: compose files layered on compose.yaml (``-f compose.tls.yaml``)."""
        compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))
        for overlay in overlays:
            merge(compose, yaml.safe_load((DEPLOY / overlay).read_text(encoding="utf-8")))
        topo = cls(compose, tmp, secrets_dir)
        topo.image_env = dockerfile_env((DEPLOY / "Dockerfile").read_text(encoding="utf-8"))
        topo.ports.update(external)
        for name, spec in compose["services"].items():
            for var, value in (spec.get("environment") or {}).items():
                if var.endswith("_PORT") and str(value).isdigit():
                    topo.ports[f"{name}:{value}"] = free_port()
        return topo

    def service(self, name: str) -> dict[str, Any]:
        spec: dict[str, Any] = self.compose["services"][name]
        return spec

    # -- translation ------------------------------------------------------------------

    def _paths(self, name: str) -> dict[str, Path]:
        """Container path -> host directory or file, for this service."""
        spec = self.service(name)
        paths: dict[str, Path] = {}
        for secret in spec.get("secrets", []):
            source = self.compose["secrets"][secret]["file"]
            paths[f"/run/secrets/{secret}"] = self.secrets_dir / Path(source).name
        for volume in spec.get("volumes", []):
            source, _, target = str(volume).partition(":")
            target = target.split(":")[0]
            if source in self.compose.get("volumes", {}):
                host = self.tmp / "volumes" / source
                host.mkdir(parents=True, exist_ok=True)
                paths[target] = host
        for mount in spec.get("tmpfs", []):
            target = str(mount).split(":")[0]
            host = self.tmp / f"tmpfs-{name}{target.replace('/', '-')}"
            host.mkdir(parents=True, exist_ok=True)
            paths[target] = host
        return paths

    def translate(self, name: str, value: str) -> str:
        """One value as this service would see it, its world mapped onto this machine."""
        out = str(value)
        for target, host in sorted(self._paths(name).items(), key=lambda kv: -len(kv[0])):
            if out == target or out.startswith(target + "/"):
                return str(host) + out[len(target) :]
        if out.startswith("/run/secrets/"):
            return str(self.tmp / "not-mounted" / out.removeprefix("/run/secrets/"))

        def port(match: re.Match[str]) -> str:
            host, number = match.group(1), match.group(2)
            key = f"{name if host in ('127.0.0.1', 'localhost') else host}:{number}"
            return f"127.0.0.1:{self.ports[key]}" if key in self.ports else match.group(0)

        out = re.sub(r"([A-Za-z0-9_.-]+):(\d{2,5})\b", port, out)
        return "127.0.0.1" if out == "0.0.0.0" else out

    def environment(self, name: str) -> dict[str, str]:
        """The process environment of the service."""
        spec = self.service(name)
        home = self.tmp / f"home-{name}"
        home.mkdir(exist_ok=True)
        env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
        merged = {**self.image_env, **(spec.get("environment") or {})}
        for var, value in merged.items():
            if var.endswith("_PORT") and f"{name}:{value}" in self.ports:
                env[var] = str(self.ports[f"{name}:{value}"])
            else:
                env[var] = self.translate(name, str(value))
        tmp = self._paths(name).get("/tmp")
        if tmp is not None:
            env["TMPDIR"] = str(tmp)
        return env

    def argv(self, name: str, command: list[str]) -> list[str]:
        """A command of the service's (its ``command`` or a health check) for this machine."""
        out: list[str] = []
        for i, arg in enumerate(command):
            if i == 0 and arg in ("hamlet", "python"):
                out.append(str(BIN / arg))
            elif i > 0 and command[i - 1] == "--port" and f"{name}:{arg}" in self.ports:
                out.append(str(self.ports[f"{name}:{arg}"]))
            else:
                out.append(self.translate(name, arg))
        return out

    # -- running ------------------------------------------------------------------------

    def start(self, name: str) -> subprocess.Popen[bytes]:
        """Start the service's command; its output goes to ``<tmp>/<name>.log``."""
        spec = self.service(name)
        log = (self.tmp / f"{name}.log").open("wb")
        return subprocess.Popen(
            self.argv(name, list(spec["command"])),
            env=self.environment(name),
            cwd=self.tmp,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def healthy(self, name: str) -> bool:
        """Whether the service's health check passes now."""
        test = list(self.service(name)["healthcheck"]["test"])
        assert test[0] == "CMD", f"{name}: health check must be exec form"
        done = subprocess.run(
            self.argv(name, test[1:]),
            env=self.environment(name),
            cwd=self.tmp,
            capture_output=True,
            timeout=60,
        )
        return done.returncode == 0

    def wait_healthy(self, name: str, proc: subprocess.Popen[bytes], timeout: float) -> None:
        """Run the health check until it passes; fail with the service's log if the process
        exits or the time runs out."""
        deadline = time.monotonic() + timeout
        while not self.healthy(name):
            if proc.poll() is not None or time.monotonic() > deadline:
                why = "exited" if proc.poll() is not None else "never became healthy"
                raise AssertionError(f"{name} {why}:\n{self.output(name)[-4000:]}")
            time.sleep(0.5)

    def output(self, name: str) -> str:
        return (self.tmp / f"{name}.log").read_text(errors="replace")


def stop(proc: subprocess.Popen[bytes], timeout: float = 60) -> int:
    """SIGTERM the process group (as compose stop does), SIGKILL after ``timeout``."""
    import contextlib
    import signal

    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        return proc.wait(10)
