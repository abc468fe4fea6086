"""Control a stack from outside: start it detached, wait for it, query it, stop it.

``ensure_running(settings, timeout)`` is what hooks and ``mnemex mcp`` call:
it returns at once when the stack answers, otherwise starts a detached
supervisor (unless one is already starting) and waits for health.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kernel.config import Settings
from kernel.json_values import JSONObject, bool_at, int_at, object_at, str_at
from mnemex.supervisor.home_processes import HomeProcess, alive, home_processes, stop_processes
from mnemex.supervisor.probes import Prober
from mnemex.supervisor.specs import ServiceSpec, child_env, stack_specs
from mnemex.supervisor.state import RunPaths, lock_is_held, read_state, running_supervisor_pid
from mnemex.supervisor.status_report import (
    ServiceReport,
    StatusReport,
    SupervisorReport,
    optional_float,
    optional_int,
    optional_str,
)

# Runs in a throw-away intermediate process: it starts the supervisor in a new
# session and exits, so the supervisor is re-parented to init and never
# becomes a zombie of the (possibly long-lived) caller.
_LAUNCHER = (
    "import subprocess, sys\n"
    "log = open(sys.argv[1], 'ab')\n"
    "proc = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=log,"
    " stderr=subprocess.STDOUT, start_new_session=True, close_fds=True)\n"
    "print(proc.pid)\n"
)


def start_detached(settings: Settings, only: Sequence[str] = (), ready_timeout: float | None = None) -> int:
    """Start ``python -m mnemex.supervisor`` in the background; returns its pid."""
    paths = RunPaths(settings.home)
    paths.ensure()
    command = [sys.executable, "-m", "mnemex.supervisor"]
    for name in only:
        command += ["--only", name]
    if ready_timeout is not None:
        command += ["--ready-timeout", str(ready_timeout)]
    reply = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, str(paths.log_file("supervisor")), *command],
        env=child_env(settings),
        cwd=settings.home,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return int(reply.stdout.strip())


def _specs_as_running(settings: Settings, supervised: bool) -> list[ServiceSpec]:
    """The running supervisor's services at their recorded addresses; else the whole stack from settings."""
    recorded = object_at(current_state(RunPaths(settings.home)), "services") if supervised else {}
    specs = stack_specs(settings, tuple(recorded))
    out = []
    for spec in specs:
        address = str_at(object_at(recorded, spec.name), "address") or spec.address
        out.append(ServiceSpec(spec.name, spec.module, address, spec.kind))
    return out


def stack_ready(settings: Settings, only: Sequence[str] = (), timeout: float = 0.5) -> bool:
    prober = Prober()
    try:
        return all(prober.healthy(spec, timeout) for spec in stack_specs(settings, only))
    finally:
        prober.close()


def ensure_running(
    settings: Settings | None = None, timeout: float = 60.0, only: Sequence[str] = (), start: bool = True
) -> bool:
    """True once the stack (or ``only``) is healthy; starts it detached if needed (unless ``start=False``)."""
    settings = settings or Settings.from_env()
    if stack_ready(settings, only):
        return True
    paths = RunPaths(settings.home)
    if start and running_supervisor_pid(paths) is None:
        try:
            start_detached(settings, only)
        except (OSError, subprocess.SubprocessError, ValueError):
            return False  # e.g. MNEMEX_HOME not writable; `mnemex up` in a terminal shows why
    deadline = time.monotonic() + timeout
    launched_at = time.monotonic()
    while time.monotonic() < deadline:
        if stack_ready(settings, only):
            return True
        # The supervisor gave up (port conflict, crash loop): no point waiting on.
        if time.monotonic() - launched_at > 3.0 and not lock_is_held(paths):
            return stack_ready(settings, only)
        time.sleep(0.2)
    return False


def wait_settled(settings: Settings, timeout: float) -> str:
    """Wait for a detached supervisor to finish start-up: ``running``, ``degraded``, ``exited`` or ``timeout``.

    ``degraded``: it runs, but some service is broken (``collect_status`` names it);
    ``exited``: the supervisor gave up (its log says why).
    """
    paths = RunPaths(settings.home)
    deadline = time.monotonic() + timeout
    launched_at = time.monotonic()
    while time.monotonic() < deadline:
        status = str_at(object_at(current_state(paths), "supervisor"), "status")
        held = lock_is_held(paths)
        if held and status in ("running", "degraded"):
            return status
        if not held and time.monotonic() - launched_at > 3.0:
            return "exited"
        time.sleep(0.2)
    return "timeout"


def current_state(paths: RunPaths) -> JSONObject:
    """The state file when the supervisor that wrote it is the one running now, else ``{}``.

    A supervisor that ended on a full disk could not write its last ``stopped``: its file still
    says ``running``, and must not pass for the next supervisor's.
    """
    state = read_state(paths) or {}
    pid = running_supervisor_pid(paths)
    return state if pid is not None and object_at(state, "supervisor").get("pid") == pid else {}


