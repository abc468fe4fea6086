"""Near-duplicate rules for writes.

Pure module. Before a memory is stored, the service looks up the nearest
existing memories (cosine similarity of the embeddings) among the
collections ``dedup_pool`` names, and ``decide`` says what to do:

- **Scored tiers** (working, history, patterns) form one pool: a new
  working memory that repeats a history or pattern memory refreshes that one
  instead of starting over in working.
- **Refresh** (similarity >= threshold, 0.95 by default): no new document.
  The existing memory keeps its id, score and counters; its content and
  embedding take the newest wording, ``refreshed_at`` is set (restarting its
  expiry clock) and ``refresh_count`` grows.
- **memory_bank, update vs create**: at or above the threshold the fact is
  updated in place (newest wording, tags merged in order, importance and
  confidence take the larger of old and new); below it a new fact is
  created. Facts that are merely close (a changed preference, say) are kept
  side by side on purpose: silently overwriting a fact is worse than a
  duplicate, and ``archive`` retires the stale one explicitly. A near-duplicate
  that states a different value for the same entity and attribute is not
  refreshed either: it becomes a new fact that supersedes the old one
  (``usecases.supersession``), so the old value stays on record, archived.
- Archived memories never absorb a write; books are never deduplicated.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from services.memory.domain.naming import BOOKS, HISTORY, MEMORY_BANK, PATTERNS, WORKING
from services.memory.domain.record import MemoryRecord

DEFAULT_THRESHOLD = 0.95


@dataclass(frozen=True)
class Neighbour:
    id: str
    collection: str
    similarity: float
    archived: bool = False


@dataclass(frozen=True)
class DedupDecision:
    refresh: Neighbour | None  # None: create a new memory

    @property
    def creates(self) -> bool:
        return self.refresh is None


def dedup_pool(collection: str) -> tuple[str, ...]:
    if collection in (WORKING, HISTORY, PATTERNS):
        return (collection, *(c for c in (WORKING, HISTORY, PATTERNS) if c != collection))
    if collection == MEMORY_BANK:
        return (MEMORY_BANK,)
    return ()


def decide(collection: str, neighbours: Iterable[Neighbour], threshold: float = DEFAULT_THRESHOLD) -> DedupDecision:
    if collection == BOOKS:
        return DedupDecision(None)
    pool = dedup_pool(collection)
    best: Neighbour | None = None
    for item in neighbours:
        if item.archived or item.collection not in pool or item.similarity < threshold:
            continue
        if best is None or item.similarity > best.similarity:
            best = item
    return DedupDecision(best)


def merge_tags(existing: Sequence[str], new: Sequence[str]) -> list[str]:
    return list(dict.fromkeys([*existing, *new]))


def refreshed(
    existing: MemoryRecord,
    *,
    content: str,
    now: datetime,
    new_tags: Sequence[str],
    importance: float | None,
    confidence: float | None,
) -> MemoryRecord:
    """``existing`` after a near-duplicate write refreshed it with ``content``."""
    tags = tuple(merge_tags(existing.tags, new_tags)) if new_tags else existing.tags
    if existing.collection == MEMORY_BANK:
        if importance is not None:
            importance = max(importance, existing.importance) if existing.importance is not None else importance
        if confidence is not None:
            confidence = max(confidence, existing.confidence) if existing.confidence is not None else confidence
    return replace(
        existing,
        content=content,
        refreshed_at=now,
        refresh_count=(existing.refresh_count or 0) + 1,
        tags=tags,
        importance=importance if existing.collection == MEMORY_BANK and importance is not None else existing.importance,
        confidence=confidence if existing.collection == MEMORY_BANK and confidence is not None else existing.confidence,
    )
