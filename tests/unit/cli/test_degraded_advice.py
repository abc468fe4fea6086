"""What `mnemex up` advises when a service did not start: repair only for a damaged store."""

from __future__ import annotations

from pathlib import Path

from kernel.home_schema import too_new_message
from kernel.store_health import unreadable
from mnemex.supervisor.supervisor_loop import degraded_advice


def test_a_store_written_by_a_newer_mnemex_is_not_sent_to_repair(tmp_path: Path) -> None:
    problem = too_new_message(tmp_path, "memory", 9, 3, "9.0.0")
    advice = degraded_advice([problem])
    assert "repair" not in advice
    assert "upgrade mnemex" in problem and "the line above" in advice


def test_a_damaged_store_is_sent_to_doctor_and_repair(tmp_path: Path) -> None:
    damaged = str(unreadable("memory state store (state.db)", tmp_path / "state.db", OSError("file is not a database")))
    assert "`mnemex repair`" in degraded_advice([damaged])


def test_one_damaged_store_among_refusals_still_gets_the_repair_advice(tmp_path: Path) -> None:
    too_new = too_new_message(tmp_path, "kg", 9, 3, None)
    damaged = str(unreadable("kg store", tmp_path / "kg.sqlite3", OSError("disk I/O error")))
    assert "`mnemex repair`" in degraded_advice([too_new, damaged])
