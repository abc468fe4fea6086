"""What happened to turns and memories after the fact: the outcome log, and reads of past turns.

Lives in the session store's SQLite file (``state.db``), on the session
store's connection (``StateDb``): ``SessionState`` writes the ``sessions`` and
``turns`` tables, this module reads them (as ``Turn``, the one record of a turn
row) and owns tables of its own:

- ``outcomes``: one row per outcome applied to a memory (when, which turn,
  score before and after, any lifecycle move), written by the Score use case;
- ``turn_outcomes``: the exchange outcome a turn got;
- ``turn_choices``: why each search result was injected or left out, and what made its rank;
- ``turn_clients``: the client (claude, cursor, opencode) that sent the turn.

Both stay bounded: about once a day a write drops outcomes older than
``OUTCOME_LOG_DAYS`` and the turn outcomes of turns the session store pruned.

The web viewer reads them to answer "why did it show me that, and what came
of it?". Plain module (sqlite3 only); synchronous, run on worker threads.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from services.memory.domain.naming import Scope, split_id
from services.memory.storage.turn_records import TURN_COLUMNS, OutcomeRow, SessionRow, StateDb, Turn, turn_from_row

MAX_ROWS = 500
OUTCOME_LOG_DAYS = 365  # a memory's outcome timeline goes back this far
PRUNE_EVERY_S = 24 * 3600

_SCHEMA = """
CREATE TABLE IF NOT EXISTS outcomes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user TEXT NOT NULL, project TEXT NOT NULL, at REAL NOT NULL,
    session_id TEXT NOT NULL, turn_id INTEGER NOT NULL,
    memory_uid TEXT NOT NULL, memory_id TEXT NOT NULL, outcome TEXT NOT NULL,
    score_before REAL NOT NULL, score_after REAL NOT NULL,
    collection_before TEXT NOT NULL, collection_after TEXT NOT NULL,
    transition TEXT NOT NULL, new_id TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS outcomes_memory ON outcomes (memory_uid, id);
