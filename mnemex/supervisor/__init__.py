"""Runs the whole mnemex stack as child processes and keeps it running.

    mnemex up              foreground: start, wait for health, supervise
    mnemex up --detach     the same in the background (hooks, ``mnemex mcp``)
    mnemex status / down   read the state file / stop a detached stack

Layout under ``$MNEMEX_HOME``: ``run/state.json`` (per-service pid, address,
status, restarts, last exit), ``run/supervisor.lock`` (flock held by the
running supervisor, so two never run against one home), ``run/supervisor.pid``
and ``logs/<service>.log``. Those files may be missing or stale (a full disk, a
crash): ``mnemex down`` also finds the home's processes by their ``MNEMEX_HOME``
(``home_processes``), and no child outlives its supervisor (``child``).

This package file stays import-light: the child wrapper
(``python -m mnemex.supervisor.child``) imports it before every service start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from mnemex.supervisor.control import down, ensure_running, start_detached
    from mnemex.supervisor.supervisor_loop import Supervisor

__all__ = ["Supervisor", "down", "ensure_running", "start_detached"]


def __getattr__(name: str) -> object:
    if name == "Supervisor":
        from mnemex.supervisor.supervisor_loop import Supervisor

        return Supervisor
    if name in ("ensure_running", "start_detached", "down"):
        from mnemex.supervisor import control

        return getattr(control, name)
    raise AttributeError(name)
