"""Backfill output: OpenCode sessions labelled by their first prompt; plain progress lines without a terminal."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

from rich.console import Console

from mnemex.backfill.sources import discover
from mnemex.cli.backfill_command import BackfillDisplay
from tests.support.backfill_homes import install_opencode


def test_an_opencode_session_is_labelled_by_its_first_prompt_not_its_title(tmp_path: Path) -> None:
    db = install_opencode(tmp_path)
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE session SET title = 'Answer to your question.'")
    [source] = discover(tmp_path, ("opencode",)).sources
    assert source.label.startswith("shop: ") and "How do we deploy" in source.label
    assert "Answer to your question" not in source.label


def test_without_a_terminal_progress_comes_as_plain_lines_that_fit_80_columns(tmp_path: Path) -> None:
    session = tmp_path / ".claude" / "projects" / "-home-u-code-shop" / "a1b2c3d4-e5f6-7890-abcd-ef0123456789.jsonl"
    session.parent.mkdir(parents=True)
    session.write_bytes(b'{"type": "user", "cwd": "/home/u/code/shop"}\n' + b"x" * (2_500_000 - 45))
    [source] = discover(tmp_path, ("claude",)).sources
    stream = io.StringIO()
    console = Console(file=stream, force_terminal=False, width=80)
    with BackfillDisplay(console, files=3, line_every=0.0) as display:
        display.start_source(source)
        display.advance(1_200_000, source.size, 7)
        display.batch_sent(7)
        display.source_done()
    lines = [line for line in stream.getvalue().splitlines() if line]
    assert lines, "no progress line was printed without a terminal"
    assert all(len(line) <= 80 for line in lines), lines
    assert any("1.2/2.5 MB" in line and "shop" in line and "7 exchanges" in line for line in lines), lines


def test_plain_flags_are_shown_as_flags_in_help() -> None:
    from typer.testing import CliRunner

    from mnemex.cli import app

    shown = CliRunner().invoke(app, ["backfill", "--help"], env={"COLUMNS": "100"}).output
    dry_run = next(line for line in shown.splitlines() if "--dry-run" in line)
    assert "<bool>" not in shown and "Show what would be stored" in dry_run
    assert "<path>" in shown  # an option that takes a value still says what
