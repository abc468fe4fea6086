"""Retrieval metrics for LoCoMo questions, per category and for 1-4 together.

For one question with evidence turns E and a ranked list R of turn ids:

- turn recall@k: |E ∩ R[:k]| / |E|;
- any-hit@k: 1 if any evidence turn is in R[:k];
- session-hit@k: 1 if any of R[:k] is in a session that holds evidence;
- MRR: 1 / rank of the first evidence turn in R (0 if absent).

Questions without valid evidence are skipped (two in the dev file).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

MEASURES = ("recall@5", "recall@10", "any@5", "any@10", "session@5", "mrr")
MAIN_CATEGORIES = (1, 2, 3, 4)


@dataclass(frozen=True)
class QuestionResult:
    category: int
    scores: dict[str, float]


def score_question(
    category: int, evidence: Sequence[str], ranked: Sequence[str], session_of: dict[str, int]
) -> QuestionResult:
    wanted = set(evidence)
    top5, top10 = ranked[:5], ranked[:10]
    sessions = {session_of[e] for e in wanted if e in session_of}
    first = next((rank for rank, doc in enumerate(ranked, start=1) if doc in wanted), None)
    return QuestionResult(
        category=category,
        scores={
            "recall@5": len(wanted.intersection(top5)) / len(wanted),
            "recall@10": len(wanted.intersection(top10)) / len(wanted),
            "any@5": float(bool(wanted.intersection(top5))),
            "any@10": float(bool(wanted.intersection(top10))),
            "session@5": float(any(session_of.get(doc) in sessions for doc in top5)),
            "mrr": 1.0 / first if first else 0.0,
        },
    )


def summarise(results: Iterable[QuestionResult]) -> dict[str, dict[str, float]]:
    """{group: {measure: mean, "n": count}} for each category and "1-4"."""
    groups: dict[str, list[QuestionResult]] = defaultdict(list)
    for result in results:
        groups[str(result.category)].append(result)
        if result.category in MAIN_CATEGORIES:
            groups["1-4"].append(result)
    summary: dict[str, dict[str, float]] = {}
    for name in sorted(groups, key=lambda g: (g == "1-4", g)):
        members = groups[name]
        summary[name] = {m: sum(r.scores[m] for r in members) / len(members) for m in MEASURES}
        summary[name]["n"] = float(len(members))
    return summary
