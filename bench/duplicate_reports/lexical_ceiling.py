"""Does a better lexical signal raise the ceiling of the lead rule? Tried on the real duplicate reports: barely.

    .venv/bin/python -m bench.duplicate_reports.lexical_ceiling [--precision int8|fp32] [--json]

ceiling.py measures the lead of the embedding alone. This adds a term overlap to each problem's cosine,
score = cosine + w x overlap, and measures the lead of that score over the runner-up (and BACKGROUND), as
the judge would see it. The overlap is the weighted cosine of the terms (problem_terms.terms) of the prompt
and of the problem's first report, each term weighing its BM25 idf, ln((n - df + 0.5) / (df + 0.5) + 1),
times ``identifier_weight`` for an identifier. Its document frequencies come from a background larger than
the known problems: the first reports of all problems (taught before any probe) and the near-miss reports
of the *other* part, standing for the prompts a project's kg has seen before. No judged prompt and no
recurrence is in it, and it carries no pair label. ``field`` says which text of the two reports the terms
come from: the whole report, or its summary line (the statement a reader would compare).

Every problem of both parts competes, as in the stack bench (every problem of both parts is taught);
``ceiling.py`` lets only the part's own problems compete, which flatters the figure. For each
combination of field, identifier weight and w, the bar is the calibrate part's 95th-percentile near-miss
lead, and the combination is the one with the best calibrate recall at it (ties: the smaller w). The
held-out part is then judged at that combination and that bar (its recall and near-miss share), and its
own ceiling at that combination is given too. Nothing is tuned on the held-out part.

Figures (int8; fp32 in brackets where it differs), 29 competing problems, 28 calibrate and 18 held-out
recurrences, 492 and 509 near-misses:

- the embedding alone (w = 0): ceiling calibrate 0.54 (0.57), held-out 0.56 (0.61); the own problem
  is not the best for 6 of 28 and 5 of 18 (6 of 18). With only the part's problems competing
  (``ceiling.py --against part``) the same rule gives 0.61 and 0.67: the 0.67 BENCHMARKS.md gave was
  that flattering count, and the judge's 0.56 held-out through the stack is already at the embedding's
  ceiling.
- whole-report terms, identifiers x 1 or x 2, any w: calibrate at most 0.57, held-out at most 0.61;
  from w = 0.5 on, worse. The own problem's term overlap is rarely the best: the descriptions' steps,
  user-agent lines and versions are shared by many reports. In a scratch run, not kept here: idf over
  the 29 problems only or over every report gave the same; an either-signal rule (an embedding lead,
  or a term lead on the same best problem) and a both-signals rule, grid-searched on calibrate, held
  out at 0.56; embedding the summary alone, the report without its user-agent and "Steps to
  reproduce" lines, or sums of those with the summary, held out at 0.22-0.61.
- summary-line terms, identifiers x 2 (the calibrate choice): w = 0.75, calibrate 0.64 at a bar of
  0.248 (0.247); held-out at that bar 0.67 of recurrences with 0.057 of near-misses (its own ceiling
  0.67; fp32 the same), own problem not the best for 5 and 4. That is 2 of 18 held-out recurrences
  over the embedding alone at int8 and 1 at fp32, at a near-miss share just over 5 %: well short of
  the 0.8 target, no more than the int8 / fp32 difference moves the embedding alone, and it needs a
  background of several hundred earlier prompts that the stack bench does not play. So it was not
  built into the kg.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
import numpy.typing as npt

from bench.duplicate_reports import dataset
from bench.duplicate_reports.ceiling import statement_vectors
from services.kg.problem_match import BACKGROUND
from services.kg.problem_terms import is_identifier, terms

Vector = npt.NDArray[np.float32]
Matrix = npt.NDArray[np.float64]
FIELDS = ("whole", "summary")
IDENTIFIER_WEIGHTS = (1.0, 2.0)
WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5)


@dataclass(frozen=True)
class Setting:
    field: str  # the text terms come from: "whole" report or its "summary" line
    identifier_weight: float
    w: float  # score = cosine + w x term overlap


@dataclass(frozen=True)
class Outcome:
    setting: Setting
    calibrate_recall: float  # at the bar
    bar: float  # the calibrate part's 95th-percentile near-miss lead
    holdout_recall: float  # at the calibrate bar
    holdout_near_misses: float  # share with a lead at or above the calibrate bar
    holdout_ceiling: float  # at the held-out part's own 95th percentile
    not_best: tuple[int, int]  # recurrences whose own problem is not the best score (calibrate, holdout)


@dataclass(frozen=True)
class Part:
    """One part's queries against every problem: cosines, terms, and each recurrence's own problem."""

    recurrence_cosines: Matrix
    near_cosines: Matrix
    recurrences: list[dataset.Report]
    near: list[dataset.Report]
    own: list[int]
    background: list[dataset.Report]  # texts seen before the probes: every first report, the other part's near-misses


def field_text(report: dataset.Report, field: str) -> str:
    return report.summary if field == "summary" else report.text


def idf(background: Iterable[set[str]], identifier_weight: float) -> Callable[[str], float]:
    """BM25 idf of a term over the background texts (an unseen term weighs as one seen once)."""
    df: Counter[str] = Counter()
    n = 0
    for found in background:
        df.update(found)
        n += 1

    known: dict[str, float] = {}

    def weight(term: str) -> float:
        if term not in known:
            used = max(df.get(term, 0), 1)
            rarity = math.log((n - used + 0.5) / (used + 0.5) + 1.0)
            known[term] = rarity * (identifier_weight if is_identifier(term) else 1.0)
        return known[term]

    return weight


def overlap(query: set[str], document: set[str], weight: Callable[[str], float]) -> float:
    """Weighted cosine of two term sets (0..1)."""
    common = sum(weight(t) ** 2 for t in query & document)
    if not common:
        return 0.0
    return common / math.sqrt(sum(weight(t) ** 2 for t in query) * sum(weight(t) ** 2 for t in document))


def leads(scores: Matrix, own: Sequence[int | None]) -> tuple[list[float], int]:
    """Each row's lead of its own problem (a near-miss: its best) over the runner-up and the background;
    and how many rows' own problem is not the best."""
    out, not_best = [], 0
    for row, mine in zip(scores, own, strict=True):
        top = int(np.argmax(row))
        best = top if mine is None else mine
        runner = float(np.max(np.delete(row, best)))
        not_best += int(mine is not None and top != mine and row[top] > row[mine])
        out.append(float(row[best]) - max(runner, BACKGROUND))
    return out, not_best


