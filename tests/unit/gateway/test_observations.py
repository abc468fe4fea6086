"""PostToolUse observations are deterministic one-liners, or nothing."""

from __future__ import annotations

import pytest

from gateway.tool_observations import observe, primary_command, run_summary


def test_edit_is_relative_to_the_project() -> None:
    obs = observe("Edit", {"file_path": "/repo/gateway/app.py", "old_string": "a", "new_string": "b"}, {}, "/repo")
    assert obs is not None and obs.text == "Edited gateway/app.py" and obs.files == ("gateway/app.py",)


def test_multi_edit_counts_edits_and_write_counts_lines() -> None:
    edited = observe("MultiEdit", {"file_path": "/r/a.py", "edits": [{}, {}, {}]}, {}, "/r")
    assert edited is not None and edited.text == "Edited a.py (3 edits)"
    wrote = observe("Write", {"file_path": "/r/b.py", "content": "x\ny\nz"}, {}, "/r")
    assert wrote is not None and wrote.text == "Wrote b.py (3 lines)"
    assert observe("Write", {"file_path": "/r/b.py", "content_lines": 90}, {}, "/r").text == "Wrote b.py (90 lines)"  # type: ignore[union-attr]


def test_pytest_run_reports_its_summary() -> None:
    out = {"stdout": "....F\n=== 12 passed, 1 failed, 2 warnings in 0.31s ===\n", "stderr": "", "interrupted": False}
    obs = observe("Bash", {"command": "cd /repo && .venv/bin/python -m pytest -q tests"}, out, "/repo")
    assert obs is not None and obs.text == "Ran pytest: 12 passed, 1 failed, 2 warnings"


def test_plain_command_uses_its_description() -> None:
    obs = observe("Bash", {"command": "git status --short", "description": "Show changes"}, {"stdout": " M a"}, None)
    assert obs is not None and obs.text == "Ran git status (Show changes)"


@pytest.mark.parametrize("tool", ["Read", "Grep", "Glob", "TodoWrite", "mcp__mnemex__search_memory", ""])
def test_noise_and_our_own_tools_are_not_observed(tool: str) -> None:
    assert observe(tool, {"file_path": "/x"}, {}, "/") is None


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("FOO=1 npm test", "npm test"),
        ("uv run python3.11 -m mypy src", "mypy"),
        ("cd x && cargo build --release", "cargo build"),
        ("echo hi", ""),
        ("sudo docker compose up", "docker compose"),
    ],
)
def test_primary_command(command: str, expected: str) -> None:
    assert primary_command(command) == expected


def test_summaries_of_other_runners() -> None:
    assert run_summary("test result: ok. 8 passed; 0 failed; 0 ignored") == "ok, 8 passed; 0 failed"
    assert run_summary("Tests:       1 failed, 3 passed, 4 total") == "1 failed, 3 passed, 4 total"
    assert run_summary("ok  \tgithub.com/x/y\t0.01s") == "ok"
    assert run_summary("nothing here") == ""
