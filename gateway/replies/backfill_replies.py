"""What a backfill of past sessions stored, in all and per project."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gateway.replies.reply_json import JsonObject


@dataclass(frozen=True, slots=True)
class ProjectTally:
    stored: int
    existing: int


@dataclass(frozen=True, slots=True)
class BackfillTally:
    """What a backfill batch stored now and found stored by an earlier run, per project too."""

    stored: int
    existing: int
    observations: int
    projects: Mapping[str, ProjectTally]
    kg_taught: int | None = None  # exchanges taught to the kg; None on a dry run or with nothing new

    def to_json(self) -> JsonObject:
        projects: JsonObject = {name: {"stored": p.stored, "existing": p.existing} for name, p in self.projects.items()}
        out: JsonObject = {
            "stored": self.stored,
            "existing": self.existing,
            "observations": self.observations,
            "projects": projects,
        }
        if self.kg_taught is not None:
            out["kg_taught"] = self.kg_taught
        return out
