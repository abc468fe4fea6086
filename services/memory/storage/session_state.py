"""Per-session turn state and lifecycle events, in a small SQLite database.

Not Chroma's own SQLite file: ``$MNEMEX_HOME/memory/state.db``, in WAL mode
with ``synchronous=NORMAL``: a committed write is in the log before the call
returns, so it survives ``kill -9`` of the service (the OS still holds it);
only a power cut can lose the last few turns' bookkeeping, which costs at
most one scoring prompt. (``FULL`` added an fsync to every prompt's
RecordInjection: about 1 ms of CPU and more of wall time on the hot path.)
Plain module (sqlite3 only); methods are synchronous and run on worker
threads under one lock.

A *turn* is one user prompt and the assistant's answer:

- ``record_injection`` with a prompt starts a new turn (the hook's
  get-context); without a prompt it adds ids to the current open turn (an MCP
  search during the answer). An empty session id means the scope's most
  recently active session.
- ``complete_turn`` (the Stop hook, via RecordExchange) marks it completed.
- ``claim_turn_key``: a client that reports one answer from several hooks
  (Cursor: afterAgentResponse, then stop) names the turn; the first claim of
  a key in a session wins, atomically, so the exchange is stored once.
- ``scoring_state``: scoring is required only when the latest turn completed
  and is unscored. A turn that was interrupted (a new prompt came before any
  stop) never asks for scoring.
- ``scoring_target``: the turn a Score call applies to: the latest completed
  turn if it is unscored, else none. Never the turn in progress: a score
  sent while answering (a model that obeys a scoring prompt twice, or scores
  on its own) must not promote the memories it is being shown right now.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from services.memory.domain.naming import Scope
from services.memory.storage.turn_records import TURN_COLUMNS, StateDb, Turn, turn_from_row

DEFAULT_SESSION = "default"
MAX_SESSION_ID_CHARS = 200

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    user TEXT NOT NULL, project TEXT NOT NULL, session_id TEXT NOT NULL, last_activity REAL NOT NULL,
    PRIMARY KEY (user, project, session_id));
CREATE INDEX IF NOT EXISTS sessions_recent ON sessions (user, project, last_activity);
CREATE TABLE IF NOT EXISTS turns (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user TEXT NOT NULL, project TEXT NOT NULL, session_id TEXT NOT NULL,
    prompt TEXT NOT NULL DEFAULT '', injected_ids TEXT NOT NULL DEFAULT '[]',
    completed INTEGER NOT NULL DEFAULT 0, scored INTEGER NOT NULL DEFAULT 0,
    exchange_id TEXT NOT NULL DEFAULT '', assistant_text TEXT NOT NULL DEFAULT '',
    started_at REAL NOT NULL, last_activity REAL NOT NULL);
CREATE INDEX IF NOT EXISTS turns_session ON turns (user, project, session_id, id);
CREATE INDEX IF NOT EXISTS turns_age ON turns (last_activity);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user TEXT NOT NULL, project TEXT NOT NULL, at REAL NOT NULL, day TEXT NOT NULL,
    kind TEXT NOT NULL, memory_id TEXT NOT NULL, from_collection TEXT NOT NULL, to_collection TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS events_scope ON events (user, project, day);
CREATE TABLE IF NOT EXISTS turn_keys (
    user TEXT NOT NULL, project TEXT NOT NULL, session_id TEXT NOT NULL, turn_key TEXT NOT NULL,
    at REAL NOT NULL, PRIMARY KEY (user, project, session_id, turn_key));
CREATE INDEX IF NOT EXISTS turn_keys_age ON turn_keys (at);
CREATE TABLE IF NOT EXISTS exchange_intake (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user TEXT NOT NULL, project TEXT NOT NULL, session_id TEXT NOT NULL,
    memory_id TEXT NOT NULL, content TEXT NOT NULL, at REAL NOT NULL);
"""


@dataclass(frozen=True)
class IntakeEntry:
    """An acknowledged exchange waiting in the intake journal to be stored as ``memory_id``."""

    id: int
    scope: Scope
    session_id: str
    memory_id: str
    content: str


@dataclass(frozen=True)
class LifecycleEvent:
    kind: str  # promoted, demoted, deleted, expired
    memory_id: str
    from_collection: str
    to_collection: str = ""


