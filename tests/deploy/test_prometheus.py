"""The monitoring, checked by a real Prometheus against a running Hamlet.

``promtool`` checks the deploy/ scrape configs and alert rules. Then a private
redis-server, the gRPC server (SQLite, metrics on a free port) and a real Celery worker play
a small tournament in which one uploaded bot crashes at import, while Prometheus (its own
binary, a temporary config scraping both endpoints every second, its data in tmp) watches.
Every dashboard query and every alert expression is sent to Prometheus's HTTP API: each must
parse, and each must return data unless the run legitimately has none (listed below). A copy
of the rules with no ``for:`` delay must show the forfeit alert firing.

Prometheus comes from Debian's ``prometheus`` package (``.ci/run`` installs it); the tests
are skipped, saying so, where ``prometheus`` or ``promtool`` cannot be found.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from hamlet.v1 import arena_pb2
from server.app import build_server
from server.config import Settings
from tests.deploy.test_dashboards import DEPLOY
from tests.integration.stack import (
    Worker,
    arena,
    bots_announced,
    free_port,
    redis_server,
    wait_until,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

ALERTS = DEPLOY / "alerts.yml"
DASHBOARDS = DEPLOY / "grafana" / "dashboards"
EXAMPLE = Path(__file__).parents[2] / "bots" / "examples" / "random_uploaded.py"
CRASHER = "raise SystemExit(3)\n"
GAME = "village"

#: Metrics a clean run has no series of, and why (their queries must still parse).
MAY_BE_EMPTY = {
    "hamlet_worker_unrated_matches_total": "only workers without the full sandbox count it",
    "hamlet_server_ladder_blocks_total": "no bot is on a ladder in this run",
    "hamlet_worker_credential_refused_total": "every worker here has a valid token",
    "hamlet_worker_pauses_total": "no worker here is paused",
}
#: Alerts that must not fire here: their expressions are legitimately empty.
QUIET_ALERTS = {
    "HamletServerDown",
    "HamletNoWorkerSeen",
    "HamletWorkerDown",
    "HamletQueueGrowing",
    "HamletNoMatchFinished",
    "HamletMatchesFailed",
    "HamletMatchesVoided",
    "HamletServerErrors",
    "HamletWorkerCredentialRefused",
    "HamletWorkerSandboxFailing",
    "HamletStoreSlow",
}
FIRING = "HamletForfeitRateHigh"


def binary(name: str) -> str:
    found = shutil.which(name)
    if not found:
        pytest.skip(f"no {name} on PATH (Debian: apt-get install prometheus; .ci/run installs it)")
    return found


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [binary("promtool"), *args], capture_output=True, text=True, timeout=60, check=False
    )


# --- promtool on the deploy files ---------------------------------------------------------


def test_promtool_accepts_the_alert_rules() -> None:
    done = promtool("check", "rules", str(ALERTS))
    print(done.stdout + done.stderr)
    assert done.returncode == 0, done.stdout + done.stderr


def test_promtool_accepts_the_compose_scrape_config() -> None:
    done = promtool("check", "config", str(DEPLOY / "prometheus.yml"))
    print(done.stdout + done.stderr)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 rule files found" in done.stdout + done.stderr


def test_promtool_accepts_the_kubernetes_scrape_config(tmp_path: Path) -> None:
    config = DEPLOY / "kubernetes" / "prometheus.yml"
    (tmp_path / "alerts.yml").write_text(ALERTS.read_text())  # mounted next to it
    shutil.copy(config, tmp_path / "prometheus.yml")
    done = promtool("check", "config", str(tmp_path / "prometheus.yml"))
    out = done.stdout + done.stderr
    if done.returncode and "field kubernetes_sd_configs not found" in out:
        # Debian builds Prometheus without Kubernetes discovery: check everything else
        # (relabelling, rules) with the discovery block swapped for a static target.
        parsed = yaml.safe_load(config.read_text())
        for job in parsed["scrape_configs"]:
            assert job.pop("kubernetes_sd_configs") == [{"role": "pod"}]
            job["static_configs"] = [{"targets": ["127.0.0.1:9464"]}]
        (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(parsed))
        done = promtool("check", "config", str(tmp_path / "prometheus.yml"))
        out = "this promtool has no Kubernetes discovery; checked the rest:\n"
        out += done.stdout + done.stderr
    print(out)
    assert done.returncode == 0, out
    assert "1 rule files found" in out


# --- a real Prometheus scraping a running Hamlet --------------------------------------------


class Prometheus:
    """A private Prometheus process and a client of its HTTP API."""

    def __init__(self, tmp: Path, config: dict[str, Any], rules: dict[str, Any]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        (tmp / "prometheus").mkdir()
        (tmp / "prometheus" / "alerts.yml").write_text(yaml.safe_dump(rules))
        (tmp / "prometheus" / "prometheus.yml").write_text(yaml.safe_dump(config))
        self.log = tmp / "prometheus" / "prometheus.log"
        self.proc = subprocess.Popen(
            [
                binary("prometheus"),
                f"--config.file={tmp / 'prometheus' / 'prometheus.yml'}",
                f"--storage.tsdb.path={tmp / 'prometheus' / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
                "--log.level=warn",
            ],
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def get(self, path: str, **params: str) -> Any:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        try:
            with urllib.request.urlopen(f"{self.url}{path}{query}", timeout=10) as r:
                return json.loads(r.read().decode())
        except urllib.error.HTTPError as exc:  # a bad query answers 400 with a JSON error
            return json.loads(exc.read().decode())

    def ready(self) -> bool:
        assert self.proc.poll() is None, self.log.read_text(errors="replace")
        try:
            with urllib.request.urlopen(f"{self.url}/-/ready", timeout=2) as r:
                return bool(r.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def query(self, expr: str) -> dict[str, Any]:
        answer: dict[str, Any] = self.get("/api/v1/query", query=expr)
        return answer

    def value(self, expr: str) -> float | None:
        found = self.query(expr).get("data", {}).get("result", [])
        return float(found[0]["value"][1]) if found else None

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


def dashboard_exprs() -> list[tuple[str, str]]:
    """(where, PromQL) for every panel target and every template variable."""
    out = []
    for path in sorted(DASHBOARDS.glob("*.json")):
        board = json.loads(path.read_text())
        for var in board.get("templating", {}).get("list", []):
            query = var["query"]["query"] if isinstance(var["query"], dict) else var["query"]
            inner = re.fullmatch(r"label_values\((.*),\s*\w+\)", query)
            out.append((f"variable ${var['name']}", inner.group(1) if inner else query))
        for panel in board["panels"]:
            for target in panel.get("targets", []):
                out.append((f"panel {panel['title']!r}", target["expr"]))
    # Grafana's variables at "All" (their allValue).
    return [(w, e.replace("$job", ".*").replace("$instance", ".*")) for w, e in out]


def alert_rules() -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = yaml.safe_load(ALERTS.read_text())["groups"][0]["rules"]
    return rules


def scrape_config(server_port: int, worker_port: int) -> dict[str, Any]:
    return {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "rule_files": ["alerts.yml"],
        "scrape_configs": [
            {
                "job_name": "hamlet-server",
                "static_configs": [{"targets": [f"127.0.0.1:{server_port}"]}],
            },
            {
                "job_name": "hamlet-worker",
                "static_configs": [{"targets": [f"127.0.0.1:{worker_port}"]}],
            },
        ],
    }


def without_delays(rules: dict[str, Any]) -> dict[str, Any]:
    """The rules with every ``for:`` removed: an alert fires at its first true evaluation."""
    copy: dict[str, Any] = json.loads(json.dumps(rules))
    for group in copy["groups"]:
        for rule in group["rules"]:
            rule.pop("for", None)
    return copy


@contextlib.contextmanager
def hamlet_and_prometheus(tmp: Path) -> Iterator[tuple[Any, Prometheus]]:
    """Redis, the server, one worker and Prometheus; everything stopped on the way out."""
    binary("prometheus")
    with redis_server(tmp) as redis_url, contextlib.ExitStack() as stack:
        settings = Settings(
            data_dir=tmp / "data",
            redis_url=redis_url,
            grpc_host="127.0.0.1",
            grpc_port=0,
            metrics_port=0,
            match_lease_seconds=20.0,
            queue_timeout_seconds=30.0,
            reaper_interval_seconds=0.5,
        )
        server, port = build_server(settings)
        stack.callback(server.stop, 1)
        channel, stub = arena(port, (settings.data_dir / "admin.token").read_text().strip())
        stack.callback(channel.close)
        worker_port = free_port()
        worker = Worker(
            tmp,
            redis_url,
            f"127.0.0.1:{port}",
            "w1",
            HAMLET_WORKER_TOKEN_FILE=str(settings.data_dir / "worker.token"),
            HAMLET_WORKER_METRICS_PORT=str(worker_port),
        )
        stack.callback(worker.stop)
        assert server.metrics_port
        rules = without_delays(yaml.safe_load(ALERTS.read_text()))
        prometheus = Prometheus(tmp, scrape_config(server.metrics_port, worker_port), rules)
        stack.callback(prometheus.stop)
        try:
            wait_until(prometheus.ready, 60, "Prometheus to be ready")
            wait_until(lambda: bots_announced(stub, {"random"}), 60, "the worker's bots")
            yield stub, prometheus
        except BaseException:
            print(worker.output()[-4000:])
            print(prometheus.log.read_text(errors="replace")[-4000:])
            raise


def test_prometheus_scrapes_hamlet_and_every_query_and_alert_works(tmp_path: Path) -> None:
    started = time.monotonic()
    with hamlet_and_prometheus(tmp_path) as (stub, prom):
        # The counters at 0 are scraped before any match finishes, so rates see every match.
        zero = f'hamlet_server_matches_finished_total{{game="{GAME}", outcome="forfeit"}}'
        wait_until(lambda: prom.value(zero) == 0, 30, "Prometheus to scrape the server")
        for name, source in (("example", EXAMPLE.read_text()), ("crasher", CRASHER)):
            stub.SubmitBot(
                arena_pb2.SubmitBotRequest(name=name, game=GAME, source=source), timeout=10
            )
        created = stub.CreateTournament(
            arena_pb2.CreateTournamentRequest(
                game=GAME,
                bots=["random", "first", "example", "crasher"],
                players_per_table=2,
                rounds=1,
                seed=7,
                decision_time_ms=3000,
                start=True,
            ),
            timeout=10,
        )
        ref = arena_pb2.TournamentRef(tournament_id=created.tournament_id)

        def settled() -> bool:
            t = stub.GetTournament(ref, timeout=10)
            done = t.matches_finished + t.matches_failed + t.matches_cancelled
            return bool(t.matches_total > 0 and done == t.matches_total)

        wait_until(settled, 150, "the tournament", step=0.5)
        total = stub.GetTournament(ref, timeout=10).matches_total
        stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game=GAME), timeout=30)
        finished = "sum(hamlet_server_matches_finished_total)"
        wait_until(lambda: prom.value(finished) == total, 30, "Prometheus to see every match")
        # A rate needs two samples: the fit's histogram appeared with the fit.
        fits = "min(count_over_time(hamlet_server_rating_fit_seconds_count[1h]))"
        wait_until(lambda: (prom.value(fits) or 0) >= 2, 30, "two scrapes after the fit")
        crashes = 'sum(hamlet_worker_forfeits_total{reason="crash"})'
        assert (prom.value(crashes) or 0) > 0, "the crashing bot did not forfeit"

        targets = prom.get("/api/v1/targets")["data"]["activeTargets"]
        assert sorted((t["labels"]["job"], t["health"]) for t in targets) == [
            ("hamlet-server", "up"),
            ("hamlet-worker", "up"),
        ], targets

        def firing() -> list[str]:
            alerts = prom.get("/api/v1/alerts")["data"]["alerts"]
            return sorted(a["labels"]["alertname"] for a in alerts if a["state"] == "firing")

        wait_until(lambda: FIRING in firing(), 30, f"{FIRING} to fire")
        series = prom.query(f'ALERTS{{alertname="{FIRING}", alertstate="firing"}}')
        assert series["data"]["result"][0]["metric"]["game"] == GAME

        lines = [f"tournament: {total} matches; firing alerts: {firing()}"]
        failures = []
        for where, expr in dashboard_exprs():
            answer = prom.query(expr)
            if answer.get("status") != "success":
                failures.append(f"{where}: {expr}: {answer.get('error')}")
                continue
            n = len(answer["data"]["result"])
            excused = [m for m in MAY_BE_EMPTY if m in expr]
            lines.append(
                f"{n:3d} series  {where}" + (f" ({MAY_BE_EMPTY[excused[0]]})" if excused else "")
            )
            if n == 0 and not excused:
                failures.append(f"{where}: {expr}: no data")
        for rule in alert_rules():
            name, expr = rule["alert"], rule["expr"]
            answer = prom.query(expr)
            if answer.get("status") != "success":
                failures.append(f"alert {name}: {expr}: {answer.get('error')}")
                continue
            n = len(answer["data"]["result"])
            lines.append(f"{n:3d} series  alert {name}")
            if name == FIRING and n == 0:
                failures.append(f"alert {name} has no data")
            if name in QUIET_ALERTS and n:
                failures.append(f"alert {name} is true: {answer['data']['result']}")
        lines.append(f"took {time.monotonic() - started:.0f}s")
        print("\n".join(lines))
        assert not failures, "\n".join(failures)
        assert {r["alert"] for r in alert_rules()} == QUIET_ALERTS | {FIRING}
