"""The kg journal after a salvage: every snapshot and event checked on its own.

Plain module (sqlite3, json). A salvaged row can still hold bytes that are not
the JSON the kg wrote (a page of garbage inside a long snapshot's overflow
chain). ``check_journal`` keeps each snapshot and each event whose JSON reads,
drops the others, and says what was lost: the scope of each lost snapshot
(named from the set-aside file's index on ``scope`` when the row itself cannot
be read) and the ``seq`` of each lost event.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class JournalCheck:
    snapshots_kept: int = 0
    events_kept: int = 0
    dropped: int = 0  # salvaged rows deleted because their JSON does not read
    lost_scopes: list[str] = field(default_factory=list)  # scopes whose snapshot was lost
    lost_events: list[int] = field(default_factory=list)  # seq of each event lost
    lost: list[str] = field(default_factory=list)  # one line each, for the report


def _reads(text: object) -> bool:
    try:
        return isinstance(json.loads(str(text)), dict)
    except ValueError:
        return False


def _indexed_scopes(original: Path) -> dict[int, str]:
    """Every snapshot's scope by rowid, read from the index on ``scope`` alone (the rows may not read)."""
    try:
        db = sqlite3.connect(f"file:{original}?mode=ro", uri=True)
        try:
            named = db.execute(
                "SELECT rowid, scope FROM snapshots INDEXED BY sqlite_autoindex_snapshots_1 WHERE scope IS NOT NULL"
            ).fetchall()
        finally:
            db.close()
    except sqlite3.Error:
        return {}
    return {int(rowid): str(scope) for rowid, scope in named}


def _shown(values: list[str]) -> str:
    return ", ".join(values[:20]) + (" ..." if len(values) > 20 else "")


def check_journal(salvaged: Path, original: Path, unreadable: dict[str, list[int]]) -> JournalCheck:
    """Drop the rows of ``salvaged`` whose JSON does not read; what was kept and lost.

    ``unreadable`` holds the rowids the salvage found in ``original`` but could not read.
    """
    check = JournalCheck()
    kept: set[str] = set()
    db = sqlite3.connect(salvaged, isolation_level=None)
    try:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        db.execute("BEGIN")
        if "snapshots" in tables:
            for rowid, scope, data in db.execute("SELECT rowid, scope, data FROM snapshots").fetchall():
                if _reads(data):
                    check.snapshots_kept += 1
                    kept.add(str(scope))
                else:
                    db.execute("DELETE FROM snapshots WHERE rowid = ?", (rowid,))
                    check.dropped += 1
                    check.lost_scopes.append(str(scope))
        if "events" in tables:
            for seq, op in db.execute("SELECT seq, op FROM events").fetchall():
                if _reads(op):
                    check.events_kept += 1
                else:
                    db.execute("DELETE FROM events WHERE seq = ?", (seq,))
                    check.dropped += 1
                    check.lost_events.append(int(seq))
        db.execute("COMMIT")
    finally:
        db.close()
    indexed = _indexed_scopes(original)
    for rowid in unreadable.get("snapshots", []):
        check.lost_scopes.append(indexed.get(rowid, f"<unknown scope, rowid {rowid}>"))
    for scope in indexed.values():  # also those on pages that did not read at all
        if scope not in kept and scope not in check.lost_scopes:
            check.lost_scopes.append(scope)
    check.lost_events += unreadable.get("events", [])
    check.lost_events.sort()
    if check.lost_scopes:
        total = check.snapshots_kept + len(check.lost_scopes)
        check.lost.append(
            f"kg snapshots: kept {check.snapshots_kept} of {total}; lost the snapshot of "
            f"{_shown(check.lost_scopes)} (that graph restarts from the events kept after it)"
        )
    if check.lost_events:
        check.lost.append(
            f"kg events: lost {len(check.lost_events)} (seq {_shown([str(s) for s in check.lost_events])})"
        )
    return check
