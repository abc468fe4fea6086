"""The ranking formula: one place, one set of weights.

Pure module. Every search ranks its candidates with this formula::

    learned   = working / history / patterns:  (1 - e) * score + e * wilson,   e = uses / (uses + 6)
                memory_bank:                   importance * confidence, and once uses >= 3
                                               0.8 * importance * confidence + 0.2 * wilson
                books:                         0.5, and once uses >= 3  0.8 * 0.5 + 0.2 * wilson
    trust     = learned / 0.5                  when learned < 0.5   (evidence of harm: down to 0)
              = 1 + 0.4 * (learned - 0.5)      otherwise            (evidence of help: up to 1.2)
    recency   = 0.5 ** (age_days / 30) = exp(-age_days / S),   S = 30 / ln 2 (about 43.3 days)
                a retrievability that decays from the memory's last activity:
                age_days = now - max(created_at, last_used_at), where last_used_at is
                set whenever an outcome is applied to the memory (it was shown, used
                and scored); a memory never scored decays from its creation
    relevance = retrieval_hybrid.hybrid_relevance: cosine similarity, blended with the
                max-normalised BM25 share in hybrid mode (cosine alone in dense mode)
    final     = collection_weight * relevance * trust * (0.9 + 0.1 * recency)

Why recency follows use: a memory that was used and scored yesterday has just
been shown to matter, whatever its age; one that nobody has touched in months
has not. Counting from creation alone aged both alike. Trust still carries the
verdict (a failed use refreshes recency but takes trust down), so recency only
says how recently the memory was part of the work. The prompt path keeps this
anchor as a per-row column of the search mirror, so the estimate and the exact
rank read the same time.

Without a query there is no relevance to scale:
``final = collection_weight * (0.75 * learned + 0.25 * recency)``.

Why multiply, and why asymmetric: the outcome-learning benchmark showed that
an additive blend (0.6 relevance + 0.3 learned + 0.1 recency) lets a proven
memory about a *different* question outrank on-topic ones, and lets a
misleading but very similar memory survive one failure. Relevance decides
whether a memory belongs in the answer at all; outcomes then say how far to
trust it: failures shrink it towards zero, successes lift it by at most 20 %,
and an untested memory (learned = 0.5) is taken at face value.

Why the evidence weight ``e``: the Wilson lower bound is deliberately
pessimistic with few uses (one ``worked`` gives 0.21), so mixing it in at a
fixed share would rank a memory that worked once *below* an untested one.
``e`` lets the raw score speak while evidence is thin and hands over to
Wilson as uses accumulate (e = 0.14 after one use, 0.62 after ten, 0.77
after twenty). The score carries most of a single outcome's effect: one
failure takes ``learned`` from 0.5 to 0.17 (trust 0.34), one success to 0.63.

``collection_weight`` comes from the knowledge graph (1.0 when it has no
preference). All weights live in ``RankingWeights``.

One formula, two callers: ``final_rank`` ranks one candidate (the generic
search path, listings) and ``final_ranks`` ranks columns of candidates (the
prompt path, in numpy). Both evaluate ``_query_rank``, written once with the
``minimum``/``maximum`` of ``domain.elementwise``: Python's ``min``/``max``
for one candidate (no numpy call overhead), numpy's for columns. Trust is
written branch-free (``min``/``max`` in place of ``if``), which computes the
same floating-point operations as the two-branch definition above.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from services.memory.domain.arrays import Column
from services.memory.domain.elementwise import COLUMNS, ONE, Ops, X, clip01
from services.memory.domain.naming import BOOKS, MEMORY_BANK
from services.memory.domain.record import MemoryRecord
from services.memory.domain.scoring import clamp01, wilson_lower_bound
from services.memory.domain.timefmt import SECONDS_PER_DAY


@dataclass(frozen=True)
class RankingWeights:
    neutral_quality: float = 0.5
    max_trust_gain: float = 0.2
    recency_share: float = 0.1
    no_query_recency_share: float = 0.25
    wilson_evidence_uses: float = 6.0
    fixed_quality_wilson_after_uses: int = 3
    fixed_quality_wilson_share: float = 0.2
    books_quality: float = 0.5
    recency_half_life_days: float = 30.0

    def __post_init__(self) -> None:
        shares = (self.recency_share, self.no_query_recency_share, self.fixed_quality_wilson_share)
        if not all(0.0 <= s <= 1.0 for s in shares) or not 0.0 < self.neutral_quality < 1.0:
            raise ValueError("ranking shares must be within [0, 1] and neutral_quality within (0, 1)")
        if self.max_trust_gain < 0 or self.wilson_evidence_uses <= 0 or self.recency_half_life_days <= 0:
            raise ValueError("max_trust_gain must be >= 0, wilson_evidence_uses and recency_half_life_days > 0")


DEFAULT_WEIGHTS = RankingWeights()


@dataclass(frozen=True)
class RankInput:
    collection: str
    score: float
    uses: int
    success_count: float
    age_days: float
    importance: float | None = None
    confidence: float | None = None
    relevance: float | None = None  # None: the search had no query
    collection_weight: float = 1.0

    @classmethod
    def of(
        cls,
        record: MemoryRecord,
        *,
        now: datetime | None = None,
        relevance: float | None = None,
        collection_weight: float = 1.0,
    ) -> RankInput:
        """What ranking reads from a record: ``age_days`` counts from its last activity
        (``MemoryRecord.recency_ts``); 0 without ``now``, or when no time is known."""
        age = 0.0
        anchor = record.recency_ts
        if now is not None and math.isfinite(anchor):
            age = max(0.0, (now.timestamp() - anchor) / SECONDS_PER_DAY)
        counters = record.counters
        return cls(
            record.collection,
            counters.score,
            counters.uses,
            counters.success_count,
            age,
            record.importance,
            record.confidence,
            relevance,
            collection_weight,
        )


def learned_score(item: RankInput, weights: RankingWeights = DEFAULT_WEIGHTS) -> float:
    wilson = wilson_lower_bound(item.success_count, item.uses)
    if item.collection in (MEMORY_BANK, BOOKS):
        if item.collection == MEMORY_BANK:
            base = clamp01(
                (item.importance if item.importance is not None else 0.7)
                * (item.confidence if item.confidence is not None else 0.7)
            )
        else:
            base = weights.books_quality
        if item.uses >= weights.fixed_quality_wilson_after_uses:
            share = weights.fixed_quality_wilson_share
            return (1.0 - share) * base + share * wilson
        return base
    evidence = item.uses / (item.uses + weights.wilson_evidence_uses) if item.uses > 0 else 0.0
    return (1.0 - evidence) * clamp01(item.score) + evidence * wilson


def _trust(learned: X, weights: RankingWeights, ops: Ops[X]) -> X:
    neutral = weights.neutral_quality
    clipped = clip01(learned, ops)
    below: X = ops.minimum(clipped, neutral) / neutral  # == clamp01(learned) / neutral below neutral, else 1.0
    above: X = weights.max_trust_gain * ops.maximum(clipped - neutral, 0.0) / (1.0 - neutral)
    trust: X = below + above
    return trust


def _recency(age_days: X, weights: RankingWeights, ops: Ops[X]) -> X:
    exponent: X = ops.maximum(age_days, 0.0) / weights.recency_half_life_days
    recency: X = 0.5**exponent
    return recency


def _query_rank(collection_weight: X, relevance: X, learned: X, age_days: X, weights: RankingWeights, ops: Ops[X]) -> X:
    """``collection_weight * relevance * trust * (1 - share + share * recency)``: the one formula."""
    freshness = 1.0 - weights.recency_share + weights.recency_share * _recency(age_days, weights, ops)
    weight: X = ops.maximum(collection_weight, 0.0)
    rank: X = weight * clip01(relevance, ops) * _trust(learned, weights, ops) * freshness
    return rank


def trust(learned: float, weights: RankingWeights = DEFAULT_WEIGHTS) -> float:
    """How far to trust a relevant memory: 0 (proven harmful) .. 1 (untested) .. 1 + max gain (proven)."""
    return _trust(float(learned), weights, ONE)


def recency(age_days: float, weights: RankingWeights = DEFAULT_WEIGHTS) -> float:
    return float(_recency(float(age_days), weights, ONE))


def final_rank(item: RankInput, weights: RankingWeights = DEFAULT_WEIGHTS) -> float:
    learned = learned_score(item, weights)
    if item.relevance is None:
        share = weights.no_query_recency_share
        fresh = recency(item.age_days, weights)
        return max(0.0, item.collection_weight) * ((1.0 - share) * learned + share * fresh)
    return _query_rank(
        float(item.collection_weight), float(item.relevance), learned, float(item.age_days), weights, ONE
    )


def final_ranks(
    collection_weight: Column,
    relevance: Column,
    learned: Column,
    age_days: Column,
    weights: RankingWeights = DEFAULT_WEIGHTS,
) -> Column:
    """``final_rank`` of many query candidates at once, from their learned scores (float64 arrays).

    The prompt path uses it to order and bound its exact work, never as the reported score."""
    return _query_rank(collection_weight, relevance, learned, age_days, weights, COLUMNS)