def share_at(values: list[float], bar: float) -> float:
    return sum(v >= bar for v in values) / len(values)


def bar_at_5(near_leads: list[float]) -> float:
    return statistics.quantiles(near_leads, n=20)[18]


class Experiment:
    """Every problem of both parts, each part's queries, the terms of each text; scored per setting."""

    def __init__(self, encode: Callable[[list[str]], Vector]) -> None:
        data = dataset.load()
        self.problems = list(data.problems)
        index = {p.key: i for i, p in enumerate(self.problems)}
        recurrences = [(p, r) for p in self.problems for r in p.recurrences]
        texts = [p.first for p in self.problems] + [r for _, r in recurrences] + list(data.near_misses)
        vectors = dict(zip((r.id for r in texts), statement_vectors(encode, [r.text for r in texts]), strict=True))
        firsts = np.stack([vectors[p.first.id] for p in self.problems]).astype(np.float64)
        self.terms = {
            (r.id, field): set(terms(field_text(r, field))) for r in texts for field in FIELDS
        }  # every text, both fields
        self.parts: dict[str, Part] = {}
        for part in dataset.PARTS:
            mine = [(p, r) for p, r in recurrences if dataset.part_of(p.key) == part]
            near = [r for r in data.near_misses if dataset.part_of(r.id) == part]
            others = [r for r in data.near_misses if dataset.part_of(r.id) != part]

            def cosines(reports: list[dataset.Report]) -> Matrix:
                return np.stack([vectors[r.id] for r in reports]).astype(np.float64) @ firsts.T

            self.parts[part] = Part(
                cosines([r for _, r in mine]),
                cosines(near),
                [r for _, r in mine],
                near,
                [index[p.key] for p, _ in mine],
                [p.first for p in self.problems] + others,
            )

    def lexical(self, part: Part, reports: list[dataset.Report], setting: Setting) -> Matrix:
        weight = idf((self.terms[(r.id, setting.field)] for r in part.background), setting.identifier_weight)
        return np.array(
            [
                [
                    overlap(self.terms[(r.id, setting.field)], self.terms[(p.first.id, setting.field)], weight)
                    for p in self.problems
                ]
                for r in reports
            ]
        )

    def leads(self, name: str, setting: Setting) -> tuple[list[float], list[float], int]:
        """(recurrence leads, near-miss leads, recurrences whose own problem is not the best)."""
        part = self.parts[name]
        recurrence_scores, near_scores = part.recurrence_cosines, part.near_cosines
        if setting.w:
            recurrence_scores = recurrence_scores + setting.w * self.lexical(part, part.recurrences, setting)
            near_scores = near_scores + setting.w * self.lexical(part, part.near, setting)
        recurrence_leads, not_best = leads(recurrence_scores, part.own)
        near_leads, _ = leads(near_scores, [None] * len(part.near))
        return recurrence_leads, near_leads, not_best

    def outcome(self, setting: Setting) -> Outcome:
        recurrences, near, not_best = self.leads("calibrate", setting)
        bar = bar_at_5(near)
        held, held_near, held_not_best = self.leads("holdout", setting)
        return Outcome(
            setting,
            round(share_at(recurrences, bar), 2),
            round(bar, 3),
            round(share_at(held, bar), 2),
            round(share_at(held_near, bar), 3),
            round(share_at(held, bar_at_5(held_near)), 2),
            (not_best, held_not_best),
        )


