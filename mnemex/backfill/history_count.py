"""A quick count of the history ``mnemex backfill`` could import, for ``mnemex init`` to offer it.

Cheap by design: Claude Code sessions are counted as files (their size
stands in for their length, nothing is parsed); OpenCode's sessions and
prompts are counted with one read-only query each.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from mnemex.backfill.opencode_reader import connect_read_only
from mnemex.backfill.sources import claude_projects_dir, opencode_data_dir


@dataclass(frozen=True)
class HistoryCount:
    claude_sessions: int = 0
    claude_bytes: int = 0
    opencode_sessions: int = 0
    opencode_prompts: int = 0

    def describe(self, imported: int = 0) -> str:
        """One line for ``init``; '' when there is nothing to import.

        ``imported``: sessions an earlier ``mnemex backfill`` read to their end (its checkpoint).
        """
        total = self.claude_sessions + self.opencode_sessions
        if total and imported >= total:
            return (
                f"history: all {_many(total, 'session')} already imported by mnemex backfill "
                "(run it again later to add new ones)"
            )
        found = []
        if self.claude_sessions:
            size = f"{self.claude_bytes / 1e6:.1f} MB"
            found.append(f"{_many(self.claude_sessions, 'Claude Code session')} ({size})")
        if self.opencode_sessions:
            prompts = _many(self.opencode_prompts, "prompt")
            found.append(f"{_many(self.opencode_sessions, 'OpenCode session')} ({prompts})")
        if not found:
            return ""
        if imported:
            return (
                f"history: found {' and '.join(found)}, {imported} already imported; "
                "import the rest with: mnemex backfill"
            )
        return f"history: found {' and '.join(found)}; import them with: mnemex backfill (try --dry-run first)"


def imported_sessions(mnemex_home: Path) -> int:
    """How many sources an earlier backfill read to their end, from its checkpoint (0 without one)."""
    from mnemex.backfill.checkpoint import Checkpoint

    path = mnemex_home / "backfill" / "checkpoint.json"
    if not path.is_file():
        return 0
    return sum(1 for progress in Checkpoint.load(path).entries.values() if progress.complete)


def _many(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def count_history(home: Path) -> HistoryCount:
    claude_sessions = claude_bytes = 0
    root = claude_projects_dir(home)
    if root.is_dir():
        for path in root.glob("*/*.jsonl"):
            try:
                claude_bytes += path.stat().st_size
            except OSError:
                continue
            claude_sessions += 1
    opencode_sessions = opencode_prompts = 0
    db = opencode_data_dir(home) / "opencode.db"
    if db.is_file():
        try:
            with closing(connect_read_only(db)) as connection:
                opencode_sessions = int(
                    connection.execute("SELECT COUNT(*) FROM session WHERE parent_id IS NULL").fetchone()[0]
                )
                opencode_prompts = int(
                    connection.execute(
                        "SELECT COUNT(*) FROM message WHERE json_extract(data, '$.role') = 'user'"
                    ).fetchone()[0]
                )
        except sqlite3.Error:
            pass
    return HistoryCount(claude_sessions, claude_bytes, opencode_sessions, opencode_prompts)
