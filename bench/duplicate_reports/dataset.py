"""Real duplicate bug reports as recurring problems: components, the calibrate / holdout split, near-misses.

The pairs the tracker linked as duplicates are joined into connected components; each component is one
problem, its lowest report id (numerically) is the report that first states it, the others are recurrences.
Reports in no pair are near-miss candidates: the same product and vocabulary, other problems.

The split is by a stable hash, never by order or chance: a component goes to the part given by the parity
of the first byte of sha256(first report id), a near-miss by that of its own id (0: calibrate, 1: holdout).
Adding reports to the file never moves an existing problem from one part to the other.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path

from bench.bench_get_context import ROOT

DATA = ROOT.parent / "shared" / "data" / "duplicate-reports" / "seamonkey.json"
PARTS = ("calibrate", "holdout")
MAX_PROMPT_CHARS = 4000


@dataclass(frozen=True)
class Report:
    id: str
    summary: str
    description: str

    @property
    def text(self) -> str:
        """The prompt a user would type: the summary, a blank line, the description; capped."""
        return (self.summary.strip() + "\n\n" + self.description.strip()).strip()[:MAX_PROMPT_CHARS]


@dataclass(frozen=True)
class Problem:
    """One component of duplicates: the report that first states it and the later ones in other words."""

    index: int  # position among all problems by first report id (it picks the problem's fix and attempt texts)
    first: Report
    recurrences: tuple[Report, ...]

    @property
    def key(self) -> str:
        return self.first.id


@dataclass(frozen=True)
class Dataset:
    problems: tuple[Problem, ...]  # all of them, ordered by first report id
    near_misses: tuple[Report, ...]  # reports in no pair, ordered by id


def part_of(report_id: str) -> str:
    return PARTS[hashlib.sha256(report_id.encode("utf-8")).digest()[0] % 2]


def components(pairs: list[tuple[str, str]]) -> list[list[str]]:
    """The connected components of the pairs, each sorted by id, ordered by their first id."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb, key=int)] = min(ra, rb, key=int)
    groups: dict[str, list[str]] = {}
    for x in parent:
        groups.setdefault(root(x), []).append(x)
    return sorted((sorted(g, key=int) for g in groups.values()), key=lambda g: int(g[0]))


def build(pairs: list[tuple[str, str]], reports: dict[str, Report]) -> Dataset:
    groups = [g for g in components(pairs) if all(i in reports for i in g)]
    problems = tuple(Problem(i, reports[g[0]], tuple(reports[r] for r in g[1:])) for i, g in enumerate(groups))
    paired = {r for g in groups for r in g} | {r for pair in pairs for r in pair}
    near = tuple(reports[r] for r in sorted(reports, key=int) if r not in paired)
    return Dataset(problems, near)


def load(path: Path = DATA) -> Dataset:
    raw = json.loads(path.read_text(encoding="utf-8"))
    reports = {
        str(key): Report(str(key), str(r.get("summary") or ""), str(r.get("description") or ""))
        for key, r in raw["reports"].items()
    }
    pairs = [(str(p["a"]), str(p["b"])) for p in raw["pairs"]]
    return build(pairs, reports)


def in_part(problems: tuple[Problem, ...], part: str) -> list[Problem]:
    return [p for p in problems if part == "all" or part_of(p.key) == part]


def near_miss_sample(reports: tuple[Report, ...], part: str, n: int, seed: int) -> list[Report]:
    """``n`` near-miss reports of the part, drawn with the seed (all of them when the part has fewer)."""
    pool = [r for r in reports if part == "all" or part_of(r.id) == part]
    return random.Random(seed).sample(pool, min(n, len(pool)))
