"""Durable storage for kg ops: an append-only journal plus snapshots, in
SQLite (WAL) under ``$MNEMEX_HOME/kg/kg.sqlite3``.

Every acknowledged change is one committed row in ``events`` before the
RPC answers, so it survives ``kill -9`` of the service (WAL with
``synchronous=NORMAL`` is durable against process crashes; set
``synchronous="FULL"`` to also survive power loss). Now and then a
scope's state is written to ``snapshots`` and its older events are
deleted in the same transaction.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from kernel.json_values import JSONObject, parse_object
from kernel.store_health import open_store

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    scope TEXT NOT NULL,
    op TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_scope_seq ON events (scope, seq);
CREATE TABLE IF NOT EXISTS snapshots (
    scope TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    data TEXT NOT NULL
);
"""


class Journal:
    def __init__(self, path: Path, *, synchronous: str = "NORMAL") -> None:
        if synchronous not in ("NORMAL", "FULL"):
            raise ValueError("synchronous must be NORMAL or FULL")
        self.path = path
        self._lock = threading.Lock()
        self._db = open_store(path, "kg store (kg.sqlite3)", "kg", SCHEMA, synchronous=synchronous)

    def append(self, scope: str, op: JSONObject) -> int:
        payload = json.dumps(op, separators=(",", ":"), ensure_ascii=False)
        with self._lock:
            cursor = self._db.execute("INSERT INTO events (scope, op) VALUES (?, ?)", (scope, payload))
            return int(cursor.lastrowid or 0)

    def load(self, scope: str) -> tuple[JSONObject | None, list[JSONObject], int]:
        """(snapshot or None, ops after it in order, number of those ops)."""
        with self._lock:
            row = self._db.execute("SELECT seq, data FROM snapshots WHERE scope = ?", (scope,)).fetchone()
            after = int(row[0]) if row else 0
            rows = self._db.execute(
                "SELECT op FROM events WHERE scope = ? AND seq > ? ORDER BY seq", (scope, after)
            ).fetchall()
        ops = [parse_object(r[0]) for r in rows]
        return (parse_object(row[1]) if row else None), ops, len(ops)

    def snapshot(self, scope: str, data: JSONObject) -> None:
        """Store ``data`` as the scope's state and drop the events it covers."""
        payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute("SELECT MAX(seq) FROM events WHERE scope = ?", (scope,)).fetchone()
                upto = int(row[0]) if row and row[0] is not None else 0
                previous = self._db.execute("SELECT seq FROM snapshots WHERE scope = ?", (scope,)).fetchone()
                upto = max(upto, int(previous[0]) if previous else 0)
                self._db.execute(
                    "INSERT INTO snapshots (scope, seq, data) VALUES (?, ?, ?) "
                    "ON CONFLICT(scope) DO UPDATE SET seq = excluded.seq, data = excluded.data",
                    (scope, upto, payload),
                )
                self._db.execute("DELETE FROM events WHERE scope = ? AND seq <= ?", (scope, upto))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def scopes(self) -> list[str]:
        with self._lock:
            rows = self._db.execute("SELECT scope FROM snapshots UNION SELECT DISTINCT scope FROM events").fetchall()
        return sorted(r[0] for r in rows)

    def close(self) -> None:
        with self._lock:
            self._db.close()
