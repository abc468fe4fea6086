"""Find and stop every process of one home, whatever its run files say (Linux ``/proc``).

The state file and the pid file are written by the supervisor, so a full disk,
a crash or a hand that deleted them leaves them missing or stale; the
processes themselves are the truth. A process belongs to a home when it runs
one of the supervisor's modules (``python -m mnemex.supervisor``, its
``.foreground`` and ``.child`` forms) and its environment's ``MNEMEX_HOME``
(relative to its working directory) is that home. The supervisor hands every
child that variable, and ``mnemex up`` and ``mnemex up --detach`` hand it to
the supervisor, so it is set even for the default home. Processes of other
users cannot be read and are never matched.

Elsewhere than Linux (no ``/proc``) nothing is found, and ``mnemex down``
relies on the pid file and the state file alone.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")
ROLES = {
    "mnemex.supervisor": "supervisor",
    "mnemex.supervisor.foreground": "supervisor",
    "mnemex.supervisor.child": "service",
}


@dataclass(frozen=True)
class HomeProcess:
    pid: int
    role: str  # "supervisor" or "service"
    name: str  # "supervisor", or the service's module ("services.memory", "gateway")
    parent: int = 0  # its parent's pid when it was found

    def describe(self) -> str:
        return f"{self.name} (pid {self.pid})"


def _module_of(argv: list[str]) -> tuple[str, str] | None:
    """(role, name) when ``argv`` runs one of the supervisor's modules with ``-m``."""
    for index, arg in enumerate(argv[:-1]):
        if arg == "-m" and argv[index + 1] in ROLES:
            module = argv[index + 1]
            role = ROLES[module]
            if role == "service":
                name = argv[index + 2] if len(argv) > index + 2 else "service"
                return role, name
            return role, "supervisor"
    return None


def _home_of(pid_dir: Path) -> str | None:
    """The process's ``MNEMEX_HOME``, made absolute against its working directory (None when unset or unreadable)."""
    try:
        environ = (pid_dir / "environ").read_bytes()
    except OSError:
        return None
    for entry in environ.split(b"\0"):
        if entry.startswith(b"MNEMEX_HOME="):
            value = os.fsdecode(entry[len(b"MNEMEX_HOME=") :])
            try:
                cwd = os.readlink(pid_dir / "cwd")
            except OSError:
                cwd = "/"
            return os.path.realpath(os.path.join(cwd, os.path.expanduser(value)))
    return None


def home_processes(home: Path, proc: Path = PROC) -> list[HomeProcess]:
    """Every live process of ``home``: supervisors first, then services, by pid."""
    wanted = os.path.realpath(home)
    found = []
    try:
        entries = list(proc.iterdir())
    except OSError:
        return []
    for pid_dir in entries:
        if not pid_dir.name.isdigit() or int(pid_dir.name) == os.getpid():
            continue
        try:
            argv = [os.fsdecode(arg) for arg in (pid_dir / "cmdline").read_bytes().split(b"\0") if arg]
        except OSError:
            continue
        module = _module_of(argv)
        if module is None or _home_of(pid_dir) != wanted:
            continue
        parent = _parent_of(pid_dir)
        if parent is not None:
            found.append(HomeProcess(int(pid_dir.name), *module, parent=parent))
    return sorted(found, key=lambda p: (p.role != "supervisor", p.pid))


def unsupervised(processes: list[HomeProcess]) -> list[HomeProcess]:
    """The services among ``processes`` whose parent is none of the supervisors among them (left behind)."""
    supervisors = {p.pid for p in processes if p.role == "supervisor"}
    return [p for p in processes if p.role == "service" and p.parent not in supervisors]


def _parent_of(pid_dir: Path) -> int | None:
    """The parent pid of a live process; None when it is gone or a zombie."""
    try:
        fields = (pid_dir / "stat").read_text(encoding="ascii", errors="replace").rsplit(") ", 1)[1].split()
    except (OSError, IndexError):
        return None
    if not fields or fields[0] in ("Z", "X") or len(fields) < 2 or not fields[1].isdigit():
        return None
    return int(fields[1])


def alive(pid: int) -> bool:
    """True unless the process is gone or a zombie (dead, waiting for its parent to reap it)."""
    try:
        stat = (PROC / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return stat.rsplit(") ", 1)[-1][:1] not in ("Z", "X")


def _signal(process: HomeProcess, sig: signal.Signals) -> None:
    # A service leads its own process group (the supervisor starts it so): the group takes along
    # anything the service started itself.
    if process.role == "service":
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(process.pid, sig)


def stop_processes(processes: Iterable[HomeProcess], grace: float) -> list[HomeProcess]:
    """SIGTERM (and SIGCONT) each, wait up to ``grace`` seconds, SIGKILL what is left; returns those stopped."""
    targets = list(processes)
    for process in targets:
        _signal(process, signal.SIGTERM)
        _signal(process, signal.SIGCONT)  # a stopped process acts on SIGTERM only once it runs again
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(alive(p.pid) for p in targets):
        time.sleep(0.1)
    for process in targets:
        if alive(process.pid):
            _signal(process, signal.SIGKILL)
    end = time.monotonic() + 5.0
    while time.monotonic() < end and any(alive(p.pid) for p in targets):
        time.sleep(0.05)
    return [p for p in targets if not alive(p.pid)]
