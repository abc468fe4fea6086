"""Homes laid out like a user's, holding the real transcripts in tests/fixtures/backfill."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "backfill"
CLAUDE_SLUG = "-srv-home-code-shop"
CLAUDE_SESSION = "f557bda4-b470-4898-b0fb-b11bc40d547b"
OPENCODE_SESSION = "ses_def2203bdffeb95VHTvptUIFSi"


def install_claude(home: Path, fixture: str = "claude_session.jsonl", name: str = CLAUDE_SESSION) -> Path:
    target = home / ".claude" / "projects" / CLAUDE_SLUG / f"{name}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(FIXTURES / fixture, target)
    return target


def install_opencode(home: Path) -> Path:
    db = home / ".local" / "share" / "opencode" / "opencode.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(db) as connection:
        connection.executescript((FIXTURES / "opencode_session.sql").read_text(encoding="utf-8"))
    return db
