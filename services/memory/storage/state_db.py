"""state.db: the memory service's own SQLite file, its tables, and the one connection to it.

Not Chroma's file: ``$MNEMEX_HOME/memory/state.db``, in WAL mode with
``synchronous=NORMAL``: a committed write is in the log before the call
returns, so it survives ``kill -9`` of the service (the OS still holds it);
only a power cut can lose the last few turns' bookkeeping, which costs at most
one scoring prompt. (``FULL`` added an fsync to every prompt's injection
record: about 1 ms of CPU and more of wall time on the hot path.) The exchange
intake's commit is the exception, made ``FULL`` (``turns.TurnStore.journal_exchange``).

Three stores share the connection and its lock, each owning its tables:
``turns.TurnStore`` (a turn and everything about it), ``outcome_log.OutcomeLog``
(what each Score did to each memory) and ``lifecycle_events.LifecycleEvents``
(promotions, demotions, deletions per day). The schema is created here, in one
place, when the file opens. Plain module (sqlite3 only); the stores' methods are
synchronous and run on worker threads under ``lock``.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from kernel.store_health import open_store

SCHEMA = """
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
CREATE TABLE IF NOT EXISTS turn_keys (
    user TEXT NOT NULL, project TEXT NOT NULL, session_id TEXT NOT NULL, turn_key TEXT NOT NULL,
    at REAL NOT NULL, PRIMARY KEY (user, project, session_id, turn_key));
CREATE INDEX IF NOT EXISTS turn_keys_age ON turn_keys (at);
CREATE TABLE IF NOT EXISTS exchange_intake (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user TEXT NOT NULL, project TEXT NOT NULL, session_id TEXT NOT NULL,
    memory_id TEXT NOT NULL, content TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS turn_outcomes (
    turn_id INTEGER PRIMARY KEY, outcome TEXT NOT NULL, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS turn_choices (
    turn_id INTEGER PRIMARY KEY, choices TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS turn_clients (
    turn_id INTEGER PRIMARY KEY, client TEXT NOT NULL);
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
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user TEXT NOT NULL, project TEXT NOT NULL, at REAL NOT NULL, day TEXT NOT NULL,
    kind TEXT NOT NULL, memory_id TEXT NOT NULL, from_collection TEXT NOT NULL, to_collection TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS events_scope ON events (user, project, day);
"""


class StateDb:
    """state.db: one connection (WAL, opened by ``kernel.store_health.open_store``) and its lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.conn: sqlite3.Connection = open_store(path, "memory state store (state.db)", "state", SCHEMA)

    def close(self) -> None:
        with self.lock:
            self.conn.close()
