"""Where each client keeps its history, and the units a backfill reads and checkpoints.

- Claude Code: one JSONL file per session, ``~/.claude/projects/<slug>/<session>.jsonl``
  (``$CLAUDE_CONFIG_DIR/projects`` when set). Subagent transcripts in
  ``<session>/subagents/`` are not read.
- OpenCode 1.x: one SQLite database, ``~/.local/share/opencode/opencode.db``
  (``$XDG_DATA_HOME/opencode``); each top-level session is a unit.

A ``Source`` carries a ``fingerprint`` that changes whenever the unit does
(size and mtime of a file; last update and message count of a session) and
a ``size`` that only grows while the unit is appended to.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mnemex.backfill.opencode_reader import OpenCodeSession, list_sessions

CLIENTS = ("claude", "opencode")
CLIENT_NAMES = {"claude": "Claude Code", "opencode": "OpenCode", "cursor": "Cursor"}


@dataclass(frozen=True)
class Source:
    client: str
    key: str  # the checkpoint's key
    path: Path  # the file that is read
    label: str  # what the progress display and the summary show
    fingerprint: str
    size: int  # bytes (Claude Code) or messages (OpenCode): the progress total
    session: OpenCodeSession | None = None


@dataclass(frozen=True)
class Unreadable:
    client: str
    path: str
    reason: str


@dataclass
class Discovery:
    sources: list[Source] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)
    found_clients: set[str] = field(default_factory=set)


def claude_projects_dir(home: Path, environ: Mapping[str, str] = os.environ) -> Path:
    configured = environ.get("CLAUDE_CONFIG_DIR")
    return (Path(configured).expanduser() if configured else home / ".claude") / "projects"


def opencode_data_dir(home: Path, environ: Mapping[str, str] = os.environ) -> Path:
    data = environ.get("XDG_DATA_HOME")
    return (Path(data).expanduser() if data else home / ".local" / "share") / "opencode"


def claude_sources(home: Path, found: Discovery) -> None:
    root = claude_projects_dir(home)
    if not root.is_dir():
        return
    found.found_clients.add("claude")
    files: list[tuple[float, Source]] = []
    for path in root.glob("*/*.jsonl"):
        try:
            info = path.stat()
        except OSError as exc:
            found.unreadable.append(Unreadable("claude", str(path), f"cannot read it: {exc.strerror or exc}"))
            continue
        if not path.is_file():
            continue
        label = f"{path.parent.name[-30:]}/{path.name}"
        fingerprint = f"{info.st_size}:{info.st_mtime_ns}"
        files.append((info.st_mtime, Source("claude", str(path), path, label, fingerprint, info.st_size)))
    found.sources.extend(source for _, source in sorted(files, key=lambda pair: (pair[0], pair[1].key)))


def opencode_sources(home: Path, found: Discovery) -> None:
    data = opencode_data_dir(home)
    db = data / "opencode.db"
    if (data / "storage" / "session").is_dir():
        found.found_clients.add("opencode")
        found.unreadable.append(
            Unreadable(
                "opencode",
                str(data / "storage"),
                "OpenCode's older JSON file store (before 1.x) is not read by this version of backfill",
            )
        )
    if not db.is_file():
        return
    found.found_clients.add("opencode")
    try:
        sessions = list_sessions(db)
    except sqlite3.Error as exc:
        found.unreadable.append(Unreadable("opencode", str(db), f"not a readable OpenCode database: {exc}"))
        return
    for session in sessions:
        fingerprint = f"{session.time_updated}:{session.messages}"
        label = f"{Path(session.directory).name or session.directory}: {session_label(session)}"
        found.sources.append(
            Source("opencode", f"{db}#{session.id}", db, label, fingerprint, session.messages, session)
        )


def cursor_notice(home: Path, found: Discovery) -> None:
    """Cursor's history is not imported (docs/BACKFILL.md says why); say so when there is some."""
    stores = (home / ".cursor" / "projects", home / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb")
    for store in stores:
        if store.exists():
            found.found_clients.add("cursor")
            found.unreadable.append(
                Unreadable("cursor", str(store), "Cursor's chat store has no documented format; not imported yet")
            )


def discover(home: Path, clients: tuple[str, ...] = CLIENTS) -> Discovery:
    """Every unit of history of the named clients under ``home``; unreadable stores are listed with why."""
    found = Discovery()
    if "claude" in clients:
        claude_sources(home, found)
    if "opencode" in clients:
        opencode_sources(home, found)
    if "cursor" in clients:
        cursor_notice(home, found)
    return found


def session_label(session: OpenCodeSession, width: int = 40) -> str:
    """An OpenCode session by its first prompt (its title is often the assistant's answer), else title, else id."""
    text = session.first_prompt or session.title or session.id
    return text if len(text) <= width else text[: width - 1] + "…"
