from __future__ import annotations

from datetime import UTC, datetime

from services.memory.domain.dedup import (
    Neighbour,
    decide,
    dedup_pool,
    merge_tags,
    refreshed,
)
from services.memory.domain.record import MemoryRecord


def test_refreshes_the_nearest_duplicate_at_or_above_threshold() -> None:
    neighbours = [Neighbour("working_a", "working", 0.951), Neighbour("history_b", "history", 0.97)]
    decision = decide("working", neighbours, threshold=0.95)
    assert decision.refresh is not None and decision.refresh.id == "history_b"


def test_creates_below_threshold_and_ignores_archived() -> None:
    assert decide("working", [Neighbour("working_a", "working", 0.949)]).creates
    assert decide("working", [Neighbour("working_a", "working", 0.99, archived=True)]).creates


def test_pools_keep_memory_bank_apart_and_books_never_dedupe() -> None:
    assert dedup_pool("memory_bank") == ("memory_bank",)
    assert set(dedup_pool("working")) == {"working", "history", "patterns"}
    assert decide("memory_bank", [Neighbour("working_a", "working", 0.99)]).creates
    assert decide("books", [Neighbour("books_a", "books", 1.0)]).creates


def test_memory_bank_update_merges_tags_and_keeps_the_larger_attributes() -> None:
    existing = MemoryRecord(
        id="memory_bank_a",
        collection="memory_bank",
        content="old wording",
        tags=("pref",),
        importance=0.9,
        confidence=0.4,
        refresh_count=2,
    )
    now = datetime(2025, 1, 1, tzinfo=UTC)
    after = refreshed(
        existing, content="new wording", now=now, new_tags=["tools", "pref"], importance=0.5, confidence=0.8
    )
    assert after.tags == ("pref", "tools")
    assert (after.importance, after.confidence) == (0.9, 0.8)
    assert after.refresh_count == 3
    assert after.refreshed_at == now and after.content == "new wording" and after.id == existing.id
    assert merge_tags(["a"], ["b", "a"]) == ["a", "b"]
