"""The deployment files are valid and wired: compose files against the Compose
Specification's schema, Kubernetes manifests against Kubernetes' own schemas (strict: an
unknown field fails), and the wiring no schema sees: every HAMLET_* variable set is one the code
reads, every secret a variable names is mounted, selectors select, images are pinned, every
container has resources and drops its capabilities. (promtool's checks of the Prometheus
files are in test_prometheus.py.)"""

from __future__ import annotations

import importlib.resources
import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "kubernetes"
MANIFESTS = ("hamlet.yaml", "backing.yaml", "monitoring.yaml")
#: The oldest Kubernetes the manifests are for (hostUsers with procMount Unmasked: 1.33).
K8S_VERSION = "1.33.0"
COMPOSE_FILES = ("compose.yaml", "compose.tls.yaml")
SOURCES = ("server", "workers", "cli", "web", "hamlet")


@cache
def variables_read() -> frozenset[str]:
    """Every HAMLET_* name written in the code (how the code reads a variable)."""
    found: set[str] = set()
    for package in SOURCES:
        for path in (ROOT / package).rglob("*.py"):
            found.update(re.findall(r"HAMLET_[A-Z0-9_]+", path.read_text(encoding="utf-8")))
    # server.config.secret() reads NAME and NAME_FILE for the names it is given.
    for name in re.findall(r'secret\(env, "(HAMLET_[A-Z_]+)"\)', _text("server/config.py")):
        found.add(f"{name}_FILE")
    return frozenset(found)


def _text(rel: str) -> str:
    return (ROOT / rel).read_text(encoding="utf-8")


def k8s_documents() -> Iterator[tuple[str, dict[str, Any]]]:
    for name in MANIFESTS:
        for doc in yaml.safe_load_all((K8S / name).read_text(encoding="utf-8")):
            if doc:
                yield name, doc


def compose(name: str = "compose.yaml") -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DEPLOY / name).read_text(encoding="utf-8"))
    return data


# -- compose --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", COMPOSE_FILES)
def test_compose_files_follow_the_compose_specification(name: str) -> None:
    schemas = importlib.resources.files("check_jsonschema.builtin_schemas.vendor")
    schema = json.loads((schemas / "compose-spec.json").read_text(encoding="utf-8"))
    jsonschema.validate(compose(name), schema)


def test_compose_services_set_only_variables_the_code_reads() -> None:
    for name in COMPOSE_FILES:
        for service, spec in compose(name)["services"].items():
            for var in spec.get("environment", {}):
                if var.startswith("HAMLET_"):
                    assert var in variables_read(), f"{name}: {service} sets unknown {var}"


def test_compose_secret_files_are_mounted_where_the_variables_say() -> None:
    base, tls = compose(), compose("compose.tls.yaml")
    declared = {**base["secrets"], **tls["secrets"]}
    for layer in (base, tls):
        for service, spec in layer["services"].items():
            mounted = set(spec.get("secrets", base["services"][service].get("secrets", [])))
            assert mounted <= set(declared), f"{service} mounts an undeclared secret"
            env = {
                **base["services"][service].get("environment", {}),
                **spec.get("environment", {}),
            }
            for var, value in env.items():
                if str(value).startswith("/run/secrets/"):
                    secret = str(value).removeprefix("/run/secrets/")
                    assert secret in mounted, f"{service}: {var} names {secret}, not mounted"
    for secret in declared.values():
        assert secret["file"].startswith("./secrets/")  # made by make-secrets.sh
    maker = (DEPLOY / "make-secrets.sh").read_text(encoding="utf-8")
    for name, secret in declared.items():
        assert Path(secret["file"]).name in maker, f"make-secrets.sh does not make {name}"


def test_compose_keeps_the_server_data_and_the_database_on_volumes() -> None:
    services = compose()["services"]
    data_dir = re.search(r"HAMLET_DATA_DIR=(\S+)", _text("deploy/Dockerfile"))
    assert data_dir is not None
    assert f"serverdata:{data_dir.group(1)}" in services["server"]["volumes"]
    assert "pgdata:/var/lib/postgresql/data" in services["postgres"]["volumes"]
    assert {"server", "worker", "web"} <= set(services)


def test_images_are_pinned() -> None:
    images = [s["image"] for s in compose()["services"].values()]
    for _, doc in k8s_documents():
        for container in _containers(doc):
            images.append(container["image"])
    for image in images:
        tag = image.rpartition(":")[2]
        assert ":" in image and tag != "latest" and re.search(r"\d", tag), image
    assert re.search(r"^FROM \S+:\d[\w.-]*", _text("deploy/Dockerfile"), re.M)


def test_the_dockerfile_copies_every_package_of_the_project() -> None:
    copied = set(re.findall(r"^COPY (\S+) \1$", _text("deploy/Dockerfile"), re.M))
    config = _text("pyproject.toml")
    packages = re.search(r"include = \[([^\]]*)\]", config)
    assert packages is not None
    wanted = {p.strip().strip('"').rstrip("*") for p in packages.group(1).split(",")}
    assert wanted <= copied, f"the image lacks {sorted(wanted - copied)}"


