"""The records read from state.db's turn tables, one type per row, and the one connection they share.

``Turn`` is one row of ``turns`` (a prompt and the answer to it), whoever reads it:
the session store for the scoring state (``session_state``), the history for the
viewer (``turn_history``), which adds what became of the turn (its outcome, the
outcome log of its memories, why each result was injected, the client). ``OutcomeRow``
is one row of the outcome log, ``SessionRow`` a session as the viewer lists it.

``StateDb`` is the one SQLite connection to state.db and the lock every use of it
takes: the session store opens it, the turn history works on the same handle.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernel.store_health import open_store

# the columns of a turn as ``turn_from_row`` reads them, from ``turns t``
TURN_COLUMNS = "t.id, t.session_id, t.prompt, t.injected_ids, t.completed, t.scored, t.exchange_id, t.started_at"


@dataclass(frozen=True)
class OutcomeRow:
    at: float
    memory_id: str
    outcome: str
    score_before: float
    score_after: float
    collection_before: str
    collection_after: str
    transition: str
    new_id: str
    session_id: str = ""
    turn_id: int = 0


@dataclass(frozen=True)
class Turn:
    id: int
    session_id: str
    prompt: str
    injected_ids: list[str]
    completed: bool
    scored: bool
    exchange_id: str
    started_at: float
    # what the history adds for the viewer (``TurnHistory.turns``); empty where not read
    outcome: str = ""
    outcomes: list[OutcomeRow] = field(default_factory=list)
    choices: str = ""  # JSON: why each search result was injected or left out (PrepareContext)
    client: str = ""  # the client that sent it (claude, cursor, opencode); "" when not said


@dataclass(frozen=True)
class SessionRow:
    session_id: str
    last_activity: float
    turns: int
    first_prompt: str = ""
    clients: tuple[str, ...] = ()  # the clients its turns came from, by name


def turn_from_row(
    row: Sequence[Any],
    *,
    outcome: str = "",
    outcomes: list[OutcomeRow] | None = None,
    choices: str = "",
    client: str = "",
) -> Turn:
    """A ``Turn`` from a row that starts with ``TURN_COLUMNS``."""
    return Turn(
        id=row[0],
        session_id=row[1],
        prompt=row[2],
        injected_ids=json.loads(row[3]),
        completed=bool(row[4]),
        scored=bool(row[5]),
        exchange_id=row[6],
        started_at=row[7],
        outcome=outcome,
        outcomes=outcomes if outcomes is not None else [],
        choices=choices,
        client=client,
    )


class StateDb:
    """state.db: one connection (WAL, opened by ``kernel.store_health.open_store``) and its lock."""

    def __init__(self, path: Path, schema: str) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.conn: sqlite3.Connection = open_store(path, "memory state store (state.db)", "state", schema)

    def apply(self, schema: str) -> None:
        """Create the tables another reader of the file keeps (``CREATE ... IF NOT EXISTS``)."""
        with self.lock:
            self.conn.executescript(schema)

    def close(self) -> None:
        with self.lock:
            self.conn.close()
