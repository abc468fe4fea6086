"""Where the supervisor keeps its run-time files, and the state file format.

``$MNEMEX_HOME/run/state.json`` (written atomically on every change)::

    {"version": 1,
     "supervisor": {"pid", "status", "started_at", "ready_at", "startup_seconds",
                    "gateway_url", "home", "detached"},
     "services": {"embedding": {"pid", "address", "status", "restarts",
                                "last_exit", "started_at", "log"}, ...}}

Service status is one of ``starting``, ``healthy``, ``unhealthy``,
``backoff`` (crashed, waiting to restart), ``failed`` (kept exiting before it
ever served: not restarted, the others run on), ``stopped``. ``problem`` says
why a service is not serving (its broken store, or the last line of its
start-up error). ``last_exit`` is the
exit code of the last crash, negative for a signal (``-9`` = SIGKILL).

The lock file is held with ``flock`` for the life of a supervisor: the kernel
drops it when the process dies, so a stale pid file never blocks a restart.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from kernel.json_values import JSONObject, parse_value

STATE_VERSION = 1


@dataclass(frozen=True)
class RunPaths:
    home: Path

    @property
    def run_dir(self) -> Path:
        return self.home / "run"

    @property
    def logs_dir(self) -> Path:
        return self.home / "logs"

    @property
    def state_file(self) -> Path:
        return self.run_dir / "state.json"

    @property
    def lock_file(self) -> Path:
        return self.run_dir / "supervisor.lock"

    @property
    def pid_file(self) -> Path:
        return self.run_dir / "supervisor.pid"

    def log_file(self, name: str) -> Path:
        return self.logs_dir / f"{name}.log"

    def ensure(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.logs_dir.mkdir(parents=True, exist_ok=True)


@dataclass
class ServiceState:
    address: str
    log: str
    pid: int | None = None
    status: str = "starting"
    restarts: int = 0
    last_exit: int | None = None
    started_at: str | None = None
    ready_seconds: float | None = None  # spawn -> first healthy probe, for the latest start
    problem: str | None = None  # why it is not serving: a broken store it names, or its start-up error

    def update_exit(self, code: int) -> None:
        """Record a crash; the supervisor restarts the service after a backoff."""
        self.last_exit = code
        self.pid = None
        self.status = "backoff"


@dataclass
class SupervisorState:
    pid: int
    home: str
    gateway_url: str
    status: str = "starting"
    started_at: str = field(default_factory=lambda: now_iso())
    ready_at: str | None = None
    startup_seconds: float | None = None
    detached: bool = False


def describe_exit(code: int) -> str:
    """``-9`` -> "killed by SIGKILL", ``1`` -> "exit code 1"."""
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def write_state(paths: RunPaths, supervisor: SupervisorState, services: dict[str, ServiceState]) -> None:
    """Atomic replace: readers see the old file or the new one, never half."""
    payload = {
        "version": STATE_VERSION,
        "supervisor": asdict(supervisor),
        "services": {name: asdict(state) for name, state in services.items()},
    }
    paths.run_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=paths.run_dir, prefix=".state.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(payload, handle, indent=2)
        os.replace(tmp, paths.state_file)
    except BaseException:  # a full disk: leave no half-written temporary file behind to hold what space is left
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_state(paths: RunPaths) -> JSONObject | None:
    try:
        data = parse_value(paths.state_file.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError, OSError):
        return None
    return data if isinstance(data, dict) else None


class SupervisorLock:
    """Exclusive, process-lifetime lock on ``run/supervisor.lock``."""

    def __init__(self, paths: RunPaths) -> None:
        self._paths = paths
        self._handle: BinaryIO | None = None

    def acquire(self, attempts: int = 5) -> bool:
        """Take the lock; a few retries ride out a ``lock_is_held`` probe's brief hold."""
        self._paths.ensure()
        handle = open(self._paths.lock_file, "a+b")  # noqa: SIM115 - held for the process lifetime
        for attempt in range(attempts):
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if attempt == attempts - 1:
                    handle.close()
                    return False
                time.sleep(0.05)
        self._handle = handle
        # A full disk may refuse the pid file: the lock is what counts, and ``lock_holder`` finds its holder.
        with contextlib.suppress(OSError):
            self._paths.pid_file.write_text(f"{os.getpid()}\n", encoding="utf-8")
        return True

    def release(self) -> None:
        if self._handle is None:
            return
        with contextlib.suppress(OSError):
            if read_pid(self._paths) == os.getpid():
                self._paths.pid_file.unlink()
        fcntl.flock(self._handle.fileno(), fcntl.LOCK_UN)
        self._handle.close()
        self._handle = None


def lock_is_held(paths: RunPaths) -> bool:
    """True while some supervisor holds the lock for this home."""
    if not paths.lock_file.exists():
        return False
    with open(paths.lock_file, "a+b") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        return False


def read_pid(paths: RunPaths) -> int | None:
    try:
        text = paths.pid_file.read_text(encoding="utf-8").strip()
    except (FileNotFoundError, OSError):
        return None
    return int(text) if text.isdigit() else None


def lock_holder(paths: RunPaths, locks: str = "/proc/locks") -> int | None:
    """The pid holding the flock on ``run/supervisor.lock``, read from Linux's ``/proc/locks``; None elsewhere.

    The fallback when the pid file is missing or empty (a full disk refused it, or someone deleted it).
    """
    try:
        info = os.stat(paths.lock_file)
        lines = Path(locks).read_text(encoding="ascii", errors="replace").splitlines()
    except OSError:
        return None
    wanted = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    for line in lines:
        # "1: FLOCK  ADVISORY  WRITE 1234 00:2d:5678 0 EOF"; a waiter's line has "->" after the number.
        fields = line.split()
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == wanted and fields[4].isdigit():
            pid = int(fields[4])
            if pid != os.getpid():
                return pid
    return None


def running_supervisor_pid(paths: RunPaths) -> int | None:
    """The pid of the supervisor running for this home, or None."""
    if not lock_is_held(paths):
        return None
    return read_pid(paths) or lock_holder(paths)
