"""A user's HOME holding the real transcripts in tests/fixtures/backfill (tests/support/backfill_homes.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.backfill_homes import install_claude, install_opencode


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A HOME with one real Claude Code session and one real OpenCode session (recorded in /srv/home/code/shop)."""
    user_home = tmp_path / "home"
    install_claude(user_home)
    install_opencode(user_home)
    return user_home
