"""The lifecycle's moves per day (promoted, demoted, deleted, expired), in state.db's ``events`` table.

Written by the lifecycle use case as each move happens, summed by the stats
read (totals per kind and per day). Plain module (sqlite3 only); synchronous,
run on worker threads under the state.db lock.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from services.memory.domain.naming import Scope
from services.memory.storage.state_db import StateDb


@dataclass(frozen=True)
class LifecycleEvent:
    kind: str  # promoted, demoted, deleted, expired
    memory_id: str
    from_collection: str
    to_collection: str = ""


class LifecycleEvents:
    def __init__(self, db: StateDb) -> None:
        self._lock = db.lock
        self._db = db.conn

    def add(self, scope: Scope, events: Iterable[LifecycleEvent], now: float) -> None:
        day = datetime.fromtimestamp(now, UTC).date().isoformat()
        rows = [
            (scope.user, scope.project, now, day, e.kind, e.memory_id, e.from_collection, e.to_collection)
            for e in events
        ]
        if not rows:
            return
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(
                "INSERT INTO events (user, project, at, day, kind, memory_id, from_collection, to_collection) "
                "VALUES (?,?,?,?,?,?,?,?)",
                rows,
            )

    def summary(self, scope: Scope) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
        """(totals per kind, {day: {kind: count}}) for the scope."""
        with self._lock:
            rows = self._db.execute(
                "SELECT day, kind, COUNT(*) FROM events WHERE user=? AND project=? GROUP BY day, kind ORDER BY day",
                (scope.user, scope.project),
            ).fetchall()
        totals: dict[str, int] = defaultdict(int)
        by_day: dict[str, dict[str, int]] = defaultdict(dict)
        for day, kind, count in rows:
            totals[kind] += count
            by_day[day][kind] = count
        return dict(totals), dict(by_day)
