"""The simulated assistant: a fixed policy that reads only the injected block's text.

It knows the fixes it could try for the problem at hand by their command and
description (problems.Fix), and maps a block line back to one of them by those
words alone, as recognise.py says: a clause names a fix when it holds words
of that fix that no other candidate fix has, more of them than all the other
fixes together. It never looks for a string the driver wrote into an answer
(answers say the fix in other words, ``Fix.said``) nor for anything mnemex
prints: the id tag, the trailing "(worked once)" annotation and the
"[project ...]" label are stripped before a line is read. The section headings
("What worked before", "What failed before", "... in another project") are
read as the block's structure, and a project name of the user's on a line says
where that lesson comes from (the texts themselves never name projects).

On a known kind of problem it:
1. applies a fix the block presents as having worked (first shown first), unless
   the line comes from another project (its heading or its label says so):
   such a lesson is tried only after the fixes shown for this project;
2. never starts with a fix the block says failed (a local line with a failure
   verdict that no local line contradicts); those come last, as a last resort;
3. otherwise follows the problem's default order, which starts with a plausible
   wrong fix.

It scores as the MCP tool descriptions ask (gateway/mcp/descriptions.py,
SCORE_RESPONSE): the exchange by the user's reaction, each listed memory
``worked`` when it helped, ``failed`` when it misled, ``unknown`` when unused.
The scoring prompt lists memories by id, so that is the one place an id is read.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from bench.experience.block import FAILED, WORKED, Line, lines
from bench.experience.problems import Problem
from bench.experience.recognise import verdicts

SCORE_ENTRY = re.compile(r'"([A-Za-z0-9_.:-]+)"\s*:\s*"\?"')


@dataclass
class Reading:
    """What one block told the assistant about one problem."""

    proven: list[str] = field(default_factory=list)  # local fixes shown as worked, in block order
    foreign: list[str] = field(default_factory=list)  # fixes shown as worked on lines from another project
    avoid: list[str] = field(default_factory=list)  # fixes shown as failed (and not as worked)
    helpful_lines: dict[str, list[str]] = field(default_factory=dict)  # fix -> ids of the lines that named it


def fix_verdicts(line: Line, problem: Problem) -> dict[str, str]:
    """Fix key -> worked / failed / '' for each of the problem's fixes the line names."""
    return verdicts(line.text, problem.vocabularies(), line.section)


def foreign_label(line: Line, project: str, projects: Iterable[str]) -> str:
    """The other project a line comes from, if its heading or a project name on it says so."""
    text = line.text.lower()
    for other in projects:
        if other != project and other.lower() in text:
            return other
    return "another project" if line.from_another_project else ""


def read(block: str, problem: Problem, project: str, projects: Sequence[str]) -> Reading:
    worked: dict[str, int] = {}
    failed: dict[str, int] = {}
    reading = Reading()
    for line in lines(block):
        found = fix_verdicts(line, problem)
        label = foreign_label(line, project, projects)
        for key, verdict in found.items():
            reading.helpful_lines.setdefault(key, []).append(line.memory_id)
            if label:
                if verdict == WORKED and key not in reading.foreign:
                    reading.foreign.append(key)
                continue
            if verdict == WORKED:
                worked[key] = worked.get(key, 0) + 1
                if key not in reading.proven:
                    reading.proven.append(key)
            elif verdict == FAILED:
                failed[key] = failed.get(key, 0) + 1
    reading.proven = [k for k in reading.proven if worked[k] > failed.get(k, 0)]
    reading.avoid = [k for k in failed if k not in reading.proven]
    return reading


def plan(reading: Reading, problem: Problem) -> list[str]:
    """The order in which the assistant will try fixes."""
    order: list[str] = []
    for key in (*reading.proven, *reading.foreign, *problem.default_order):
        if key not in order and key not in reading.avoid:
            order.append(key)
    order.extend(k for k in problem.default_order if k not in order)
    return order


def score_ids(context: str, fallback: Sequence[str] = ()) -> list[str]:
    """The ids the scoring prompt asks about, read from its text (the reply's list if the text has none)."""
    found = SCORE_ENTRY.findall(context)
    return found or list(fallback)


def memory_scores(
    ids: Sequence[str], shown: Sequence[Line], applied: str | None, succeeded: bool, problem: Problem | None
) -> dict[str, str]:
    """Per listed id: worked if its line led to the fix that worked (or warned off one that failed),
    failed if it led to the fix that failed, unknown if the assistant did not use it."""
    by_id = {line.memory_id: line for line in shown if line.memory_id}
    out: dict[str, str] = {}
    for memory_id in ids:
        line = by_id.get(memory_id)
        found = fix_verdicts(line, problem) if line is not None and problem is not None else {}
        if applied and applied in found:
            said = found[applied]
            if said == FAILED:
                out[memory_id] = "worked" if not succeeded else "failed"
            else:
                out[memory_id] = "worked" if succeeded else "failed"
        elif any(v == FAILED for k, v in found.items() if k != applied):
            out[memory_id] = "worked"  # it kept the assistant off a fix that fails
        else:
            out[memory_id] = "unknown"
    return out
