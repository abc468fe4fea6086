"""The figures of one run, computed from the blocks it saw and the texts it stored.

Where a line came from is read from its text (the registry of stored prompts,
takeaways and facts) and, for the session and project, from the memory the
reply listed under the line's id; fixes are recognised by their signatures.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from bench.experience.block import FAILED, WORKED, Line, fix_verdicts, lines, section_lines, tokens
from bench.experience.problems import PROBLEMS, PROJECTS
from bench.experience.record import Recurrence, Registry, Run, Seen

MARKERS = {p.key: p.markers for p in PROBLEMS}
SIGNATURES = {p.key: tuple(f.signature for f in p.fixes) for p in PROBLEMS}

# (name, comparison, target)
TARGETS: dict[str, tuple[str, float]] = {
    "first_right": (">=", 0.9),
    "first_right_cross": (">=", 0.9),
    "worked_shown": (">=", 0.8),
    "failed_warned": (">=", 0.8),
    "leaks": ("<=", 0),
    "stale_shown": ("<=", 0),
    "wrong_scope": ("<=", 0),
    "fix_lines_per_block": ("<=", 1.5),
    "on_problem_share": (">=", 0.7),
    "session_echoes": ("<=", 0),
    "tokens_per_block": ("<=", 300),
    "near_miss_lessons": ("<=", 0.1),
}


def met(name: str, value: float) -> bool | None:
    if name not in TARGETS or value != value:  # NaN: nothing measured
        return None
    op, target = TARGETS[name]
    return value >= target if op == ">=" else value <= target


def mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else float("nan")


def share(values: Sequence[bool]) -> float:
    return sum(values) / len(values) if values else float("nan")


def line_origin(line: Line, seen: Seen, registry: Registry) -> tuple[set[str], set[str], set[str]]:
    """(sessions, projects, problems) the line's text or id points at."""
    sessions: set[str] = set()
    projects: set[str] = set()
    problems: set[str] = set()
    for entry in registry.find(line.text):
        sessions.add(entry.session)
        projects.add(entry.project)
        if entry.problem:
            problems.add(entry.problem)
    session, project = seen.sources.get(line.memory_id, ("", ""))
    if session:
        sessions = {session}
    owner = next((name for name in PROJECTS if project.startswith(name)), "")
    if owner:
        projects = {owner}
    return sessions, projects, problems


def on_problem(line: Line, problem: str, seen: Seen, registry: Registry) -> bool:
    _, _, problems = line_origin(line, seen, registry)
    if problems:
        return problem in problems
    text = line.text.lower()
    return any(sig.lower() in text for sig in SIGNATURES.get(problem, ())) or any(
        marker in text for marker in MARKERS.get(problem, ())
    )


def echoes(seen: Seen, registry: Registry) -> int:
    """Lines that are turns of the session the block is injected into."""
    count = 0
    for line in lines(seen.block):
        sessions, _, _ = line_origin(line, seen, registry)
        count += sessions == {seen.session}
    return count


def labelled(line: Line, project: str) -> bool:
    return project.lower() in line.text.lower()


def leaks(seen: Seen, registry: Registry, other_fixes: Sequence[str] = ()) -> int:
    """Lines from another project shown without its name, or above the first line that is not foreign.

    A line's project comes from the memory listed under its id or from the
    stored text it shows; a line with neither that presents a fix which works
    only in another project as having worked counts as that project's lesson.
    With no local line at all, a labelled foreign line is not a leak.
    """
    shown = lines(seen.block)
    foreign_of: list[set[str]] = []
    for line in shown:
        _, projects, _ = line_origin(line, seen, registry)
        foreign = set() if seen.project in projects else projects - {seen.project}
        foreign |= {p for p in PROJECTS if p != seen.project and labelled(line, p)}  # the block says where it is from
        if not projects and other_fixes:
            verdicts = fix_verdicts(line, {sig: sig for sig in other_fixes})
            if WORKED in verdicts.values():
                foreign = {p for p in PROJECTS if p != seen.project}
        foreign_of.append(foreign)
    first_local = next((i for i, foreign in enumerate(foreign_of) if not foreign), -1)
    count = 0
    for i, (line, foreign) in enumerate(zip(shown, foreign_of, strict=True)):
        if not foreign:
            continue
        if not any(labelled(line, p) for p in foreign) or i < first_local:
            count += 1
    return count