CREATE INDEX IF NOT EXISTS outcomes_turn ON outcomes (turn_id);
CREATE INDEX IF NOT EXISTS outcomes_age ON outcomes (at);
CREATE TABLE IF NOT EXISTS turn_outcomes (
    turn_id INTEGER PRIMARY KEY, outcome TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS turn_choices (
    turn_id INTEGER PRIMARY KEY, choices TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS turn_clients (
    turn_id INTEGER PRIMARY KEY, client TEXT NOT NULL);
"""


_OUTCOME_COLUMNS = (
    "at, memory_id, outcome, score_before, score_after, collection_before, collection_after, "
    "transition, new_id, session_id, turn_id"
)


def _outcome(row: tuple[object, ...]) -> OutcomeRow:
    return OutcomeRow(*row)  # type: ignore[arg-type]  # columns in field order


class TurnHistory:
    def __init__(self, db: StateDb) -> None:
        """On the session store's handle (``SessionState.db``), which also closes it."""
        db.apply(_SCHEMA)
        self._lock = db.lock
        self._db = db.conn
        self._pruned_at = 0.0

    # -- writes ---------------------------------------------------------------------------
    def record(
        self, scope: Scope, session_id: str, turn_id: int, turn_outcome: str, rows: Iterable[OutcomeRow], now: float
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

    def record_choices(self, scope: Scope, session_id: str, choices: str, client: str = "") -> None:
        """Keep ``choices`` (JSON; "" for none) and ``client`` (if said) with the session's latest turn,
        the one PrepareContext just recorded."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            turn_id = self._latest_turn(scope, session_id)
            if turn_id is None:
                return
            if choices:
                self._db.execute(
                    "INSERT INTO turn_choices VALUES (?,?) "
                    "ON CONFLICT (turn_id) DO UPDATE SET choices=excluded.choices",
                    (turn_id, choices),
                )
            if client:
                self._db.execute(
                    "INSERT INTO turn_clients VALUES (?,?) ON CONFLICT (turn_id) DO UPDATE SET client=excluded.client",
                    (turn_id, client),
                )

    def record_client(self, scope: Scope, session_id: str, client: str) -> None:
        """Name the client of the session's latest turn, unless the turn already has one (a stop
        or turn-start after get-context said it already)."""
        if not client:
            return
        with self._lock:
            turn_id = self._latest_turn(scope, session_id)
            if turn_id is None or self._db.execute("SELECT 1 FROM turn_clients WHERE turn_id=?", (turn_id,)).fetchone():
                return  # the usual case after get-context: a read, no write
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute("INSERT OR IGNORE INTO turn_clients VALUES (?,?)", (turn_id, client))

    def _latest_turn(self, scope: Scope, session_id: str) -> int | None:
        row = self._db.execute(
            "SELECT id FROM turns WHERE user=? AND project=? AND session_id=? ORDER BY id DESC LIMIT 1",
            (scope.user, scope.project, session_id),
        ).fetchone()
        return None if row is None else int(row[0])

    def prune(self, older_than: float) -> int:
        """Drop outcomes logged before ``older_than`` and the outcomes of turns that are gone; the rows removed."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            removed = self._db.execute("DELETE FROM outcomes WHERE at < ?", (older_than,)).rowcount
            removed += self._db.execute(
                "DELETE FROM turn_outcomes WHERE turn_id NOT IN (SELECT id FROM turns)"
            ).rowcount
            removed += self._db.execute("DELETE FROM turn_choices WHERE turn_id NOT IN (SELECT id FROM turns)").rowcount
            removed += self._db.execute("DELETE FROM turn_clients WHERE turn_id NOT IN (SELECT id FROM turns)").rowcount
            return int(removed)

    # -- reads ----------------------------------------------------------------------------
    def sessions(self, scope: Scope, limit: int) -> list[SessionRow]:
        with self._lock:
            rows = self._db.execute(
                "SELECT s.session_id, s.last_activity, "
                "(SELECT COUNT(*) FROM turns t WHERE t.user=s.user AND t.project=s.project "
                "AND t.session_id=s.session_id), "
                "(SELECT t.prompt FROM turns t WHERE t.user=s.user AND t.project=s.project "
                "AND t.session_id=s.session_id AND t.prompt != '' ORDER BY t.id LIMIT 1), "
                "(SELECT group_concat(DISTINCT c.client) FROM turns t JOIN turn_clients c ON c.turn_id=t.id "
                "WHERE t.user=s.user AND t.project=s.project AND t.session_id=s.session_id) "
                "FROM sessions s WHERE s.user=? AND s.project=? "
                "ORDER BY s.last_activity DESC LIMIT ?",
                (scope.user, scope.project, min(limit, MAX_ROWS)),
            ).fetchall()
        return [
            SessionRow(r[0], r[1], r[2], r[3] or "", tuple(sorted(c for c in (r[4] or "").split(",") if c)))
            for r in rows
        ]

    def outcome_log(self, scope: Scope, memory_id: str, limit: int) -> list[OutcomeRow]:
        """Every logged outcome of the memory (any collection it lived in), oldest first."""
        uid = split_id(memory_id)[1]
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_OUTCOME_COLUMNS} FROM (SELECT * FROM outcomes WHERE memory_uid=? AND user=? "
                "AND (project=? OR ?='') ORDER BY id DESC LIMIT ?) ORDER BY id",
                (uid, scope.user, scope.project, scope.project, min(limit, MAX_ROWS)),
            ).fetchall()
        return [_outcome(r) for r in rows]

    def written_by(self, scope: Scope, memory_id: str) -> str:
        """The client of the turn that stored ``memory_id`` (any collection it moved to) as its exchange."""
        uid = split_id(memory_id)[1]
        with self._lock:
            rows = self._db.execute(
                "SELECT t.exchange_id, k.client FROM turns t JOIN turn_clients k ON k.turn_id=t.id "
                "WHERE t.user=? AND t.project=? AND t.exchange_id LIKE ? ORDER BY t.id DESC LIMIT 5",
                (scope.user, scope.project, f"%{uid}"),  # '_' may over-match: checked below
            ).fetchall()
        return next((str(client) for exchange_id, client in rows if split_id(exchange_id)[1] == uid), "")

    def turns(self, scope: Scope, *, session_id: str = "", memory_id: str = "", limit: int = 100) -> list[Turn]:
        """A session's turns in order, or the latest turns ``memory_id`` was injected into (newest first)."""
        limit = min(limit, MAX_ROWS)
        with self._lock:
            if memory_id:
                uid = split_id(memory_id)[1]
                rows = self._db.execute(
                    f"SELECT {TURN_COLUMNS}, o.outcome, c.choices, k.client FROM turns t "
                    "LEFT JOIN turn_outcomes o ON o.turn_id=t.id LEFT JOIN turn_choices c ON c.turn_id=t.id "
                    "LEFT JOIN turn_clients k ON k.turn_id=t.id "
                    "WHERE t.user=? AND t.project=? AND t.injected_ids LIKE ? ORDER BY t.id DESC LIMIT ?",
                    (scope.user, scope.project, f'%{uid}"%', limit),  # '_' may over-match: checked below
                ).fetchall()
                rows = [r for r in rows if any(split_id(i)[1] == uid for i in json.loads(r[3]))]
            else:
                rows = self._db.execute(
                    f"SELECT {TURN_COLUMNS}, o.outcome, c.choices, k.client FROM turns t "
                    "LEFT JOIN turn_outcomes o ON o.turn_id=t.id LEFT JOIN turn_choices c ON c.turn_id=t.id "
                    "LEFT JOIN turn_clients k ON k.turn_id=t.id "
                    "WHERE t.user=? AND t.project=? AND t.session_id=? ORDER BY t.id LIMIT ?",
                    (scope.user, scope.project, session_id, limit),
                ).fetchall()
            by_turn: dict[int, list[OutcomeRow]] = {}
            ids = [r[0] for r in rows]
            for start in range(0, len(ids), 400):
                chunk = ids[start : start + 400]
                marks = ",".join("?" * len(chunk))
                for found in self._db.execute(
                    f"SELECT {_OUTCOME_COLUMNS} FROM outcomes WHERE turn_id IN ({marks}) ORDER BY id", chunk
                ).fetchall():
                    entry = _outcome(found)
                    by_turn.setdefault(entry.turn_id, []).append(entry)
        return [
            turn_from_row(r, outcome=r[8] or "", outcomes=by_turn.get(r[0], []), choices=r[9] or "", client=r[10] or "")
            for r in rows
        ]