class SessionState:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.db = StateDb(path, _SCHEMA)  # the one handle on state.db; the turn history shares it
        self._lock = self.db.lock
        self._db = self.db.conn

    def close(self) -> None:
        self.db.close()

    # -- helpers ----------------------------------------------------------------
    def _latest_session(self, scope: Scope) -> str | None:
        row = self._db.execute(
            "SELECT session_id FROM sessions WHERE user=? AND project=? ORDER BY last_activity DESC LIMIT 1",
            (scope.user, scope.project),
        ).fetchone()
        return row[0] if row else None

    def _resolve(self, scope: Scope, session_id: str) -> str:
        return session_id or self._latest_session(scope) or DEFAULT_SESSION

    def _touch(self, scope: Scope, session_id: str, now: float) -> None:
        self._db.execute(
            "INSERT INTO sessions VALUES (?,?,?,?) ON CONFLICT (user, project, session_id) "
            "DO UPDATE SET last_activity=excluded.last_activity",
            (scope.user, scope.project, session_id, now),
        )

    def _latest_turn(self, scope: Scope, session_id: str, where: str = "1=1") -> Turn | None:
        row = self._db.execute(
            f"SELECT {TURN_COLUMNS} FROM turns t "
            f"WHERE user=? AND project=? AND session_id=? AND {where} ORDER BY id DESC LIMIT 1",
            (scope.user, scope.project, session_id),
        ).fetchone()
        return None if row is None else turn_from_row(row)

    # -- turns ------------------------------------------------------------------
    def resolve_session(self, scope: Scope, session_id: str) -> str:
        with self._lock:
            return self._resolve(scope, session_id)

    def record_injection(self, scope: Scope, session_id: str, ids: list[str], prompt: str, now: float) -> str:
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            session = self._resolve(scope, session_id)
            self._touch(scope, session, now)
            latest = self._latest_turn(scope, session)
            if prompt or latest is None or latest.completed:
                self._db.execute(
                    "INSERT INTO turns (user, project, session_id, prompt, injected_ids, started_at, last_activity) "
                    "VALUES (?,?,?,?,?,?,?)",
                    (scope.user, scope.project, session, prompt, json.dumps(list(dict.fromkeys(ids))), now, now),
                )
            else:
                merged = list(dict.fromkeys([*latest.injected_ids, *ids]))
                self._db.execute(
                    "UPDATE turns SET injected_ids=?, last_activity=? WHERE id=?", (json.dumps(merged), now, latest.id)
                )
            return session

    def open_turn(self, scope: Scope, session_id: str) -> Turn | None:
        with self._lock:
            latest = self._latest_turn(scope, self._resolve(scope, session_id))
            return latest if latest is not None and not latest.completed else None

    def complete_turn(
        self, scope: Scope, session_id: str, exchange_id: str, user_text: str, assistant_text: str, now: float
    ) -> str:
        """Mark the open turn completed (or record a completed turn if none is open)."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            session = self._resolve(scope, session_id)
            self._complete(scope, session, exchange_id, user_text, assistant_text, now)
            return session

    def _complete(
        self, scope: Scope, session: str, exchange_id: str, user_text: str, assistant_text: str, now: float
    ) -> None:
        self._touch(scope, session, now)
        latest = self._latest_turn(scope, session)
        if latest is not None and not latest.completed:
            self._db.execute(
                "UPDATE turns SET completed=1, exchange_id=?, assistant_text=?, last_activity=?, "
                "prompt=CASE WHEN prompt='' THEN ? ELSE prompt END WHERE id=?",
                (exchange_id, assistant_text, now, user_text, latest.id),
            )
        else:
            self._db.execute(
                "INSERT INTO turns (user, project, session_id, prompt, completed, exchange_id, assistant_text, "
                "started_at, last_activity) VALUES (?,?,?,?,1,?,?,?,?)",
                (scope.user, scope.project, session, user_text, exchange_id, assistant_text, now, now),
            )

    # -- the exchange intake journal ----------------------------------------------------
    def journal_exchange(
        self,
        scope: Scope,
        session_id: str,
        turn_key: str,
        memory_id: str,
        content: str,
        user_text: str,
        assistant_text: str,
        now: float,
    ) -> IntakeEntry | None:
        """Claim ``turn_key`` (if any), journal the exchange and complete the turn, in one fsynced commit.

        None when ``turn_key`` was claimed before (the exchange is stored already). The
        returned entry (id 0 when there is no content to store) stays journaled until
        ``finish_intake``: acknowledged once this returns, it survives a kill -9 and a
        power cut (``synchronous=FULL`` for this commit).
        """
        with self._lock:
            self._db.execute("PRAGMA synchronous=FULL")
            try:
                with self._db:
                    self._db.execute("BEGIN IMMEDIATE")
                    session = self._resolve(scope, session_id)
                    if (
                        turn_key
                        and not self._db.execute(
                            "INSERT OR IGNORE INTO turn_keys VALUES (?,?,?,?,?)",
                            (scope.user, scope.project, session, turn_key, now),
                        ).rowcount
                    ):
                        return None
                    self._complete(scope, session, memory_id if content else "", user_text, assistant_text, now)
                    if not content:
                        return IntakeEntry(0, scope, session, "", "")
                    cursor = self._db.execute(
                        "INSERT INTO exchange_intake (user, project, session_id, memory_id, content, at) "
                        "VALUES (?,?,?,?,?,?)",
                        (scope.user, scope.project, session, memory_id, content, now),
                    )
                    return IntakeEntry(int(cursor.lastrowid or 0), scope, session, memory_id, content)
            finally:
                self._db.execute("PRAGMA synchronous=NORMAL")

    def pending_intake(self, after_id: int, limit: int) -> list[IntakeEntry]:
        """Journaled exchanges not stored yet, oldest first (what a restart replays)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, user, project, session_id, memory_id, content FROM exchange_intake "
                "WHERE id > ? ORDER BY id LIMIT ?",
                (after_id, limit),
            ).fetchall()
        return [IntakeEntry(r[0], Scope(r[1], r[2]), r[3], r[4], r[5]) for r in rows]

    def finish_intake(self, stored: Iterable[tuple[IntakeEntry, str]]) -> None:
        """Drop stored entries from the journal; a turn whose exchange refreshed another memory points at it."""
        done = list(stored)
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            for entry, actual_id in done:
                if actual_id and actual_id != entry.memory_id:
                    self._db.execute(
                        "UPDATE turns SET exchange_id=? WHERE user=? AND project=? AND session_id=? AND exchange_id=?",
                        (actual_id, entry.scope.user, entry.scope.project, entry.session_id, entry.memory_id),
                    )
            self._db.executemany("DELETE FROM exchange_intake WHERE id=?", [(entry.id,) for entry, _ in done])

    def intake_count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM exchange_intake").fetchone()[0])

    def claim_turn_key(self, scope: Scope, session_id: str, turn_key: str, now: float) -> bool:
        """True the first time ``turn_key`` is claimed in the session, False ever after."""
        with self._lock, self._db:
            inserted = self._db.execute(
                "INSERT OR IGNORE INTO turn_keys VALUES (?,?,?,?,?)",
                (scope.user, scope.project, session_id, turn_key, now),
            ).rowcount
            return bool(inserted)

    def release_turn_key(self, scope: Scope, session_id: str, turn_key: str) -> None:
        """Undo a claim whose exchange could not be stored, so a later report can store it."""
        with self._lock, self._db:
            self._db.execute(
                "DELETE FROM turn_keys WHERE user=? AND project=? AND session_id=? AND turn_key=?",
                (scope.user, scope.project, session_id, turn_key),
            )

    def scoring_state(self, scope: Scope, session_id: str) -> Turn | None:
        """The latest turn when it completed and is unscored (scoring required), else None."""
        with self._lock:
            latest = self._latest_turn(scope, self._resolve(scope, session_id))
            return latest if latest is not None and latest.completed and not latest.scored else None

    def scoring_target(self, scope: Scope, session_id: str) -> Turn | None:
        with self._lock:
            session = self._resolve(scope, session_id)
            completed = self._latest_turn(scope, session, "completed=1")
            return completed if completed is not None and not completed.scored else None

    def mark_scored(self, turn_id: int, now: float) -> None:
        with self._lock, self._db:
            self._db.execute("UPDATE turns SET scored=1, last_activity=? WHERE id=?", (now, turn_id))

    def prune(self, older_than: float) -> int:
        """Drop turn logs (prompts, answers) and sessions idle since before ``older_than``."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            removed = self._db.execute("DELETE FROM turns WHERE last_activity < ?", (older_than,)).rowcount
            self._db.execute("DELETE FROM sessions WHERE last_activity < ?", (older_than,))
            self._db.execute("DELETE FROM turn_keys WHERE at < ?", (older_than,))
            return int(removed)

    def turn_count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM turns").fetchone()[0])

    # -- lifecycle events ---------------------------------------------------------
    def add_events(self, scope: Scope, events: Iterable[LifecycleEvent], now: float) -> None:
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

    def event_summary(self, scope: Scope) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
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
