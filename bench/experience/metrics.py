"""The figures of one run, computed from the blocks it saw and the texts it stored.

Where a line came from is read from its text (the registry of stored prompts,
answers, tool output lines, takeaways and facts) and, for the session and
project, from the memory the reply listed under the line's id: the judge may
use what the assistant may not. Which fix a line names, and what it says of
it, is the assistant's own reading (assistant.fix_verdicts, recognise.py), so
"the right fix is shown" means the assistant can see it there. A line is on
the problem when the texts it shows were stored for that problem or, failing
any stored text, when that reading finds one of the problem's fixes on it.

``backend_figures`` gives the same figures for one project (kestrel-api, the
thirty problems in one vocabulary), with its near misses, its requests and how
many known problems the kg holds for it against how many there are.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import TypedDict

from bench.experience.assistant import fix_verdicts
from bench.experience.block import FAILED, WORKED, Line, lines, section_lines, tokens
from bench.experience.catalogue import BACKEND_PROBLEMS, PROJECTS, problem
from bench.experience.problems import BACKEND, Problem
from bench.experience.record import Recurrence, Registry, Run, Seen

# (name, comparison, target): issue 28's, and issue 35's for the thirty-problem project
TARGETS: dict[str, tuple[str, float]] = {
    "first_right": (">=", 0.9),
    "first_right_cross": (">=", 0.9),
    "worked_shown": (">=", 0.8),
    "failed_warned": (">=", 0.8),
    "leaks": ("<=", 0),
    "foreign_facts": ("<=", 0),
    "stale_shown": ("<=", 0),
    "wrong_scope": ("<=", 0),
    "fix_lines_per_block": ("<=", 1.5),
    "on_problem_share": (">=", 0.7),
    "session_echoes": ("<=", 0),
    "tokens_per_block": ("<=", 300),
    "near_miss_lessons": ("<=", 0.1),
    "backend_worked_shown": (">=", 0.8),
    "backend_near_miss_lessons": ("<=", 0.05),
    "backend_kg_problems_off_by": ("==", 0),
    "backend_fix_lines_per_block": ("<=", 1.3),
    "backend_on_problem_share": (">=", 0.75),
    "backend_tokens_per_block": ("<=", 300),
}


def met(name: str, value: float) -> bool | None:
    if name not in TARGETS or value != value:  # NaN: nothing measured
        return None
    op, target = TARGETS[name]
    if op == "==":
        return value == target
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


def on_problem(line: Line, key: str, seen: Seen, registry: Registry) -> bool:
    _, _, problems = line_origin(line, seen, registry)
    if problems:
        return key in problems
    return bool(fix_verdicts(line, problem(key)))


def echoes(seen: Seen, registry: Registry) -> int:
    """Lines that are turns of the session the block is injected into (a prompt, an answer, a takeaway or a
    fact said there; not the output of its tool calls, which the kg may learn from)."""
    count = 0
    for line in lines(seen.block):
        entries = [e for e in registry.find(line.text) if e.kind != "output"]
        session, _ = seen.sources.get(line.memory_id, ("", ""))
        sessions = {session} if session else {e.session for e in entries}
        count += sessions == {seen.session}
    return count


def labelled(line: Line, project: str) -> bool:
    return project.lower() in line.text.lower()


def leaks(seen: Seen, registry: Registry, other: Problem | None = None, other_fixes: Sequence[str] = ()) -> int:
    """Lines from another project shown without its name, or above the first line that is not foreign.

    A line's project comes from the memory listed under its id or from the
    stored text it shows; a line with neither that presents a fix of ``other``
    which works only in another project (one of ``other_fixes``) as having
    worked counts as that project's lesson. With no local line at all, a labelled foreign line is
    not a leak.
    """
    shown = lines(seen.block)
    foreign_of: list[set[str]] = []
    for line in shown:
        _, projects, _ = line_origin(line, seen, registry)
        foreign = set() if seen.project in projects else projects - {seen.project}
        foreign |= {p for p in PROJECTS if p != seen.project and labelled(line, p)}  # the block says where it is from
        if not projects and other is not None and other_fixes:
            found = fix_verdicts(line, other)
            foreign |= {
                p for p, k in other.right.items() if p != seen.project and k in other_fixes and found.get(k) == WORKED
            }
        foreign_of.append(foreign)
    first_local = next((i for i, foreign in enumerate(foreign_of) if not foreign), -1)
    count = 0
    for i, (line, foreign) in enumerate(zip(shown, foreign_of, strict=True)):
        if not foreign:
            continue
        if not any(labelled(line, p) for p in foreign) or i < first_local:
            count += 1
    return count


def foreign_facts(seen: Seen, registry: Registry) -> int:
    """Lines showing a fact stated in another project (and in no entry of this one)."""
    count = 0
    for line in lines(seen.block):
        entries = registry.find(line.text)
        facts = {e.project for e in entries if e.kind == "fact"}
        count += bool(facts) and seen.project not in {e.project for e in entries}
    return count


def stale(seen: Seen, values: Sequence[str]) -> int:
    """Lines that state a value no longer true without saying it was superseded."""
    return sum(
        1 for line in lines(seen.block) if any(v in line.text for v in values) and "supersed" not in line.text.lower()
    )


class RecurrenceFigures(TypedDict):
    """What one recurrence's block showed."""

    worked_shown: bool
    wrong_as_worked: bool
    warned: list[bool]  # per failed-before attempt: was it listed under what failed
    fix_lines: int
    on_problem: list[bool]  # per line shown
    leaks: int


