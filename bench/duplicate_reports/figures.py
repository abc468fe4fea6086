"""The figures of one run, read from the blocks it saw, and their targets (issue 35).

A block's lesson sections are the item lines under a heading that says "worked before" or "failed before"
(``bench.experience.block``). Which problem a line speaks of is decided by ``lessons.Registry`` (the
problem whose distinctive fix or attempt words the line holds, by a clear majority), never by looking
for the driver's own strings.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence

from bench.duplicate_reports.client import Probe, Record
from bench.duplicate_reports.dataset import Problem
from bench.duplicate_reports.lessons import Registry, failed_attempt, fix_text
from bench.experience.block import FAILED, WORKED, lines, section_lines

# name -> (comparison, target); "== problems" compares with the number of distinct problems taught
TARGETS: dict[str, tuple[str, float | str]] = {
    "worked_shown": (">=", 0.8),
    "near_miss_lessons": ("<=", 0.05),
    "kg_problems": ("==", "problems"),
}
ROWS = (
    ("worked_shown", "own fix under 'What worked before'"),
    ("other_fix_shown", "another problem's fix under 'What worked before'"),
    ("failed_warned", "own failed attempt under 'What failed before'"),
    ("other_failure_shown", "another problem's attempt under 'What failed before'"),
    ("recurrence_lessons", "recurrence prompts with any lesson section"),
    ("near_miss_lessons", "near-miss prompts with any lesson section"),
    ("kg_problems", "known problems in the kg at the end"),
    ("problems", "distinct problems taught"),
    ("recurrences", "recurrences"),
    ("near_misses", "near-misses"),
    ("http_errors", "HTTP errors"),
    ("tool_errors", "MCP tool errors"),
)


def registries(problems: Sequence[Problem]) -> tuple[Registry, Registry]:
    """(fixes, failed attempts) of every problem taught, keyed by problem."""
    fixes = Registry({p.key: fix_text(p.index) for p in problems})
    attempts = {p.key: failed_attempt(p.index) for p in problems}
    return fixes, Registry({key: f"{a.command} {a.error}" for key, a in attempts.items()})


def share(values: Sequence[bool]) -> float:
    return sum(values) / len(values) if values else float("nan")


def has_lessons(block: str) -> bool:
    return any(line.section in (WORKED, FAILED) for line in lines(block))


def recurrence_figures(probe: Probe, fixes: Registry, attempts: Registry) -> dict[str, bool]:
    worked = fixes.problems_of(line.text for line in section_lines(probe.block, WORKED))
    failed = attempts.problems_of(line.text for line in section_lines(probe.block, FAILED))
    return {
        "worked_shown": probe.problem in worked,
        "other_fix_shown": any(p != probe.problem for p in worked),
        "failed_warned": probe.problem in failed,
        "other_failure_shown": any(p != probe.problem for p in failed),
        "lessons": has_lessons(probe.block),
    }


def figures(record: Record, problems: Sequence[Problem]) -> dict[str, float]:
    fixes, attempts = registries(problems)
    recs = [recurrence_figures(p, fixes, attempts) for p in record.probes if p.kind == "recurrence"]
    near = [has_lessons(p.block) for p in record.probes if p.kind == "near_miss"]
    return {
        "worked_shown": share([r["worked_shown"] for r in recs]),
        "other_fix_shown": share([r["other_fix_shown"] for r in recs]),
        "failed_warned": share([r["failed_warned"] for r in recs]),
        "other_failure_shown": share([r["other_failure_shown"] for r in recs]),
        "recurrence_lessons": share([r["lessons"] for r in recs]),
        "near_miss_lessons": share(near),
        "kg_problems": record.kg_problems,
        "problems": len(problems),
        "recurrences": len(recs),
        "near_misses": len(near),
        "http_errors": record.http_errors,
        "tool_errors": record.tool_errors,
        **{f"seconds_{phase}": round(s, 1) for phase, s in record.seconds.items()},
    }


def mean_figures(runs: Sequence[Mapping[str, float]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for key in runs[0]:
        values = [float(r[key]) for r in runs if not math.isnan(float(r[key]))]
        out[key] = statistics.fmean(values) if values else float("nan")
    return out


def met(name: str, value: float, problems: float) -> bool | None:
    if name not in TARGETS or math.isnan(value):
        return None
    op, target = TARGETS[name]
    wanted = problems if target == "problems" else float(target)
    return {">=": value >= wanted, "<=": value <= wanted, "==": value == wanted}[op]


def target_text(name: str) -> str:
    if name not in TARGETS:
        return "—"
    op, target = TARGETS[name]
    return f"{op} {target}"
