from __future__ import annotations

import json
from datetime import datetime

import pytest

from services.memory.domain import timefmt
from services.memory.domain.memory_view import NormalizedMemory, view
from services.memory.storage.record_codec import parse_record


def moment(text: str) -> datetime:
    parsed = timefmt.parse(text)
    assert parsed is not None
    return parsed


NOW = moment("2025-06-03T12:00:00+00:00")
assert NOW is not None


def normalize(
    memory_id: str,
    collection: str | None,
    document: str | None,
    metadata: dict[str, object] | None,
    *,
    similarity: float | None = None,
    final_rank_score: float | None = None,
) -> NormalizedMemory:
    """What every read path does with a stored row: parse it once into a record, then view the record."""
    record = parse_record(memory_id, collection, document, metadata)
    return view(record, now=NOW, similarity=similarity, final_rank_score=final_rank_score)


def test_working_memory_has_every_field_with_neutral_defaults() -> None:
    memory = normalize("working_ab", "working", "fixed it", {"created_at": "2025-06-01T12:00:00+00:00"})
    assert memory.content == "fixed it"
    assert (memory.created_at, memory.age) == ("2025-06-01T12:00:00+00:00", "2d")
    assert (memory.score, memory.wilson_score, memory.uses, memory.success_count) == (0.5, 0.5, 0, 0.0)
    assert memory.learned_score == pytest.approx(0.5)
    assert memory.tags == [] and memory.outcome_history == "" and memory.last_outcome == ""
    assert memory.importance is None and memory.confidence is None
    assert memory.embedding_similarity is None and memory.final_rank_score is None


def test_content_lives_in_one_place() -> None:
    memory = normalize("history_x", "history", None, {"text": "legacy text", "content": "legacy content"})
    assert memory.content == "legacy content"
    assert "text" not in memory.metadata and "content" not in memory.metadata


def test_timestamp_fallback_fills_created_at() -> None:
    memory = normalize("history_x", "history", "t", {"timestamp": "2025-05-27T12:00:00"})
    assert memory.created_at == "2025-05-27T12:00:00+00:00"
    assert memory.age == "7d"


def test_memory_bank_parses_tags_and_keeps_importance_and_confidence() -> None:
    meta = {"tags": json.dumps(["preference", "tools"]), "importance": 0.9, "confidence": 0.8, "score": 1.0}
    memory = normalize("memory_bank_x", "memory_bank", "likes pytest", meta)
    assert memory.tags == ["preference", "tools"]
    assert (memory.importance, memory.confidence) == (0.9, 0.8)
    assert memory.learned_score == pytest.approx(0.72)


def test_importance_never_leaks_onto_other_collections() -> None:
    memory = normalize("history_x", "history", "t", {"importance": 0.9, "confidence": 0.9})
    assert memory.importance is None and memory.confidence is None


def test_scored_memory_reports_wilson_and_outcome_history() -> None:
    meta = {"score": 0.8, "uses": 4, "success_count": 3.5, "last_outcome": "partial", "outcome_history": "NYY~"}
    memory = normalize("patterns_x", "patterns", "t", meta, similarity=0.7, final_rank_score=0.66)
    assert memory.outcome_history == "[YY~]"
    assert 0.0 < memory.wilson_score < 0.875
    assert (memory.embedding_similarity, memory.final_rank_score) == (0.7, 0.66)


def test_collection_is_inferred_from_the_id_and_garbage_is_tolerated() -> None:
    meta: dict[str, object] = {"score": "not a number", "uses": "3", "tags": "a, b", "created_at": "yesterday"}
    memory = normalize("memory_bank_abc", None, "t", meta)
    assert memory.collection == "memory_bank"
    assert memory.score == 1.0  # memory_bank default when the stored score is unreadable
    assert memory.uses == 3
    assert memory.tags == ["a", "b"]
    assert memory.created_at == "" and memory.age == ""


def test_remaining_metadata_is_kept_and_surfaced_keys_are_not_repeated() -> None:
    meta = {"title": "Guide", "source": "docs", "score": 0.5, "created_ts": 1.0, "archived": True, "project": "p"}
    memory = normalize("books_x", "books", "chunk", meta)
    assert memory.metadata == {"title": "Guide", "source": "docs"}
    assert memory.archived is True and memory.project == "p"
