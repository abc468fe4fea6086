"""The consolidation journal keeps intents durably, private to the user, and forgets them once finished."""

from __future__ import annotations

import stat
from pathlib import Path

from services.memory.storage.consolidation_journal import ConsolidationIntent, ConsolidationJournal


def test_an_intent_is_listed_until_finished_and_private(tmp_path: Path) -> None:
    folder = tmp_path / "memory" / "merges"
    journal = ConsolidationJournal(folder)
    assert journal.pending() == []
    intent = ConsolidationIntent("alice", "shop", "history_123456789012345", ("history_1", "working_2"))
    journal.begin(intent)
    assert journal.pending() == [intent]
    [path] = folder.glob("*.json")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(folder.stat().st_mode) == 0o700
    journal.finish(intent.merged_id)
    assert journal.pending() == [] and list(folder.iterdir()) == []


def test_an_unreadable_intent_is_dropped_and_a_temporary_file_ignored(tmp_path: Path) -> None:
    folder = tmp_path / "merges"
    folder.mkdir()
    (folder / "history_1.json").write_text("{not json", encoding="utf-8")
    (folder / ".merge-abc").write_text('{"user": "half written"', encoding="utf-8")
    assert ConsolidationJournal(folder).pending() == []
    assert [p.name for p in folder.iterdir()] == [".merge-abc"]
