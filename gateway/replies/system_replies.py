"""The system as an admin reads it: what is stored, counted (a project's stats, the user's projects with
their counts), and how the services run (each backend's health, the versions they report)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gateway.replies.reply_json import JsonObject


@dataclass(frozen=True, slots=True)
class MemoryStats:
    counts: Mapping[str, int]
    score_histogram: Mapping[str, int]
    events: Mapping[str, int]
    data_bytes: int
    events_by_day: Mapping[str, object]

    def to_json(self) -> JsonObject:
        return {
            "counts": dict(self.counts),
            "score_histogram": dict(self.score_histogram),
            "events": dict(self.events),
            "data_bytes": self.data_bytes,
            "events_by_day": dict(self.events_by_day),
        }


@dataclass(frozen=True, slots=True)
class ProjectStats:
    user: str
    project: str
    memory: MemoryStats
    kg_counts: Mapping[str, int] | None  # None: the kg did not answer (``kg_error`` says why)
    kg_error: str = ""

    def to_json(self) -> JsonObject:
        kg: JsonObject = {"counts": dict(self.kg_counts)} if self.kg_counts is not None else {"error": self.kg_error}
        return {"user": self.user, "project": self.project, "memory": self.memory.to_json(), "kg": kg}


@dataclass(frozen=True, slots=True)
class ScopeCounts:
    user: str
    project: str
    counts: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class Projects:
    user: str
    current: str | None  # the project the request's cwd resolves to; None without a cwd
    projects: tuple[ScopeCounts, ...]
    bindings: Mapping[str, str]  # directory -> project

    def to_json(self) -> JsonObject:
        return {
            "user": self.user,
            "current": self.current,
            "projects": [{"user": p.user, "project": p.project, "counts": dict(p.counts)} for p in self.projects],
            "bindings": dict(self.bindings),
        }


@dataclass(frozen=True, slots=True)
class ServiceHealth:
    status: str  # SERVING, NOT_SERVING, ..., or DOWN when the probe failed
    detail: str = ""  # the probe's gRPC code when it failed

    def to_json(self) -> JsonObject:
        return {"status": self.status, "detail": self.detail} if self.detail else {"status": self.status}


@dataclass(frozen=True, slots=True)
class Health:
    services: Mapping[str, ServiceHealth]

    @property
    def ok(self) -> bool:
        return all(s.status == "SERVING" for s in self.services.values())

    def to_json(self) -> JsonObject:
        services: JsonObject = {name: s.to_json() for name, s in self.services.items()}
        return {"status": "ok" if self.ok else "degraded", "services": services}


@dataclass(frozen=True, slots=True)
class Versions:
    """The gateway's version, what each backend reports about itself (or ``{"error": <gRPC code>}``), health."""

    gateway: str
    backends: Mapping[str, Mapping[str, str | int]]
    health: Health

    def to_json(self) -> JsonObject:
        out: JsonObject = {"gateway": {"version": self.gateway}}
        out.update((name, dict(info)) for name, info in self.backends.items())
        out.update(self.health.to_json())
        return out
