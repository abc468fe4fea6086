from __future__ import annotations

import json

from mnemex.roampal_import.records import history_marks, iso_time, mnemex_id, tags_json, to_record


def test_content_falls_back_from_document_to_metadata_content_then_text() -> None:
    record, _ = to_record("roampal_working", "working_1", "", {"content": "from content", "text": "from text"})
    assert record is not None and record["content"] == "from content"
    record, _ = to_record("roampal_working", "working_2", None, {"text": "from text"})
    assert record is not None and record["content"] == "from text"
    assert "text" not in record["metadata"] and "content" not in record["metadata"]
    assert to_record("roampal_working", "working_3", "  ", {}) == (None, "empty")


def test_history_row_with_only_timestamp_and_bad_score_is_normalized() -> None:
    record, _ = to_record(
        "roampal_history",
        "history_9",
        "fixed the flaky test",
        {
            "timestamp": "2025-02-07T15:42:00",
            "score": "not-a-number",
            "uses": "3",
            "success_count": 2.5,
            "outcome_history": '["worked", "failed", "partial"]',
            "last_outcome": "Partial",
            "session": "abc",
        },
    )
    assert record is not None
    meta = record["metadata"]
    assert meta["created_at"] == "2025-02-07T15:42:00" and "timestamp" not in meta
    assert (meta["score"], meta["uses"], meta["success_count"]) == (0.5, 3, 2.5)
    assert meta["outcome_history"] == "YN~" and meta["last_outcome"] == "partial"
    assert meta["session"] == "abc" and meta["imported_from"] == "roampal" and meta["roampal_id"] == "history_9"
    assert meta["refreshed_at"] == meta["imported_at"]  # a fresh expiry window, original age kept
    assert record["id"] == "history_9" and record["collection"] == "history"


def test_memory_bank_keeps_tags_importance_confidence_and_books_keep_title() -> None:
    bank, _ = to_record(
        "roampal_memory_bank",
        "memory_bank_1",
        "User is Ada",
        {"tags": '["identity"]', "importance": 0.9, "confidence": 0.8, "created_at": "2025-01-01T00:00:00"},
    )
    assert bank is not None
    tags = bank["metadata"]["tags"]
    assert isinstance(tags, str) and json.loads(tags) == ["identity"]
    assert (bank["metadata"]["importance"], bank["metadata"]["confidence"], bank["metadata"]["score"]) == (
        0.9,
        0.8,
        1.0,
    )
    book, _ = to_record("roampal_books", "book_abc_chunk_0", "chapter one", {"title": "Manual", "chunk_index": 0})
    assert book is not None and book["metadata"]["title"] == "Manual"
    assert "score" not in book["metadata"] and "refreshed_at" not in book["metadata"]
    assert book["id"].startswith("books_") and book["id"] == mnemex_id("books", "book_abc_chunk_0")  # stable


def test_helpers() -> None:
    assert history_marks("[YY~N]") == "YY~N"
    assert history_marks([{"outcome": "worked"}, {"outcome": "unknown"}]) == "Y?"
    assert history_marks("worked,failed") == "YN"
    assert iso_time(1_700_000_000) == "2023-11-14T22:13:20+00:00"
    assert iso_time(1_700_000_000_000) == "2023-11-14T22:13:20+00:00"
    assert iso_time("yesterday") == ""
    assert tags_json("a, b") == '["a", "b"]' and tags_json(["x"]) == '["x"]' and tags_json(None) == "[]"
    assert to_record("roampal_other", "x", "y", {}) == (None, "unknown collection")
