from __future__ import annotations

from services.memory.dedup import (
    Neighbour,
    decide,
    dedup_pool,
    merge_tags,
    refreshed_fields,
)


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
    fields = refreshed_fields(
        {"importance": 0.9, "confidence": 0.4, "refresh_count": 2},
        collection="memory_bank",
        refreshed_at="2025-01-01T00:00:00+00:00",
        existing_tags=["pref"],
        new_tags=["tools", "pref"],
        importance=0.5,
        confidence=0.8,
    )
    assert fields["tags"] == ["pref", "tools"]
    assert (fields["importance"], fields["confidence"]) == (0.9, 0.8)
    assert fields["refresh_count"] == 3
    assert merge_tags(["a"], ["b", "a"]) == ["a", "b"]
