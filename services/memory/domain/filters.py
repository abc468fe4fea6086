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
from typing import TypeVar

from services.memory.domain import timefmt
from services.memory.domain.memory_view import NormalizedMemory
from services.memory.domain.search_params import FieldFilter, SortBy

Ordered = TypeVar("Ordered", datetime, bool, float, str)
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


def _value_of(memory: NormalizedMemory, key: str) -> object:
    if key in NORMALIZED_FIELDS:
        value: object = getattr(memory, key)
        return value
    return memory.metadata.get(key)


def _compare(left: object, right: object, key: str) -> int | None:
    """-1, 0 or 1 as ``left`` is below, equal to or above ``right``; None when they do not compare
    (different kinds, a date that does not parse, NaN)."""
    if key in ("created_at", "timestamp") or key.endswith("_at"):
        a, b = timefmt.parse(left), timefmt.parse(right)
        return _order(a, b) if a is not None and b is not None else None
    if isinstance(left, bool) or isinstance(right, bool):
        return _order(left, right) if isinstance(left, bool) and isinstance(right, bool) else None
    if isinstance(left, int | float) and isinstance(right, int | float):
        return _order(float(left), float(right))
    if isinstance(left, str) and isinstance(right, str):
        return _order(left, right)
    return None


def _order(left: Ordered, right: Ordered) -> int | None:
    if left < right:
        return -1
    if left > right:
        return 1
    return 0 if left == right else None


def _equal(left: object, right: object, key: str) -> bool:
    return _compare(left, right, key) == 0


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
    choices = expected if isinstance(expected, list) else []  # parse_filters let only lists through for these
    if op == "$in":
        return any(_equal(value, item, flt.key) for item in choices)
    if op == "$nin":
        return not any(_equal(value, item, flt.key) for item in choices)
    order = _compare(value, expected, flt.key)
    if order is None:
        return False
    return {"$gt": order > 0, "$gte": order >= 0, "$lt": order < 0, "$lte": order <= 0}[op]


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
