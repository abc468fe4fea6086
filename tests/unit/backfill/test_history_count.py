"""What `mnemex init` says about history it could import."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from mnemex.backfill.history_count import HistoryCount, count_history
from mnemex.cli import app


def test_the_count_covers_both_clients(home: Path) -> None:
    count = count_history(home)
    assert (count.claude_sessions, count.opencode_sessions, count.opencode_prompts) == (1, 1, 2)
    assert count.describe() == (
        "history: found 1 Claude Code session (0.0 MB) and 1 OpenCode session (2 prompts); "
        "import them with: mnemex backfill (try --dry-run first)"
    )
    assert HistoryCount().describe() == ""
    assert "37 Claude Code sessions (12.3 MB)" in HistoryCount(37, 12_300_000).describe()


def test_init_offers_backfill_after_its_usual_output(home: Path, tmp_path: Path) -> None:
    env = {"HOME": str(home), "MNEMEX_HOME": str(tmp_path / "mnemex"), "CLAUDE_CONFIG_DIR": "", "XDG_DATA_HOME": ""}
    result = CliRunner().invoke(app, ["init", "--client", "claude", "--dry-run"], env=env)
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert lines[-1].startswith("history: found 1 Claude Code session") and "mnemex backfill" in lines[-1]


def test_init_without_history_says_nothing_about_it(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "MNEMEX_HOME": str(tmp_path / "mnemex"), "CLAUDE_CONFIG_DIR": "", "XDG_DATA_HOME": ""}
    result = CliRunner().invoke(app, ["init", "--client", "claude", "--dry-run"], env=env)
    assert result.exit_code == 0, result.output
    assert "history:" not in result.stdout
