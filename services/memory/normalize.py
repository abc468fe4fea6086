"""The one normalized memory shape returned by every read path.

Plain module. ``normalize`` turns what the store holds (id, document,
metadata) into a ``NormalizedMemory``:

- ``content`` in exactly one place (the document; legacy ``content``/``text``
  metadata is only a fallback and is not repeated in ``metadata``);
- ``created_at`` as ISO, falling back to a legacy ``timestamp`` field, and
  ``age`` such as ``"2d"``;
- outcome fields with neutral defaults (score 0.5, Wilson 0.5 when unused),
  ``outcome_history`` as the last three marks, e.g. ``"[YY~]"``;
- ``tags`` always a list (stored as a JSON string);
- ``importance`` / ``confidence`` only on memory_bank;
- ``embedding_similarity`` / ``final_rank_score`` only when a search ranked it;
- ``metadata``: every other stored key (title, source, session_id, ...).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from services.memory import timefmt
from services.memory.naming import MEMORY_BANK, split_id
from services.memory.ranking import (
    DEFAULT_WEIGHTS,
    RankingWeights,
    RankInput,
    learned_score,
)
from services.memory.scoring import Counters, format_history, wilson_lower_bound

# Keys surfaced as top-level fields (or internal), hence left out of ``metadata``.
SURFACED_KEYS = frozenset(
    {
        "content", "text", "created_at", "timestamp", "created_ts", "score", "uses", "success_count",
        "last_outcome", "outcome_history", "tags", "importance", "confidence", "archived", "project",
    }
)
DEFAULT_SCORE = {MEMORY_BANK: 1.0}
DEFAULT_BANK_ATTRIBUTE = 0.7


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
    metadata: dict[str, Any] = field(default_factory=dict)
    project: str = ""
    archived: bool = False


def as_float(value: object, default: float) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else default
    if isinstance(value, str):
        try:
            parsed = float(value)
        except ValueError:
            return default
        return parsed if math.isfinite(parsed) else default
    return default


def as_int(value: object, default: int = 0) -> int:
    number = as_float(value, float(default))
    return max(0, int(number))


def as_bool(value: object) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes")
    return bool(value)


def created_at_of(metadata: Mapping[str, Any]) -> datetime | None:
    """``created_at``, else the legacy ``timestamp``, else the numeric ``created_ts``."""
    for key in ("created_at", "timestamp", "created_ts"):
        moment = timefmt.parse(metadata.get(key))
        if moment is not None:
            return moment
    return None


def tags_of(metadata: Mapping[str, Any]) -> list[str]:
    raw = metadata.get("tags")
    if isinstance(raw, list):
        return [str(tag) for tag in raw]
    if isinstance(raw, str) and raw.strip():
        try:
            parsed = json.loads(raw)
        except json.JSONDecodeError:
            return [part.strip() for part in raw.split(",") if part.strip()]
        if isinstance(parsed, list):
            return [str(tag) for tag in parsed]
        if isinstance(parsed, str):
            return [parsed]
    return []


def counters_of(metadata: Mapping[str, Any], collection: str) -> Counters:
    return Counters(
        score=min(1.0, max(0.0, as_float(metadata.get("score"), DEFAULT_SCORE.get(collection, 0.5)))),
        uses=as_int(metadata.get("uses")),
        success_count=max(0.0, as_float(metadata.get("success_count"), 0.0)),
        last_outcome=str(metadata.get("last_outcome") or ""),
        history=str(metadata.get("outcome_history") or ""),
    )


def bank_attributes(metadata: Mapping[str, Any]) -> tuple[float, float]:
    return (
        as_float(metadata.get("importance"), DEFAULT_BANK_ATTRIBUTE),
        as_float(metadata.get("confidence"), DEFAULT_BANK_ATTRIBUTE),
    )


@dataclass(frozen=True)
class RankFacts:
    """What ranking reads from a memory's metadata, parsed once."""

    collection: str
    counters: Counters
    created: datetime | None
    importance: float | None
    confidence: float | None

    @property
    def created_ts(self) -> float:
        return self.created.timestamp() if self.created is not None else float("-inf")


def rank_facts(collection: str, metadata: Mapping[str, Any]) -> RankFacts:
    importance, confidence = bank_attributes(metadata) if collection == MEMORY_BANK else (None, None)
    return RankFacts(collection, counters_of(metadata, collection), created_at_of(metadata), importance, confidence)


def rank_input(
    collection: str,
    metadata: Mapping[str, Any],
    *,
    now: datetime,
    relevance: float | None = None,
    collection_weight: float = 1.0,
    facts: RankFacts | None = None,
) -> RankInput:
    """What ranking needs (``facts``: pass them when already parsed, e.g. by a mirror)."""
    known = facts if facts is not None else rank_facts(collection, metadata)
    return RankInput(
        collection=collection,
        score=known.counters.score,
        uses=known.counters.uses,
        success_count=known.counters.success_count,
        age_days=max(0.0, (now.timestamp() - known.created_ts) / timefmt.SECONDS_PER_DAY) if known.created else 0.0,
        importance=known.importance,
        confidence=known.confidence,
        relevance=relevance,
        collection_weight=collection_weight,
    )


def normalize(
    memory_id: str,
    collection: str | None,
    document: str | None,
    metadata: Mapping[str, Any] | None,
    *,
    now: datetime,
    similarity: float | None = None,
    final_rank_score: float | None = None,
    weights: RankingWeights = DEFAULT_WEIGHTS,
) -> NormalizedMemory:
    meta = dict(metadata or {})
    if not collection:
        collection = split_id(memory_id)[0] or ""
    content = document or str(meta.get("content") or meta.get("text") or "")
    created = created_at_of(meta)
    counters = counters_of(meta, collection)
    importance, confidence = bank_attributes(meta) if collection == MEMORY_BANK else (None, None)
    learned = learned_score(rank_input(collection, meta, now=now), weights)
    return NormalizedMemory(
        id=memory_id,
        collection=collection,
        content=content,
        created_at=timefmt.to_iso(created) if created else "",
        age=timefmt.humanize_age(created, now),
        score=counters.score,
        wilson_score=wilson_lower_bound(counters.success_count, counters.uses),
        uses=counters.uses,
        success_count=counters.success_count,
        learned_score=learned,
        last_outcome=counters.last_outcome,
        outcome_history=format_history(counters.history),
        tags=tags_of(meta),
        importance=importance,
        confidence=confidence,
        embedding_similarity=similarity,
        final_rank_score=final_rank_score,
        metadata={k: v for k, v in meta.items() if k not in SURFACED_KEYS},
        project=str(meta.get("project") or ""),
        archived=as_bool(meta.get("archived", False)),
    )
