"""Exchanges from OpenCode's store: the SQLite database ``~/.local/share/opencode/opencode.db`` (1.x).

Tables used (verified on OpenCode 1.18): ``session`` (``id``, ``directory``
= the working directory, ``parent_id`` set for subagent sessions,
``time_updated``), ``message`` (``id``, ``session_id``, ``time_created``,
``data`` JSON with ``role``, ``time.created`` / ``time.completed`` in epoch
ms, ``finish``) and ``part`` (``message_id``, ``data`` JSON with ``type``
text / tool / reasoning / step-start / ..., ``synthetic`` for text OpenCode
or a plugin attached, such as mnemex's own context).

The database is opened read-only (``mode=ro``), so a running OpenCode is
never disturbed. An exchange is a user message with text of the user's own
plus the assistant messages up to the next such user message; its answer is
the text of the last assistant message with text, its tool uses the
completed tool parts. The trailing exchange is held back while its last
assistant message is unfinished (no ``time.completed``, or ``finish``
``tool-calls``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Generator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from kernel.json_values import JSONObject, JSONValue, object_at, parse_value
from mnemex.backfill.exchange import MAX_TOOL_USES, Exchange, ToolUse, make_exchange, rfc3339, tool_use

CLIENT = "opencode"
# OpenCode's tool names and argument keys, as Claude Code's (the gateway's observations know those)
TOOL_NAMES = {
    "bash": "Bash",
    "edit": "Edit",
    "multiedit": "MultiEdit",
    "write": "Write",
    "read": "Read",
    "glob": "Glob",
    "grep": "Grep",
    "list": "LS",
    "todowrite": "TodoWrite",
    "todoread": "TodoRead",
    "task": "Task",
    "webfetch": "WebFetch",
}
ARGUMENT_KEYS = {"filePath": "file_path", "oldString": "old_string", "newString": "new_string"}


@dataclass(frozen=True)
class OpenCodeSession:
    id: str
    directory: str
    title: str
    time_updated: int
    messages: int
    first_prompt: str = ""  # what the user asked first: the label (the title is often the answer)


def connect_read_only(db: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=5.0)
    connection.execute("PRAGMA query_only = ON")
    return connection


def list_sessions(db: Path) -> list[OpenCodeSession]:
    """Top-level sessions (subagent sessions, with a parent, are left out). Raises ``sqlite3.Error``."""
    with closing(connect_read_only(db)) as connection:
        rows = connection.execute(
            "SELECT s.id, s.directory, s.title, s.time_updated, "
            "(SELECT COUNT(*) FROM message m WHERE m.session_id = s.id) "
            "FROM session s WHERE s.parent_id IS NULL ORDER BY s.time_created, s.id"
        ).fetchall()
        return [
            OpenCodeSession(
                str(r[0]), str(r[1] or ""), str(r[2] or ""), int(r[3] or 0), int(r[4]), first_prompt(connection, r[0])
            )
            for r in rows
        ]


def first_prompt(connection: sqlite3.Connection, session_id: object, limit: int = 20) -> str:
    """The text of the session's first user prompt, on one line ('' when there is none in its first parts)."""
    rows = connection.execute(
        "SELECT p.data FROM message m JOIN part p ON p.message_id = m.id "
        "WHERE m.session_id = ? AND json_extract(m.data, '$.role') = 'user' "
        "ORDER BY m.time_created, m.id, p.id LIMIT ?",
        (session_id, limit),
    ).fetchall()
    text = _user_text([_loads(row[0]) for row in rows])
    return " ".join(text.split())


def _loads(raw: object) -> JSONObject:
    try:
        value: JSONValue = parse_value(raw) if isinstance(raw, (str, bytes)) else None
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _tool(part: JSONObject) -> ToolUse | None:
    state = object_at(part, "state")
    if state.get("status") not in ("completed", "error"):
        return None
    name = str(part.get("tool") or "")
    arguments = {ARGUMENT_KEYS.get(k, k): v for k, v in object_at(state, "input").items()}
    response: JSONObject = {"output": state.get("output") or state.get("error") or ""}
    if state.get("status") == "error":
        response["is_error"] = True
    return tool_use(TOOL_NAMES.get(name, name), arguments, response)


@dataclass
class _Turn:
    message_id: str
    created: object  # the prompt's time.created, else the message row's time_created (rfc3339 reads either)
    prompt: str
    answer: str = ""
    last_assistant_id: str = ""
    finished: bool = False
    tools: list[ToolUse] = field(default_factory=list)

    def on_assistant(self, message_id: str, info: JSONObject, parts: list[JSONObject]) -> None:
        self.last_assistant_id = message_id
        times = object_at(info, "time")
        self.finished = bool(times and times.get("completed")) and info.get("finish") != "tool-calls"
        text = "\n".join(str(p.get("text") or "") for p in parts if p.get("type") == "text" and not p.get("synthetic"))
        if text.strip():
            self.answer = text.strip()
        for part in parts:
            if part.get("type") == "tool" and len(self.tools) < MAX_TOOL_USES and (used := _tool(part)):
                self.tools.append(used)

    def exchange(self, session: OpenCodeSession) -> Exchange | None:
        started = rfc3339(self.created)
        if started is None or not self.last_assistant_id:
            return None
        return make_exchange(
            source_id=f"{CLIENT}:{session.id}:{self.last_assistant_id}",
            client=CLIENT,
            session_id=session.id,
            cwd=session.directory,
            started_at=started,
            user_text=self.prompt,
            assistant_text=self.answer,
            tool_uses=self.tools,
        )


def _user_text(parts: list[JSONObject]) -> str:
    return "\n".join(
        str(p.get("text") or "") for p in parts if p.get("type") == "text" and not p.get("synthetic")
    ).strip()


def read_opencode_session(db: Path, session: OpenCodeSession, progress: list[int]) -> Generator[Exchange, None, None]:
    """The exchanges of one session, in order; ``progress[0]`` counts the messages read."""
    with closing(connect_read_only(db)) as connection:
        messages = connection.execute(
            "SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id", (session.id,)
        )
        turn: _Turn | None = None
        for message_id, time_created, raw in messages:
            progress[0] += 1
            info = _loads(raw)
            parts = [
                _loads(row[0])
                for row in connection.execute("SELECT data FROM part WHERE message_id = ? ORDER BY id", (message_id,))
            ]
            role = info.get("role")
            if role == "user" and not any(p.get("type") == "compaction" for p in parts):
                prompt = _user_text(parts)
                if prompt:
                    if turn is not None and (done := turn.exchange(session)) is not None:
                        yield done
                    times = object_at(info, "time")
                    turn = _Turn(str(message_id), times.get("created") or time_created, prompt)
            elif role == "assistant" and turn is not None and info.get("summary") is not True:
                turn.on_assistant(str(message_id), info, parts)
        if turn is not None and turn.finished and (done := turn.exchange(session)) is not None:
            yield done
