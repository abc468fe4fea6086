"""Journal + snapshots: state survives a restart exactly; bad imports never
reach the journal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.kg.journal import Journal
from services.kg.keys import Outcome
from services.kg.store import ImportFormatError, KgStore, ScopeKey

SCOPE = ScopeKey("tester", "proj")


def teach(store: KgStore, n: int) -> None:
    for i in range(n):
        store.record_outcome(
            SCOPE,
            concepts=["pytest", f"c{i % 3}"],
            collections=["patterns"],
            doc_ids=[f"d{i}"],
            outcome=Outcome.WORKED if i % 4 else Outcome.FAILED,
            problem="pytest fixture fails",
        )
    store.index_fact(SCOPE, "fact_a", "Alice prefers pytest over unittest.")


@pytest.mark.parametrize("snapshot_every", [3, 1000])
def test_restart_restores_identical_state(tmp_path: Path, snapshot_every: int) -> None:
    store = KgStore(Journal(tmp_path / "kg.sqlite3"), snapshot_every=snapshot_every)
    teach(store, 10)
    before = store.graphs(SCOPE).to_json()
    store.journal.close()  # no final snapshot: like a crash
    reopened = KgStore(Journal(tmp_path / "kg.sqlite3"), snapshot_every=snapshot_every)
    assert reopened.graphs(SCOPE).to_json() == before
    assert reopened.route(SCOPE, ["pytest"]).has_preference


def test_snapshots_trim_the_journal(tmp_path: Path) -> None:
    store = KgStore(Journal(tmp_path / "kg.sqlite3"), snapshot_every=4)
    teach(store, 9)
    snapshot, ops, pending = store.journal.load(str(SCOPE))
    assert snapshot is not None and pending == len(ops) < 4


def test_reads_do_not_write(tmp_path: Path) -> None:
    store = KgStore(Journal(tmp_path / "kg.sqlite3"))
    teach(store, 3)
    rows_before = store.journal.load(str(SCOPE))[2]
    store.route(SCOPE, ["pytest"])
    store.graphs(ScopeKey("tester", "other")).content.facts_for_entities(["Alice"], 5)
    assert store.journal.load(str(SCOPE))[2] == rows_before
    assert store.journal.scopes() == [str(SCOPE)]


def test_export_import_round_trip_and_bad_imports(tmp_path: Path) -> None:
    store = KgStore(Journal(tmp_path / "kg.sqlite3"))
    teach(store, 6)
    exported = store.graphs(SCOPE).to_json()
    target = ScopeKey("tester", "copy")
    assert store.import_json(target, json.loads(json.dumps(exported))) == "mnemex"
    assert store.graphs(target).to_json() == exported
    with pytest.raises(ImportFormatError, match="neither a mnemex export"):
        store.import_json(target, {"nodes": []})
    with pytest.raises(ImportFormatError, match="malformed"):
        store.import_json(target, {"format": "mnemex-kg", "routing": {"concepts": {"x": {"books": 3}}}})
    reopened = KgStore(Journal(tmp_path / "kg.sqlite3"))
    assert reopened.graphs(target).to_json() == exported  # the bad imports never reached the journal
