"""A turn, one user prompt and the assistant's answer, in state.db: its record and every read and write of it.

- ``record_injection`` with a prompt starts a new turn (the hook's
  get-context); without a prompt it adds ids to the current open turn (an MCP
  search during the answer). An empty session id means the scope's most
  recently active session.
- ``complete_turn`` (the Stop hook, via RecordExchange) marks it completed;
  ``journal_exchange`` does so with the exchange to store journaled in the
  same fsynced commit (``exchange_intake``), so an acknowledged stop survives
  a kill -9 and a power cut until the intake stored it (``finish_intake``).
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
- What became of a turn, for the viewer: why each search result was injected
  or left out (recorded with the injection), the client that sent it, its exchange
  outcome and the outcome log of its memories (``outcome_log``), read back by
  ``turns`` and ``sessions``.

Tables (created by ``state_db``): ``sessions``, ``turns``, ``turn_keys``,
``exchange_intake``, ``turn_choices``, ``turn_clients``, and ``turn_outcomes``,
which the outcome log writes with a Score. Plain module (sqlite3 only);
methods are synchronous and run on worker threads under the state.db lock.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from kernel.outcome_entry import OutcomeEntry
from services.memory.domain.naming import Scope, split_id
from services.memory.storage.outcome_log import MAX_ROWS, outcomes_by_turn
from services.memory.storage.state_db import StateDb

DEFAULT_SESSION = "default"
MAX_SESSION_ID_CHARS = 200

# the columns of a turn as ``turn_from_row`` reads them, from ``turns t``
TURN_COLUMNS = "t.id, t.session_id, t.prompt, t.injected_ids, t.completed, t.scored, t.exchange_id, t.started_at"


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
    # what became of it, for the viewer (``TurnStore.turns``); empty where not read
    outcome: str = ""
    outcomes: list[OutcomeEntry] = field(default_factory=list)
    choices: str = ""  # JSON: why each search result was injected or left out (PrepareContext)
    client: str = ""  # the client that sent it (claude, cursor, opencode); "" when not said


@dataclass(frozen=True)
class SessionRow:
    session_id: str
    last_activity: float
    turns: int
    first_prompt: str = ""
    clients: tuple[str, ...] = ()  # the clients its turns came from, by name


@dataclass(frozen=True)
class IntakeEntry:
    """An acknowledged exchange waiting in the intake journal to be stored as ``memory_id``."""

    id: int
    scope: Scope
    session_id: str
    memory_id: str
    content: str


# the columns TURN_COLUMNS names, then whatever the query selected after them
TurnRow = tuple[int, str, str, str, int, int, str, float, *tuple[object, ...]]


def turn_from_row(
    row: TurnRow,
    *,
    outcome: str = "",
    outcomes: list[OutcomeEntry] | None = None,
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


class TurnStore:
    def __init__(self, db: StateDb) -> None:
        self._lock = db.lock
        self._db = db.conn

    # -- helpers (the caller holds the lock) --------------------------------------------
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

    def _latest_turn_id(self, scope: Scope, session_id: str) -> int | None:
        row = self._db.execute(
            "SELECT id FROM turns WHERE user=? AND project=? AND session_id=? ORDER BY id DESC LIMIT 1",
            (scope.user, scope.project, session_id),
        ).fetchone()
        return None if row is None else int(row[0])

    # -- the turn as it happens -----------------------------------------------------------
    def resolve_session(self, scope: Scope, session_id: str) -> str:
        with self._lock:
            return self._resolve(scope, session_id)

    def record_injection(
        self,
        scope: Scope,
        session_id: str,
        ids: list[str],
        prompt: str,
        now: float,
        *,
        choices: str = "",
        client: str = "",
    ) -> str:
        """Record ``ids`` as injected into the session's turn (a new turn for a prompt), with ``choices``
        (JSON: why each search result was injected or left out; "" for none) and ``client`` (if said),
        in one transaction, so no reader sees the turn without why its lines were chosen."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            session = self._resolve(scope, session_id)
            self._touch(scope, session, now)
            latest = self._latest_turn(scope, session)
            if prompt or latest is None or latest.completed:
                cursor = self._db.execute(
                    "INSERT INTO turns (user, project, session_id, prompt, injected_ids, started_at, last_activity) "
                    "VALUES (?,?,?,?,?,?,?)",
                    (scope.user, scope.project, session, prompt, json.dumps(list(dict.fromkeys(ids))), now, now),
                )
                turn_id = cursor.lastrowid
            else:
                merged = list(dict.fromkeys([*latest.injected_ids, *ids]))
                self._db.execute(
                    "UPDATE turns SET injected_ids=?, last_activity=? WHERE id=?", (json.dumps(merged), now, latest.id)
                )
                turn_id = latest.id
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
            return session

    def record_client(self, scope: Scope, session_id: str, client: str) -> None:
        """Name the client of the session's latest turn, unless the turn already has one (a stop
        or turn-start after get-context said it already)."""
        if not client:
            return
        with self._lock:
            turn_id = self._latest_turn_id(scope, session_id)
            if turn_id is None or self._db.execute("SELECT 1 FROM turn_clients WHERE turn_id=?", (turn_id,)).fetchone():
                return  # the usual case after get-context: a read, no write
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute("INSERT OR IGNORE INTO turn_clients VALUES (?,?)", (turn_id, client))

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

    # -- the exchange intake journal --------------------------------------------------------
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

    # -- scoring ------------------------------------------------------------------------------
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

    # -- keeping it bounded -------------------------------------------------------------------
    def prune(self, older_than: float) -> int:
        """Drop turns (prompts, answers, what became of them) and sessions idle since before ``older_than``."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            removed = self._db.execute("DELETE FROM turns WHERE last_activity < ?", (older_than,)).rowcount
            self._db.execute("DELETE FROM sessions WHERE last_activity < ?", (older_than,))
            self._db.execute("DELETE FROM turn_keys WHERE at < ?", (older_than,))
            for table in ("turn_outcomes", "turn_choices", "turn_clients"):
                self._db.execute(f"DELETE FROM {table} WHERE turn_id NOT IN (SELECT id FROM turns)")
            return int(removed)

    def turn_count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM turns").fetchone()[0])

    # -- past turns, for the viewer -------------------------------------------------------------
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
        columns = f"{TURN_COLUMNS}, o.outcome, c.choices, k.client"
        joins = (
            "LEFT JOIN turn_outcomes o ON o.turn_id=t.id LEFT JOIN turn_choices c ON c.turn_id=t.id "
            "LEFT JOIN turn_clients k ON k.turn_id=t.id"
        )
        with self._lock:
            if memory_id:
                uid = split_id(memory_id)[1]
                rows = self._db.execute(
                    f"SELECT {columns} FROM turns t {joins} "
                    "WHERE t.user=? AND t.project=? AND t.injected_ids LIKE ? ORDER BY t.id DESC LIMIT ?",
                    (scope.user, scope.project, f'%{uid}"%', limit),  # '_' may over-match: checked below
                ).fetchall()
                rows = [r for r in rows if any(split_id(i)[1] == uid for i in json.loads(r[3]))]
            else:
                rows = self._db.execute(
                    f"SELECT {columns} FROM turns t {joins} "
                    "WHERE t.user=? AND t.project=? AND t.session_id=? ORDER BY t.id LIMIT ?",
                    (scope.user, scope.project, session_id, limit),
                ).fetchall()
            by_turn = outcomes_by_turn(self._db, [r[0] for r in rows])
        return [
            turn_from_row(r, outcome=r[8] or "", outcomes=by_turn.get(r[0], []), choices=r[9] or "", client=r[10] or "")
            for r in rows
        ]
