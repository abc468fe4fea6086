"""How far any lead-over-the-runner-up rule can go on the real duplicate reports, with this encoder.

    .venv/bin/python -m bench.duplicate_reports.ceiling [--part calibrate|holdout|all] [--precision int8|fp32]
        [--against all|part]

The judge (services/kg/problem_match.py) accepts a known problem when it leads every other problem of the
project (and the background) by a bar. This computes, with no stack, the lead that rule sees: every problem
of the part stated once by its first report (as the kg stores it: the gateway's statement vector, the
normalised sum of the whole report's vector and its head line's), then for each later report of a problem
(a recurrence) and each near-miss report its cosine lead over the runner-up. Whatever the bar, a rule that
shows lessons to at most 5 % of near-misses must sit above their 95th-percentile lead, and it then recalls
at most the recurrences above it. That share is the ceiling the wording alone allows; the rarity-weighted
term overlap moves leads by a few hundredths (LEXICAL_WEIGHT x overlap), and error signatures and shared
fixes, which these reports do not have, are what can go beyond it.

The problems that compete are every problem of both parts (``--against all``, the default), as in the stack
bench, which teaches them all before any probe; ``--against part`` lets only the part's own problems
compete, as this did before, and flatters the figure (holdout 0.67 against 0.56 with all 29 competing). A
term overlap with document frequencies from several hundred earlier reports was tried on top of this
lead (lexical_ceiling.py): it raises the held-out figure by 2 of 18 recurrences at best.

Prints, per part: the ceiling at 5 % and at 10 % of near-misses, the recurrences whose own problem is not
even the best match, and the median leads.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np
import numpy.typing as npt

from bench.duplicate_reports import dataset
from gateway.problem_vector import EMBED_CHARS, combined, head
from services.kg.problem_match import BACKGROUND

Vector = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Ceiling:
    part: str
    recurrences: int
    near_misses: int
    not_best: int  # recurrences whose own problem is not the best match at all
    bar_at_5: float  # the near-misses' 95th-percentile lead
    recall_at_5: float
    bar_at_10: float
    recall_at_10: float
    median_recurrence_lead: float
    median_near_miss_lead: float


def statement_vectors(encode: Callable[[list[str]], Vector], texts: list[str]) -> Vector:
    """The kg's statement vector of each text (gateway/problem_vector.py)."""
    wholes = encode([t[:EMBED_CHARS] for t in texts])
    heads = [head(t) for t in texts]
    with_head = [i for i, h in enumerate(heads) if h]
    head_vectors = encode([heads[i] for i in with_head]) if with_head else np.zeros((0, wholes.shape[1]))
    by_index = dict(zip(with_head, head_vectors, strict=True))
    return np.stack([combined(wholes[i], by_index.get(i)) for i in range(len(texts))])


def leads(problems: Vector, queries: Vector, own: list[int | None]) -> tuple[list[float], int]:
    """Each query's lead of its own problem (or, for a near-miss, of its best) over the runner-up and the
    background; and how many queries' own problem is not the best."""
    cosines = queries @ problems.T
    out, not_best = [], 0
    for row, mine in zip(cosines, own, strict=True):
        order = np.argsort(-row)
        best = int(order[0]) if mine is None else mine
        runner = max(float(row[i]) for i in range(len(row)) if i != best)
        not_best += int(mine is not None and int(order[0]) != mine)
        out.append(float(row[best]) - max(runner, BACKGROUND))
    return out, not_best


def ceiling(part: str, encode: Callable[[list[str]], Vector], against: str = "all") -> Ceiling:
    data = dataset.load()
    problems = dataset.in_part(data.problems, part if against == "part" else "all")
    mine = {p.key for p in dataset.in_part(data.problems, part)}
    near = [r for r in data.near_misses if part == "all" or dataset.part_of(r.id) == part]
    problem_vectors = statement_vectors(encode, [p.first.text for p in problems])
    recurrences = [(i, r) for i, p in enumerate(problems) if p.key in mine for r in p.recurrences]
    recurrence_leads, not_best = leads(
        problem_vectors, statement_vectors(encode, [r.text for _, r in recurrences]), [i for i, _ in recurrences]
    )
    near_leads, _ = leads(problem_vectors, statement_vectors(encode, [r.text for r in near]), [None] * len(near))
    cuts = statistics.quantiles(near_leads, n=20)

    def recall(bar: float) -> float:
        return sum(lead >= bar for lead in recurrence_leads) / len(recurrence_leads)

    return Ceiling(
        part,
        len(recurrence_leads),
        len(near_leads),
        not_best,
        round(cuts[18], 3),
        round(recall(cuts[18]), 2),
        round(cuts[17], 3),
        round(recall(cuts[17]), 2),
        round(statistics.median(recurrence_leads), 3),
        round(statistics.median(near_leads), 3),
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("calibrate", "holdout", "all"), action="append")
    parser.add_argument("--precision", choices=("int8", "fp32"), default="int8")
    parser.add_argument("--against", choices=("all", "part"), default="all", help="which problems compete")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from kernel import offline
    from services.embedding.model import load_encoder

    offline.apply()
    encoder = load_encoder(precision=args.precision)
    found = [ceiling(part, encoder.encode, args.against) for part in args.part or ["calibrate", "holdout"]]
    if args.json:
        print(json.dumps([asdict(c) for c in found], indent=2))
        return
    for c in found:
        print(
            f"{c.part}: {c.recurrences} recurrences, {c.near_misses} near-misses; own problem not the best match"
            f" for {c.not_best}; ceiling {c.recall_at_5:.2f} at <= 5 % near-misses (lead >= {c.bar_at_5:.3f}),"
            f" {c.recall_at_10:.2f} at <= 10 % (lead >= {c.bar_at_10:.3f}); median lead: recurrences"
            f" {c.median_recurrence_lead:+.3f}, near-misses {c.median_near_miss_lead:+.3f}"
        )


if __name__ == "__main__":
    main()
