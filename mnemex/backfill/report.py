"""What a backfill run did: per source, in total and per project, merged from the gateway's answers."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TypedDict

READ, UNCHANGED, SKIPPED, FAILED = "read", "unchanged", "skipped", "failed"


class SourceJson(TypedDict):
    """A ``SourceResult`` in ``Report.to_json``: its fields, in order."""

    client: str
    path: str
    label: str
    status: str
    exchanges: int
    sent: int
    skipped_lines: int
    detail: str


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

    def to_json(self) -> SourceJson:
        return SourceJson(
            client=self.client,
            path=self.path,
            label=self.label,
            status=self.status,
            exchanges=self.exchanges,
            sent=self.sent,
            skipped_lines=self.skipped_lines,
            detail=self.detail,
        )


@dataclass
class ProjectCounts:
    stored: int = 0
    existing: int = 0


class ExchangeCounts(TypedDict):
    found: int
    filtered_out: int
    sent: int
    stored: int
    existing: int
    rechecked: int
    missing: int


class ReportJson(TypedDict):
    """``Report.to_json``: what ``mnemex backfill --json`` prints."""

    dry_run: bool
    files: dict[str, int]  # status -> sources
    exchanges: ExchangeCounts
    observations: int
    requests: int
    projects: dict[str, dict[str, int]]  # project -> ProjectCounts' fields
    sources: list[SourceJson]


def _count(value: object) -> int:
    """``int(value or 0)`` for a count in the gateway's answer; a value ``int`` cannot read raises as it does."""
    if not value:
        return 0
    if isinstance(value, str | int | float):
        return int(value)
    raise TypeError(f"a count cannot be a {type(value).__name__}")


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

    def add_reply(self, reply: object, sent: int) -> None:
        """Merge one ``POST /api/backfill`` answer (its JSON)."""
        body: dict[object, object] = reply if isinstance(reply, dict) else {}
        self.requests += 1
        self.sent += sent
        self.stored += _count(body.get("stored"))
        self.existing += _count(body.get("existing"))
        self.observations += _count(body.get("observations"))
        projects = body.get("projects")
        projects_by_name: dict[object, object] = projects if isinstance(projects, dict) else {}
        for name, counts in projects_by_name.items():
            into = self.projects.setdefault(str(name), ProjectCounts())
            if isinstance(counts, dict):
                into.stored += _count(counts.get("stored"))
                into.existing += _count(counts.get("existing"))

    def count(self, status: str) -> int:
        return sum(result.status == status for result in self.sources)

    def to_json(self) -> ReportJson:
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
            "sources": [result.to_json() for result in self.sources],
        }
