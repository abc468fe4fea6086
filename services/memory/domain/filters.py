"""Applying a search's metadata filters and sort order to normalized memories.

Pure module. ``matches`` applies the filters ``search_params.parse_filters``
checked (in Python, after fetching); ``within`` is the time window;
``sort_memories`` orders results. A key is either a normalized field
(``collection``, ``score``, ``uses``, ``created_at``, ``tags``, ...) or a stored
metadata key (``title``, ``session_id``, ...); ``created_at`` comparisons are
date-aware.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from services.memory.domain import timefmt
from services.memory.domain.memory_view import NormalizedMemory
from services.memory.domain.search_params import FieldFilter, SortBy

NORMALIZED_FIELDS = frozenset(
    {
        "id",
        "collection",
        "content",
        "created_at",
        "age",
        "score",
        "wilson_score",
        "uses",
        "success_count",
        "learned_score",
        "last_outcome",
        "outcome_history",
        "tags",
        "importance",
        "confidence",
        "project",
        "archived",
    }
)


def _value_of(memory: NormalizedMemory, key: str) -> Any:
    if key in NORMALIZED_FIELDS:
        return getattr(memory, key)
    return memory.metadata.get(key)


def _comparable(left: Any, right: Any, key: str) -> tuple[Any, Any] | None:
    if key in ("created_at", "timestamp") or key.endswith("_at"):
        a, b = timefmt.parse(left), timefmt.parse(right)
        return (a, b) if a is not None and b is not None else None
    if isinstance(left, bool) or isinstance(right, bool):
        return (bool(left), bool(right)) if isinstance(left, bool) and isinstance(right, bool) else None
    if isinstance(left, int | float) and isinstance(right, int | float):
        return float(left), float(right)
    if isinstance(left, str) and isinstance(right, str):
        return left, right
    return None


def _equal(left: Any, right: Any, key: str) -> bool:
    pair = _comparable(left, right, key)
    return pair is not None and pair[0] == pair[1]


def _check(memory: NormalizedMemory, flt: FieldFilter) -> bool:
    value = _value_of(memory, flt.key)
    op, expected = flt.op, flt.value
    if op == "$contains":
        if isinstance(value, list):
            return any(_equal(item, expected, flt.key) for item in value)
        return isinstance(value, str) and isinstance(expected, str) and expected.lower() in value.lower()
    if isinstance(value, list):  # tags == "x" means the list holds "x"
        if op == "$eq":
            return any(_equal(item, expected, flt.key) for item in value)
        if op == "$ne":
            return not any(_equal(item, expected, flt.key) for item in value)
    if op == "$eq":
        return _equal(value, expected, flt.key)
    if op == "$ne":
        return not _equal(value, expected, flt.key)
    if op == "$in":
        return any(_equal(value, item, flt.key) for item in expected)
    if op == "$nin":
        return not any(_equal(value, item, flt.key) for item in expected)
    pair = _comparable(value, expected, flt.key)
    if pair is None:
        return False
    left, right = pair
    outcome: bool = {"$gt": left > right, "$gte": left >= right, "$lt": left < right, "$lte": left <= right}[op]
    return outcome


def matches(memory: NormalizedMemory, filters: Iterable[FieldFilter]) -> bool:
    return all(_check(memory, flt) for flt in filters)


def within(memory: NormalizedMemory, cutoff: datetime | None) -> bool:
    """True when the memory was created at or after ``cutoff`` (None: no time filter)."""
    if cutoff is None:
        return True
    created = timefmt.parse(memory.created_at)
    return created is not None and created >= cutoff


def _created_key(memory: NormalizedMemory) -> float:
    created = timefmt.parse(memory.created_at)
    return created.timestamp() if created else float("-inf")


def sort_memories(memories: list[NormalizedMemory], sort_by: SortBy) -> list[NormalizedMemory]:
    """Best first: by rank score, newest creation, or outcome score (Wilson breaks ties; the id last)."""
    if sort_by is SortBy.RECENCY:
        return sorted(memories, key=lambda m: (_created_key(m), m.final_rank_score or 0.0, m.id), reverse=True)
    if sort_by is SortBy.SCORE:
        return sorted(memories, key=lambda m: (m.score, m.wilson_score, m.final_rank_score or 0.0, m.id), reverse=True)
    return sorted(memories, key=lambda m: (m.final_rank_score or 0.0, _created_key(m), m.id), reverse=True)