def stale(seen: Seen, values: Sequence[str]) -> int:
    """Lines that state a value no longer true without saying it was superseded."""
    return sum(
        1 for line in lines(seen.block) if any(v in line.text for v in values) and "supersed" not in line.text.lower()
    )


def recurrence_figures(r: Recurrence, registry: Registry) -> dict[str, Any]:
    shown = lines(r.seen.block)
    worked = section_lines(r.seen.block, WORKED)
    failed = section_lines(r.seen.block, FAILED)
    fix_lines = sum(r.right_signature in line.text for line in shown)
    return {
        "worked_shown": any(r.right_signature in line.text for line in worked),
        # the heading claims a fix that fails here worked: a line under it naming such a fix and not the right one,
        # without another project's label (a labelled lesson from elsewhere is shown as what it is)
        "wrong_as_worked": any(
            r.right_signature not in line.text
            and any(sig in line.text for sig in (*r.failed_before, *r.other_fixes))
            and not any(labelled(line, p) for p in PROJECTS if p != r.project)
            for line in worked
        ),
        "warned": [any(sig in line.text for line in failed) for sig in r.failed_before],
        "fix_lines": fix_lines,
        "on_problem": [on_problem(line, r.problem, r.seen, registry) for line in shown],
        "leaks": leaks(r.seen, registry, r.other_fixes),
    }


def figures(run: Run) -> dict[str, Any]:
    recs = [(r, recurrence_figures(r, run.registry)) for r in run.recurrences]
    same = [r for r, _ in recs if not r.trap]
    cross = [r for r, _ in recs if r.trap]
    warned_with = [w for r, f in recs if r.has_takeaway for w in f["warned"]]
    warned_without = [w for r, f in recs if not r.has_takeaway for w in f["warned"]]
    on_lines = [x for _, f in recs for x in f["on_problem"]]
    fix_blocks = [f["fix_lines"] for _, f in recs if f["fix_lines"]]
    near = [s for s in run.seen if s.kind == "near_miss"]
    near_lessons = [bool(section_lines(s.block, WORKED) or section_lines(s.block, FAILED)) for s in near]
    probe_leaks = sum(leaks(seen, run.registry) for seen, _ in run.probes)
    blocks = [s for s in run.seen if s.block]
    out: dict[str, Any] = {
        "first_right": share([r.first_right for r, _ in recs]),
        "first_right_same": share([r.first_right for r in same]),
        "first_right_cross": share([r.first_right for r in cross]),
        "attempts_same": mean([r.attempts for r in same]),
        "attempts_cross": mean([r.attempts for r in cross]),
        "worked_shown": share([f["worked_shown"] for _, f in recs]),
        "wrong_as_worked": share([f["wrong_as_worked"] for _, f in recs]),
        "failed_warned": share(warned_with + warned_without),
        "failed_warned_with_takeaway": share(warned_with),
        "failed_warned_without_takeaway": share(warned_without),
        "leaks": sum(f["leaks"] for _, f in recs) + probe_leaks,
        "stale_shown": sum(stale(seen, values) for seen, values in run.probes),
        "wrong_scope": sum(run.wrong_scope),
        "fix_lines_per_block": mean(fix_blocks),
        "on_problem_share": share(on_lines),
        "session_echoes": sum(echoes(s, run.registry) for s in run.seen),
        "blocks_with_echoes": sum(echoes(s, run.registry) > 0 for s in run.seen),
        "tokens_per_block": mean([tokens(s.block) for s in blocks]),
        "tokens_per_recurrence_block": mean([tokens(r.seen.block) for r, _ in recs]),
        "near_miss_lessons": share(near_lessons),
        "recurrences": len(recs),
        "cross_recurrences": len(cross),
        "near_misses": len(near),
        "blocks": len(run.seen),
        "empty_blocks": len(run.seen) - len(blocks),
        "turns": run.turns,
        "seconds": round(run.seconds, 1),
        "tool_errors": len(run.errors),
    }
    return out
