"""The note a fact carries about the value it superseded (domain.fact_history), on hand-made records."""

from __future__ import annotations

from datetime import UTC, datetime

from services.memory.domain.fact_history import WAS_UNTIL, WAS_VALUE, previous_value, superseded_ids, with_previous
from services.memory.domain.memory_view import view
from services.memory.domain.record import MemoryRecord

NOW = datetime(2026, 3, 5, 12, 0, tzinfo=UTC)


def fact(
    mid: str, content: str, archived_at: datetime | None = None, extra: dict[str, str] | None = None
) -> MemoryRecord:
    created = datetime(2026, 3, 1, tzinfo=UTC)
    return MemoryRecord(
        mid,
        "memory_bank",
        content,
        created,
        archived=archived_at is not None,
        archived_at=archived_at,
        extra=extra or {},
    )


def test_the_previous_value_is_what_changed() -> None:
    assert (
        previous_value("The staging database runs PostgreSQL 14.", "The staging database runs PostgreSQL 16.") == "14"
    )
    assert previous_value("The staging database port is 5432", "Staging DB now listens on port 6543") == "5432"
    assert previous_value("The release branch is main.", "The release branch is develop.") == "main"
    assert previous_value("Deploys go out on Fridays", "Deploys go out on Tuesdays") == "Fridays"
    assert previous_value("Same words", "same words") == ""


def test_a_fact_notes_the_latest_value_it_still_supersedes_and_when_it_was_archived() -> None:
    archived = datetime(2026, 3, 3, 9, 15, tzinfo=UTC)
    new = view(
        fact("memory_bank_3", "The API uses Postgres 16", extra={"supersedes": "memory_bank_1,memory_bank_2"}), now=NOW
    )
    assert superseded_ids(new) == ["memory_bank_2", "memory_bank_1"]
    older = [
        fact("memory_bank_2", "The API uses Postgres 15", archived),
        fact("memory_bank_1", "The API uses Postgres 14", datetime(2026, 2, 1, tzinfo=UTC)),
    ]
    noted = with_previous(new, older)
    assert noted.metadata[WAS_VALUE] == "15" and noted.metadata[WAS_UNTIL] == "2026-03-03T09:15:00+00:00"
    restored = [fact("memory_bank_2", "The API uses Postgres 15")]  # an undo made it active again
    assert with_previous(new, restored) is new
    assert superseded_ids(view(MemoryRecord("working_1", "working", "x", extra={"supersedes": "a"}), now=NOW)) == []