def recurrence_figures(r: Recurrence, registry: Registry) -> RecurrenceFigures:
    known = problem(r.problem)
    shown = lines(r.seen.block)
    said = [fix_verdicts(line, known) for line in shown]
    worked = [(line, found) for line, found in zip(shown, said, strict=True) if line.section == WORKED]
    failed = [found for line, found in zip(shown, said, strict=True) if line.section == FAILED]
    others = (*r.failed_before, *r.other_fixes)
    return {
        "worked_shown": any(found.get(r.right) == WORKED for _, found in worked),
        # the heading claims a fix that fails here worked: a line under it naming such a fix as worked and not the
        # right one, without another project's label (a labelled lesson from elsewhere is shown as what it is)
        "wrong_as_worked": any(
            r.right not in found
            and any(found.get(k) == WORKED for k in others)
            and not any(labelled(line, p) for p in PROJECTS if p != r.project)
            for line, found in worked
        ),
        "warned": [any(k in found for found in failed) for k in r.failed_before],
        "fix_lines": sum(r.right in found for found in said),
        "on_problem": [on_problem(line, r.problem, r.seen, registry) for line in shown],
        "leaks": leaks(r.seen, registry, known, r.other_fixes),
    }


def lesson_share(blocks: Sequence[Seen]) -> float:
    """Share of blocks with a section of lessons (what worked or what failed before)."""
    return share([bool(section_lines(s.block, WORKED) or section_lines(s.block, FAILED)) for s in blocks])


def recurrence_summary(recs: Sequence[tuple[Recurrence, RecurrenceFigures]]) -> dict[str, float]:
    return {
        "first_right": share([r.first_right for r, _ in recs]),
        "attempts": mean([r.attempts for r, _ in recs]),
        "worked_shown": share([f["worked_shown"] for _, f in recs]),
        "wrong_as_worked": share([f["wrong_as_worked"] for _, f in recs]),
        "failed_warned": share([w for _, f in recs for w in f["warned"]]),
        "fix_lines_per_block": mean([f["fix_lines"] for _, f in recs if f["fix_lines"]]),
        "on_problem_share": share([x for _, f in recs for x in f["on_problem"]]),
        "tokens_per_recurrence_block": mean([tokens(r.seen.block) for r, _ in recs]),
    }