def broken_services(report: StatusReport) -> list[str]:
    """``name: problem (log: path)`` for each service of a ``collect_status`` report that is not healthy."""
    return [
        f"{name}: {service.get('problem') or service.get('status')} (log: {service.get('log')})"
        for name, service in report["services"].items()
        if not service["healthy"]
    ]


@dataclass(frozen=True)
class Stopped:
    """What ``down`` stopped: the supervisor it asked to stop, and processes of the home it stopped itself."""

    supervisor_pid: int | None
    leftovers: tuple[HomeProcess, ...] = ()

    @property
    def anything(self) -> bool:
        return self.supervisor_pid is not None or bool(self.leftovers)

    def describe(self, home: Path) -> str:
        """The line ``mnemex down`` prints."""
        if not self.anything:
            return f"mnemex is not running for {home}; nothing to stop (no process of this home found)."
        parts = []
        if self.supervisor_pid is not None:
            parts.append(f"mnemex stopped (supervisor pid {self.supervisor_pid}).")
        if self.leftovers:
            names = ", ".join(p.describe() for p in self.leftovers)
            parts.append(
                f"Also stopped {len(self.leftovers)} process(es) of this home that no supervisor stopped "
                f"(found by their MNEMEX_HOME, not in the state file): {names}."
            )
        return " ".join(parts)


def down(settings: Settings, timeout: float = 20.0) -> int | None:
    """Stop every process of this home (``stop_home``); returns the supervisor's pid, or None if none ran."""
    return stop_home(settings, timeout).supervisor_pid


def stop_home(settings: Settings, timeout: float = 20.0) -> Stopped:
    """Stop every process of this home: the supervisor (which stops its children), then whatever is left.

    The supervisor is found by its lock (pid file, else the lock's holder); what it leaves, or what
    runs without one (a supervisor that died on a full disk, a state file never written), is found
    by ``home_processes`` and stopped with SIGTERM, then SIGKILL.
    """
    paths = RunPaths(settings.home)
    pid = running_supervisor_pid(paths)
    if pid is not None and (pid <= 1 or pid == os.getpid()):
        pid = None
    if pid is None:  # a supervisor whose lock file is gone still shows in /proc
        supervisors = [p.pid for p in home_processes(settings.home) if p.role == "supervisor"]
        pid = supervisors[0] if supervisors else None
    if pid is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and (lock_is_held(paths) or alive(pid)):
            time.sleep(0.1)
        if lock_is_held(paths) or alive(pid):  # hung: take it down hard; its children follow below
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    leftovers = stop_processes(home_processes(settings.home), grace=min(timeout, 10.0))
    return Stopped(pid, tuple(p for p in leftovers if p.pid != pid))


def collect_status(settings: Settings, probe_timeout: float = 0.5) -> StatusReport:
    """Recorded state merged with live probes, as ``mnemex status --json`` prints it."""
    paths = RunPaths(settings.home)
    state = current_state(paths)
    supervisor_pid = running_supervisor_pid(paths)
    recorded = object_at(state, "services")
    prober = Prober()
    services: dict[str, ServiceReport] = {}
    try:
        for spec in _specs_as_running(settings, supervisor_pid is not None):
            entry: JSONObject = dict(object_at(recorded, spec.name)) if supervisor_pid else {}
            healthy, problem = prober.check(spec, probe_timeout)
            if not supervisor_pid:
                entry["status"] = "healthy (not supervised)" if healthy else "down"
            if problem is not None:
                entry["status"] = "unhealthy"
            services[spec.name] = {
                "address": spec.address,
                "pid": optional_int(entry, "pid"),
                "status": str_at(entry, "status", "unknown"),
                "healthy": healthy,
                "problem": None if healthy else (problem or optional_str(entry, "problem")),
                "restarts": int_at(entry, "restarts", 0),
                "last_exit": optional_int(entry, "last_exit"),
                "started_at": optional_str(entry, "started_at"),
                "ready_seconds": optional_float(entry, "ready_seconds"),
                "log": str_at(entry, "log") or str(paths.log_file(spec.name)),
            }
    finally:
        prober.close()
    supervisor = object_at(state, "supervisor") if supervisor_pid else {}
    supervisor_report: SupervisorReport = {
        "pid": supervisor_pid,
        "status": str_at(supervisor, "status", "not running"),
        "started_at": optional_str(supervisor, "started_at"),
        "startup_seconds": optional_float(supervisor, "startup_seconds"),
        "detached": bool_at(supervisor, "detached", False),
    }
    return {
        "running": supervisor_pid is not None,
        "healthy": all(s["healthy"] for s in services.values()),
        "home": str(settings.home),
        "gateway_url": str_at(supervisor, "gateway_url") or settings.gateway_url,
        "supervisor": supervisor_report,
        "services": services,
    }
