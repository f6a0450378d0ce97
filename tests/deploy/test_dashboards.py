"""Every metric a dashboard or the scrape config relies on is one the code exports."""

from __future__ import annotations

import json
import re
from pathlib import Path

from prometheus_client import CollectorRegistry

from server.metrics import ServerMetrics
from workers.metrics import WorkerMetrics

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
NAME = re.compile(r"\bhamlet_[a-z_]+\b")


def exported_names() -> set[str]:
    """Sample names (with _bucket/_sum/_count/_total forms) the code registers."""
    registry = CollectorRegistry()
    ServerMetrics(registry)
    WorkerMetrics(registry)
    names: set[str] = set()
    for family in registry.collect():
        names.add(family.name)
        names.update(sample.name for sample in family.samples)
        if family.type == "histogram":
            names.update(f"{family.name}_{s}" for s in ("bucket", "sum", "count"))
        if family.type == "counter":
            names.add(f"{family.name}_total")
    return names


def dashboard_queries() -> list[str]:
    exprs: list[str] = []
    for path in sorted((DEPLOY / "grafana" / "dashboards").glob("*.json")):
        for panel in json.loads(path.read_text(encoding="utf-8"))["panels"]:
            exprs.extend(target["expr"] for target in panel.get("targets", []))
    return exprs


def test_dashboards_exist_and_query_only_exported_metrics() -> None:
    exported = exported_names()
    queries = dashboard_queries()
    assert queries, "no dashboard queries found"
    unknown = {name for expr in queries for name in NAME.findall(expr)} - exported
    assert not unknown, f"dashboard queries use metrics the code does not export: {unknown}"


def test_every_exported_metric_appears_on_a_dashboard() -> None:
    used = {name for expr in dashboard_queries() for name in NAME.findall(expr)}
    families = {n for n in exported_names() if not n.endswith(("_bucket", "_sum", "_count"))}
    bases = {re.sub(r"_(bucket|sum|count)$", "", n) for n in used}
    missing = {n for n in families if n not in used and n not in bases}
    missing = {
        n for n in missing if f"{n}_total" not in used and n.removesuffix("_total") not in used
    }
    missing = {n for n in missing if not n.endswith("_created")}
    assert not missing, f"metrics without a dashboard panel: {sorted(missing)}"
