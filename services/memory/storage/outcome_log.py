"""What each Score did to each memory: the outcome log in state.db.

One row per outcome applied to a memory (``outcomes``): when, in which turn,
the score before and after, and any lifecycle move. The same commit keeps the
exchange outcome the turn got (``turn_outcomes``, read with the turn by
``turns.TurnStore``). The log stays bounded: about once a day a write drops
outcomes older than ``OUTCOME_LOG_DAYS``.

The web viewer reads it to answer "what came of this memory?". Plain module
(sqlite3 only); synchronous, run on worker threads under the state.db lock.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from kernel.outcome_entry import OutcomeEntry
from services.memory.domain.naming import Scope, split_id
from services.memory.storage.state_db import StateDb

MAX_ROWS = 500
OUTCOME_LOG_DAYS = 365  # a memory's outcome timeline goes back this far
PRUNE_EVERY_S = 24 * 3600

_COLUMNS = (
    "at, memory_id, outcome, score_before, score_after, collection_before, collection_after, "
    "transition, new_id, session_id, turn_id"
)


def _outcome(row: Sequence[object]) -> OutcomeEntry:
    return OutcomeEntry(*row)  # type: ignore[arg-type]  # columns in field order


def outcomes_by_turn(conn: sqlite3.Connection, turn_ids: Sequence[int]) -> dict[int, list[OutcomeEntry]]:
    """The logged outcomes of each of ``turn_ids``, oldest first (the caller holds the lock)."""
    found: dict[int, list[OutcomeEntry]] = {}
    for start in range(0, len(turn_ids), 400):
        chunk = list(turn_ids[start : start + 400])
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(
            f"SELECT {_COLUMNS} FROM outcomes WHERE turn_id IN ({marks}) ORDER BY id", chunk
        ).fetchall():
            entry = _outcome(row)
            found.setdefault(entry.turn_id, []).append(entry)
    return found


class OutcomeLog:
    def __init__(self, db: StateDb) -> None:
        self._lock = db.lock
        self._db = db.conn
        self._pruned_at = 0.0

    def record(
        self, scope: Scope, session_id: str, turn_id: int, turn_outcome: str, rows: Iterable[OutcomeEntry], now: float
    ) -> None:
        """Log the outcomes one Score applied; ``turn_outcome`` (if any) is the turn's exchange outcome."""
        values = [
            (
                scope.user,
                scope.project,
                now,
                session_id,
                turn_id,
                split_id(r.memory_id)[1],
                r.memory_id,
                r.outcome,
                r.score_before,
                r.score_after,
                r.collection_before,
                r.collection_after,
                r.transition,
                r.new_id,
            )
            for r in rows
        ]
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            if values:
                self._db.executemany(
                    "INSERT INTO outcomes (user, project, at, session_id, turn_id, memory_uid, memory_id, outcome, "
                    "score_before, score_after, collection_before, collection_after, transition, new_id) "
                    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    values,
                )
            if turn_id and turn_outcome:
                self._db.execute(
                    "INSERT INTO turn_outcomes VALUES (?,?,?) ON CONFLICT (turn_id) "
                    "DO UPDATE SET outcome=excluded.outcome, at=excluded.at",
                    (turn_id, turn_outcome, now),
                )
        if now - self._pruned_at > PRUNE_EVERY_S:
            self.prune(now - OUTCOME_LOG_DAYS * 24 * 3600)
            self._pruned_at = now

    def prune(self, older_than: float) -> int:
        """Drop outcomes logged before ``older_than``; the rows removed."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            return int(self._db.execute("DELETE FROM outcomes WHERE at < ?", (older_than,)).rowcount)

    def of_memory(self, scope: Scope, memory_id: str, limit: int) -> list[OutcomeEntry]:
        """Every logged outcome of the memory (any collection it lived in), oldest first."""
        uid = split_id(memory_id)[1]
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM (SELECT * FROM outcomes WHERE memory_uid=? AND user=? "
                "AND (project=? OR ?='') ORDER BY id DESC LIMIT ?) ORDER BY id",
                (uid, scope.user, scope.project, scope.project, min(limit, MAX_ROWS)),
            ).fetchall()
        return [_outcome(r) for r in rows]
