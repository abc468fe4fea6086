"""The pure parts of consolidation: argument checks, where a merge lands, the archive / restore records."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.memory.domain.consolidation_rules import (
    KINDS,
    check_kinds,
    check_limit,
    check_sources,
    consolidation_target,
    restored,
    superseded,
)
from services.memory.domain.memory_errors import InvalidRequest
from services.memory.domain.record import MemoryRecord

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def record(collection: str) -> MemoryRecord:
    return MemoryRecord(id=f"{collection}_1", collection=collection, content="x")


def test_argument_checks() -> None:
    assert check_kinds([]) == KINDS and check_kinds([" Stale ", "stale"]) == ("stale",)
    assert check_limit(0) == 10 and check_limit(50) == 50
    assert check_sources([" a ", "a", "b"]) == ["a", "b"]
    for bad in (lambda: check_kinds(["all"]), lambda: check_limit(51), lambda: check_sources([" "])):
        with pytest.raises(InvalidRequest):
            bad()
    with pytest.raises(InvalidRequest, match="at most 20"):
        check_sources([f"id{i}" for i in range(21)])


def test_where_a_merge_lands() -> None:
    assert consolidation_target([record("working"), record("patterns"), record("history")], "") == "patterns"
    assert consolidation_target([record("working"), record("memory_bank")], "") == "memory_bank"
    assert consolidation_target([record("working")], "history") == "history"
    with pytest.raises(InvalidRequest, match="book"):
        consolidation_target([record("working")], "books")


def test_archive_and_restore_keep_the_link_history() -> None:
    source = MemoryRecord(id="memory_bank_1", collection="memory_bank", content="x", extra={"source": "docs"})
    gone = superseded(source, "memory_bank_2", NOW, "consolidated into memory_bank_2")
    assert gone.archived and gone.archived_at == NOW and gone.extra["superseded_by"] == "memory_bank_2"
    assert gone.extra["source"] == "docs"
    back = restored(gone, NOW)
    assert not back.archived and back.archived_reason == "" and back.extra["superseded_by"] == ""
    assert back.extra["restored_at"] == "2026-03-01T00:00:00+00:00"
