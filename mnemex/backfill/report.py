"""What a backfill run did: per source, in total and per project, merged from the gateway's answers."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

READ, UNCHANGED, SKIPPED, FAILED = "read", "unchanged", "skipped", "failed"


@dataclass
class SourceResult:
    client: str
    path: str
    label: str
    status: str  # read | unchanged | skipped | failed
    exchanges: int = 0  # found in this run (resumed ones not counted)
    sent: int = 0
    skipped_lines: int = 0
    detail: str = ""


@dataclass
class ProjectCounts:
    stored: int = 0
    existing: int = 0


@dataclass
class Report:
    dry_run: bool
    sources: list[SourceResult] = field(default_factory=list)
    found: int = 0  # exchanges read that passed the filters
    filtered_out: int = 0
    sent: int = 0
    stored: int = 0
    existing: int = 0
    observations: int = 0
    requests: int = 0
    rechecked: int = 0  # exchanges of an unchanged source sent earlier and checked again (dry run)
    missing: int = 0  # of those, how many memory no longer holds (see runner's module doc)
    projects: dict[str, ProjectCounts] = field(default_factory=dict)

    def add_reply(self, reply: Any, sent: int) -> None:
        """Merge one ``POST /api/backfill`` answer."""
        body = reply if isinstance(reply, dict) else {}
        self.requests += 1
        self.sent += sent
        self.stored += int(body.get("stored") or 0)
        self.existing += int(body.get("existing") or 0)
        self.observations += int(body.get("observations") or 0)
        projects = body.get("projects")
        for name, counts in (projects if isinstance(projects, dict) else {}).items():
            into = self.projects.setdefault(str(name), ProjectCounts())
            if isinstance(counts, dict):
                into.stored += int(counts.get("stored") or 0)
                into.existing += int(counts.get("existing") or 0)

    def count(self, status: str) -> int:
        return sum(result.status == status for result in self.sources)

    def to_json(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "files": {status: self.count(status) for status in (READ, UNCHANGED, SKIPPED, FAILED)},
            "exchanges": {
                "found": self.found,
                "filtered_out": self.filtered_out,
                "sent": self.sent,
                "stored": self.stored,
                "existing": self.existing,
                "rechecked": self.rechecked,
                "missing": self.missing,
            },
            "observations": self.observations,
            "requests": self.requests,
            "projects": {name: asdict(counts) for name, counts in sorted(self.projects.items())},
            "sources": [asdict(result) for result in self.sources],
        }
