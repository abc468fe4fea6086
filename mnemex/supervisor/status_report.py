"""The report ``mnemex status --json`` prints (``control.collect_status``), typed.

The state file the supervisor writes is read once, here: each field of a service or of the
supervisor becomes a typed value (a field of the wrong type reads as missing).
"""

from __future__ import annotations

from typing import TypedDict

from kernel.json_values import JSONObject


class ServiceReport(TypedDict):
    address: str
    pid: int | None
    status: str
    healthy: bool
    problem: str | None
    restarts: int
    last_exit: int | None
    started_at: str | None
    ready_seconds: float | None
    log: str


class SupervisorReport(TypedDict):
    pid: int | None
    status: str
    started_at: str | None
    startup_seconds: float | None
    detached: bool


class StatusReport(TypedDict):
    running: bool
    healthy: bool
    home: str
    gateway_url: str
    supervisor: SupervisorReport
    services: dict[str, ServiceReport]


def optional_int(data: JSONObject, key: str) -> int | None:
    value = data.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def optional_float(data: JSONObject, key: str) -> float | None:
    """A number as it was written (an int stays an int), else None."""
    value = data.get(key)
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def optional_str(data: JSONObject, key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) else None
