"""Imported (backfilled) memories: their time limit counts from the import, not from their original date."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from services.memory.domain.lifecycle import Action, LifecycleConfig, expiry_clock, sweep
from services.memory.domain.record import MemoryRecord
from services.memory.domain.scoring import Counters

IMPORTED = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
HAPPENED = IMPORTED - timedelta(days=400)
CFG = LifecycleConfig()


def _planned(record: MemoryRecord, now: datetime) -> Action:
    return sweep(record.collection, Counters(), expiry_clock=expiry_clock(record), now=now, config=CFG).action


def test_imported_history_never_used_has_no_time_limit() -> None:
    record = MemoryRecord("history_1", "history", "User: q\nAssistant: a", created=HAPPENED, imported_at=IMPORTED)
    assert expiry_clock(record) is None
    assert _planned(record, IMPORTED + timedelta(minutes=15)) is Action.NONE
    assert _planned(record, IMPORTED + timedelta(days=400)) is Action.NONE


def test_imported_history_used_once_then_idle_expires_by_the_history_rule() -> None:
    used = IMPORTED + timedelta(days=1)
    record = MemoryRecord("history_4", "history", "x", created=HAPPENED, imported_at=IMPORTED, last_used_at=used)
    assert _planned(record, used + timedelta(days=29)) is Action.NONE
    assert _planned(record, used + timedelta(days=31)) is Action.EXPIRE


def test_a_use_after_the_import_restarts_the_clock() -> None:
    used = IMPORTED + timedelta(days=20)
    record = MemoryRecord("history_2", "history", "x", created=HAPPENED, imported_at=IMPORTED, last_used_at=used)
    assert expiry_clock(record) == used
    assert _planned(record, IMPORTED + timedelta(days=40)) is Action.NONE


def test_an_old_record_without_import_time_still_expires_by_its_date() -> None:
    record = MemoryRecord("working_3", "working", "x", created=HAPPENED)
    assert _planned(record, IMPORTED) is Action.EXPIRE
