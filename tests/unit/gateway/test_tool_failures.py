"""Tool outcomes from every tool: failure events and exit codes reach the gateway, and it reads them.

Claude Code fires PostToolUseFailure (tool_name, tool_input, tool_use_id, error) instead of
PostToolUse for a failed call; Cursor has postToolUseFailure and afterShellExecution; OpenCode's
plugin sends the exit code it finds in the bash tool's metadata.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gateway import formatting, teaching, tool_observations
from gateway.context_reply import Lesson
from protos.mnemex.common.v1 import common_pb2 as common_pb

HOOKS = Path(__file__).resolve().parents[3] / "hooks"
sys.path.insert(0, str(HOOKS))

import hook_events  # noqa: E402
import hook_main  # noqa: E402

MIGRATION_ERROR = (
    "INFO  [alembic.runtime.migration] Running upgrade\n"
    "alembic.util.exc.CommandError: Can't locate revision identified by 'ae1027a6acf'"
)


def raw(payload: dict[str, object]) -> bytes:
    return json.dumps(payload).encode()


def test_a_claude_code_tool_failure_becomes_a_failed_tool_response() -> None:
    payload: dict[str, object] = {
        "session_id": "s",
        "cwd": "/r",
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "alembic upgrade head"},
        "tool_use_id": "toolu_1",
        "error": "Exit code 1\n" + MIGRATION_ERROR,
    }
    event = hook_events.parse(raw(payload), "post_tool_use", "claude")
    assert event is not None
    body = hook_main.request_body(event)
    assert body is not None
    assert body["tool_name"] == "Bash" and body["tool_input"] == {"command": "alembic upgrade head"}
    assert body["tool_response"]["failed"] is True and "Can't locate revision" in body["tool_response"]["error"]
    assert teaching.tool_outcome(body["tool_response"]) == common_pb.OUTCOME_FAILED
    assert "Can't locate revision" in teaching.failure_output(body["tool_response"])


def test_exit_codes_survive_trimming_as_numbers() -> None:
    # Before: every non-string response field was turned into a bool, so exit code 1 became True.
    trimmed = hook_events.trim_tool_response({"output": "fatal: not a git repository", "exit_code": 128})
    assert trimmed["exit_code"] == 128
    assert teaching.tool_outcome(trimmed) == common_pb.OUTCOME_FAILED
    assert teaching.tool_outcome(hook_events.trim_tool_response({"output": "ok", "exitCode": 0})) == (
        common_pb.OUTCOME_WORKED
    )


def test_cursor_shell_and_tool_failures_are_read() -> None:
    shell = {
        "conversation_id": "c",
        "generation_id": "g",
        "hook_event_name": "afterShellExecution",
        "command": "npm install",
        "output": "npm ERR! ERESOLVE unable to resolve dependency tree",
        "exit_code": 1,
    }
    event = hook_events.parse(raw(shell), "post_tool_use", "cursor")
    assert event is not None and event.tool_response["exit_code"] == 1
    assert teaching.tool_outcome(event.tool_response) == common_pb.OUTCOME_FAILED
    failure: dict[str, object] = {
        "conversation_id": "c",
        "generation_id": "g",
        "hook_event_name": "postToolUseFailure",
        "tool_name": "Shell",
        "tool_input": {"command": "curl -f http://localhost:8080/health"},
        "error_message": "curl: (7) Failed to connect to localhost port 8080: Connection refused",
        "failure_type": "error",
    }
    event = hook_events.parse(raw(failure), "post_tool_use", "cursor")
    assert event is not None and event.tool_name == "Shell"
    assert event.tool_input == {"command": "curl -f http://localhost:8080/health"}
    assert teaching.tool_outcome(event.tool_response) == common_pb.OUTCOME_FAILED
    assert teaching.attempted(event.tool_name, event.tool_input) == "curl -f http://localhost:8080/health"


def test_a_failed_command_is_observed_with_its_error_line() -> None:
    seen = tool_observations.observe(
        "Bash", {"command": "alembic upgrade head"}, {"error": MIGRATION_ERROR, "failed": True}, "/r"
    )
    assert seen is not None
    assert seen.text == (
        "Ran alembic [failed: alembic.util.exc.CommandError: Can't locate revision identified by 'ae1027a6acf']"
    )


def test_an_episode_lesson_line_has_no_id_and_names_a_foreign_project() -> None:
    local = formatting.lesson_line(Lesson("", "Set pythonpath in pyproject", "", "solution", 2, 0, 2))
    foreign = formatting.lesson_line(
        Lesson("", "pip install billing -> ModuleNotFoundError", "", "failure", 0, 1, 1, project="shop")
    )
    assert "[id:" not in local and local.startswith("• Set pythonpath in pyproject (worked")
    assert foreign.startswith("• [project shop] pip install billing") and "[id:" not in foreign


def test_an_inline_interpreter_command_is_named_by_its_interpreter() -> None:
    # Before: "python3 -c '...'" was observed as "Ran -c".
    seen = tool_observations.observe(
        "Bash", {"command": "python3 -c 'import ledger'"}, {"error": "ModuleNotFoundError: x", "failed": True}, "/r"
    )
    assert seen is not None and seen.text == "Ran python3 [failed: ModuleNotFoundError: x]"