def run(encode: Callable[[list[str]], Vector]) -> tuple[list[Outcome], Outcome]:
    """Every setting's outcome, and the one the calibrate part chooses."""
    experiment = Experiment(encode)
    outcomes = [
        experiment.outcome(Setting(field, identifier_weight, w))
        for field, identifier_weight, w in itertools.product(FIELDS, IDENTIFIER_WEIGHTS, WEIGHTS)
        if w or (field, identifier_weight) == (FIELDS[0], IDENTIFIER_WEIGHTS[0])
    ]
    chosen = max(outcomes, key=lambda o: (o.calibrate_recall, -o.setting.w))
    return outcomes, chosen


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--precision", choices=("int8", "fp32"), default="int8")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from kernel import offline
    from services.embedding.model import load_encoder

    offline.apply()
    encoder = load_encoder(precision=args.precision)
    outcomes, chosen = run(encoder.encode)
    if args.json:
        print(json.dumps({"outcomes": [asdict(o) for o in outcomes], "chosen": asdict(chosen)}, indent=2))
        return
    for o in [*outcomes, chosen]:
        s = o.setting
        print(
            f"{'chosen on calibrate: ' if o is chosen else ''}{s.field} terms, identifiers x{s.identifier_weight:g},"
            f" w {s.w:g}: calibrate {o.calibrate_recall:.2f} at lead >= {o.bar:.3f}; holdout at that bar"
            f" {o.holdout_recall:.2f} with {o.holdout_near_misses:.3f} of near-misses (its own ceiling"
            f" {o.holdout_ceiling:.2f}); own problem not the best for {o.not_best[0]} and {o.not_best[1]}"
        )


if __name__ == "__main__":
    main()