# -- Kubernetes -----------------------------------------------------------------------------


def _containers(doc: dict[str, Any]) -> list[dict[str, Any]]:
    spec = _pod_spec(doc)
    return [] if spec is None else list(spec.get("containers", []))


def _pod_spec(doc: dict[str, Any]) -> dict[str, Any] | None:
    if doc["kind"] in ("Deployment", "StatefulSet"):
        spec: dict[str, Any] = doc["spec"]["template"]["spec"]
        return spec
    return None


@pytest.mark.parametrize(
    "doc", [d for _, d in k8s_documents()], ids=lambda d: f"{d['kind']}/{d['metadata']['name']}"
)
def test_kubernetes_manifests_validate_strictly(doc: dict[str, Any]) -> None:
    kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def test_kubernetes_containers_are_hardened_and_sized() -> None:
    for name, doc in k8s_documents():
        pod = _pod_spec(doc)
        if pod is None:
            continue
        where = f"{name} {doc['metadata']['name']}"
        assert pod["securityContext"]["runAsNonRoot"] is True, where
        assert "seccompProfile" in pod["securityContext"], where
        for container in pod["containers"]:
            assert container["resources"]["requests"] and container["resources"]["limits"], where
            context = container["securityContext"]
            assert context["allowPrivilegeEscalation"] is False, where
            assert context["capabilities"]["drop"] == ["ALL"], where
            assert not context.get("privileged"), where


def test_kubernetes_wiring() -> None:
    docs = [d for _, d in k8s_documents()]
    by_kind: dict[str, dict[str, dict[str, Any]]] = {}
    for doc in docs:
        by_kind.setdefault(doc["kind"], {})[doc["metadata"]["name"]] = doc
    pods = {
        name: d["spec"]["template"]["metadata"]["labels"]
        for kind in ("Deployment", "StatefulSet")
        for name, d in by_kind[kind].items()
    }
    selectors = [d["spec"]["selector"] for d in by_kind["Service"].values()]
    selectors += [
        d["spec"]["selector"]["matchLabels"] for d in by_kind["PodDisruptionBudget"].values()
    ]
    for selector in selectors:
        assert any(selector.items() <= labels.items() for labels in pods.values()), selector
    for hpa in by_kind["HorizontalPodAutoscaler"].values():
        assert hpa["spec"]["scaleTargetRef"]["name"] in by_kind["Deployment"]
    generated = {
        g["name"] for g in yaml.safe_load(_text("deploy/kustomization.yaml"))["configMapGenerator"]
    }
    secret_keys = set(re.findall(r"--from-file=(\w+)=", _text("deploy/README.md")))
    for name, doc in k8s_documents():
        pod = _pod_spec(doc)
        if pod is None:
            continue
        volumes = {v["name"]: v for v in pod.get("volumes", [])}
        claims = {c["metadata"]["name"] for c in doc["spec"].get("volumeClaimTemplates", [])}
        volumes.update({c: {"persistentVolumeClaim": c} for c in claims})
        for container in pod["containers"]:
            mounts = {m["mountPath"]: volumes[m["name"]] for m in container.get("volumeMounts", [])}
            for ref in container.get("envFrom", []):
                assert ref["configMapRef"]["name"] in by_kind["ConfigMap"]
            env = {e["name"]: e.get("value", "") for e in container.get("env", [])}
            for ref in container.get("envFrom", []):
                env.update(by_kind["ConfigMap"][ref["configMapRef"]["name"]]["data"])
            for var, value in env.items():
                if var.startswith("HAMLET_"):
                    assert var in variables_read(), f"{name}: {var} is read by nothing"
                if var.endswith("_FILE"):
                    directory, _, key = value.rpartition("/")
                    assert directory in mounts, f"{name}: {var}={value} is on no volume"
                    secret = mounts[directory]["secret"]
                    assert key in {i["path"] for i in secret["items"]}, f"{name}: {var}"
        for volume in volumes.values():
            if "configMap" in volume:
                assert volume["configMap"]["name"] in generated | set(by_kind["ConfigMap"])
            if "secret" in volume:
                keys = {i["key"] for i in volume["secret"]["items"]}
                assert keys <= secret_keys, f"README's `kubectl create secret` lacks {keys}"
    root = DEPLOY / "kustomization.yaml"
    kustomization = yaml.safe_load(root.read_text(encoding="utf-8"))
    for resource in kustomization["resources"]:
        assert (DEPLOY / resource).is_file(), resource
    for generator in kustomization["configMapGenerator"]:
        for entry in generator["files"]:
            assert (DEPLOY / entry.rpartition("=")[2]).is_file(), entry


def test_the_seccomp_profile_allows_what_bubblewrap_needs_and_little_else() -> None:
    profile = json.loads(_text("deploy/seccomp-worker.json"))
    refused = {n for rule in profile["syscalls"] for n in rule["names"]}
    assert profile["defaultAction"] == "SCMP_ACT_ALLOW"
    assert not refused & {"unshare", "clone", "clone3", "mount", "umount2", "pivot_root"}
    assert {"setns", "bpf", "ptrace", "kexec_load", "init_module", "keyctl"} <= refused
