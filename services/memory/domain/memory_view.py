"""The one normalized memory shape returned by every read path, built from a record.

Pure module. ``view`` turns a ``MemoryRecord`` into a ``NormalizedMemory``:

- ``content`` in exactly one place;
- ``created_at`` as ISO and ``age`` such as ``"2d"``;
- outcome fields with neutral defaults (score 0.5, Wilson 0.5 when unused),
  ``outcome_history`` as the last three marks, e.g. ``"[YY~]"``;
- ``tags`` always a list;
- ``importance`` / ``confidence`` only on memory_bank;
- ``embedding_similarity`` / ``final_rank_score`` only when a search ranked it;
- ``metadata``: every other stored key (title, source, session_id, ...);
- ``worked_count`` / ``partial_count`` / ``failed_count``: those outcomes among
  the stored marks (unknown counts in none), for labels like "worked 4 of 4".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from kernel.context_choice import RankParts
from services.memory.domain import timefmt
from services.memory.domain.outcomes import HISTORY_MARK, Outcome
from services.memory.domain.ranking import DEFAULT_WEIGHTS, RankingWeights, RankInput, learned_score
from services.memory.domain.record import MemoryRecord, Scalar
from services.memory.domain.scoring import format_history, wilson_lower_bound


@dataclass(frozen=True)
class NormalizedMemory:
    id: str
    collection: str
    content: str
    created_at: str
    age: str
    score: float
    wilson_score: float
    uses: int
    success_count: float
    learned_score: float
    last_outcome: str
    outcome_history: str
    tags: list[str] = field(default_factory=list)
    importance: float | None = None
    confidence: float | None = None
    embedding_similarity: float | None = None
    final_rank_score: float | None = None
    metadata: dict[str, Scalar] = field(default_factory=dict)
    project: str = ""
    archived: bool = False
    # outcomes among the stored marks (``scoring.HISTORY_KEEP``): the evidence a label quotes
    worked_count: int = 0
    partial_count: int = 0
    failed_count: int = 0
    # what made its rank, set by the prompt path on the results it returns (``rank_parts``); never on the wire
    rank_parts: RankParts | None = None


def view(
    record: MemoryRecord,
    *,
    now: datetime,
    similarity: float | None = None,
    final_rank_score: float | None = None,
    weights: RankingWeights = DEFAULT_WEIGHTS,
) -> NormalizedMemory:
    counters = record.counters
    created = record.created
    return NormalizedMemory(
        id=record.id,
        collection=record.collection,
        content=record.content,
        created_at=timefmt.to_iso(created) if created else "",
        age=timefmt.humanize_age(created, now),
        score=counters.score,
        wilson_score=wilson_lower_bound(counters.success_count, counters.uses),
        uses=counters.uses,
        success_count=counters.success_count,
        learned_score=learned_score(RankInput.of(record), weights),
        last_outcome=counters.last_outcome,
        outcome_history=format_history(counters.history),
        tags=list(record.tags),
        importance=record.importance,
        confidence=record.confidence,
        embedding_similarity=similarity,
        final_rank_score=final_rank_score,
        metadata=record.details(),
        project=record.project,
        archived=record.archived,
        worked_count=counters.history.count(HISTORY_MARK[Outcome.WORKED]),
        partial_count=counters.history.count(HISTORY_MARK[Outcome.PARTIAL]),
        failed_count=counters.history.count(HISTORY_MARK[Outcome.FAILED]),
    )