def backend_figures(run: Run, recs: Sequence[tuple[Recurrence, RecurrenceFigures]]) -> dict[str, float]:
    """The thirty-problem project's figures (NaN where it did not take part in the run)."""
    mine = [(r, f) for r, f in recs if r.project == BACKEND]
    played = {r.problem for r, _ in mine} | {s.problem for s in run.seen if s.project == BACKEND and s.problem}
    distinct = len(played & {p.key for p in BACKEND_PROBLEMS})
    known = run.kg_problems.get(BACKEND, 0) if distinct else float("nan")
    blocks = [s for s in run.seen if s.project == BACKEND and s.block]
    out = {f"backend_{k}": v for k, v in recurrence_summary(mine).items()}
    out.update(
        backend_problems=distinct,
        backend_kg_problems=known,
        backend_kg_problems_off_by=known - distinct if distinct else float("nan"),
        backend_near_miss_lessons=lesson_share([s for s in run.seen if s.kind == "near_miss" and s.project == BACKEND]),
        backend_request_lessons=lesson_share([s for s in run.seen if s.kind == "request" and s.project == BACKEND]),
        backend_tokens_per_block=mean([tokens(s.block) for s in blocks]),
        backend_recurrences=len(mine),
    )
    return out


def figures(run: Run) -> dict[str, float]:
    recs = [(r, recurrence_figures(r, run.registry)) for r in run.recurrences]
    same = [r for r, _ in recs if not r.trap]
    cross = [r for r, _ in recs if r.trap]
    warned_with = [w for r, f in recs if r.has_takeaway for w in f["warned"]]
    warned_without = [w for r, f in recs if not r.has_takeaway for w in f["warned"]]
    near = [s for s in run.seen if s.kind == "near_miss"]
    requests = [s for s in run.seen if s.kind == "request"]
    probe_leaks = sum(leaks(seen, run.registry) for seen, _ in run.probes)
    blocks = [s for s in run.seen if s.block]
    overall = recurrence_summary(recs)
    out: dict[str, float] = {
        "first_right": overall["first_right"],
        "first_right_same": share([r.first_right for r in same]),
        "first_right_cross": share([r.first_right for r in cross]),
        "attempts_same": mean([r.attempts for r in same]),
        "attempts_cross": mean([r.attempts for r in cross]),
        "worked_shown": overall["worked_shown"],
        "wrong_as_worked": overall["wrong_as_worked"],
        "failed_warned": overall["failed_warned"],
        "failed_warned_with_takeaway": share(warned_with),
        "failed_warned_without_takeaway": share(warned_without),
        "leaks": sum(f["leaks"] for _, f in recs) + probe_leaks,
        "foreign_facts": sum(foreign_facts(s, run.registry) for s in blocks),
        "stale_shown": sum(stale(seen, values) for seen, values in run.probes),
        "wrong_scope": sum(run.wrong_scope),
        "fix_lines_per_block": overall["fix_lines_per_block"],
        "on_problem_share": overall["on_problem_share"],
        "session_echoes": sum(echoes(s, run.registry) for s in run.seen),
        "blocks_with_echoes": sum(echoes(s, run.registry) > 0 for s in run.seen),
        "tokens_per_block": mean([tokens(s.block) for s in blocks]),
        "tokens_per_recurrence_block": overall["tokens_per_recurrence_block"],
        "near_miss_lessons": lesson_share(near),
        "request_lessons": lesson_share(requests),
        "recurrences": len(recs),
        "cross_recurrences": len(cross),
        "near_misses": len(near),
        "requests": len(requests),
        "blocks": len(run.seen),
        "empty_blocks": len(run.seen) - len(blocks),
        "turns": run.turns,
        "seconds": round(run.seconds, 1),
        "tool_errors": len(run.errors),
    }
    out.update(backend_figures(run, recs))
    return out
