"""Hook output where the client really passes it on: compaction reminders, and UTF-8 on any locale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.gateway.live_stack import LiveStack
from tests.support.hook_runner import HookRunner


def repo(tmp_path: Path) -> str:
    path = tmp_path / "repo"
    (path / ".git").mkdir(parents=True)
    return str(path)


def claude(event: str, session: str, cwd: str, **fields: object) -> dict[str, object]:
    return {
        "session_id": session,
        "transcript_path": f"/home/dev/.claude/projects/demo/{session}.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": event,
        **fields,
    }


def test_claude_gets_the_compaction_reminder_from_session_start_compact(
    live: LiveStack, hook: HookRunner, tmp_path: Path
) -> None:
    cwd = repo(tmp_path)
    live.post("/api/memory-bank/add", {"content": "The user deploys with ArgoCD", "cwd": cwd, "importance": 0.9})
    # Claude Code discards PreCompact stdout, so printing there would only pretend.
    before = hook("pre_compact.py", claude("PreCompact", "cc-compact", cwd, trigger="auto", custom_instructions=""))
    assert before.returncode == 0 and before.stdout == ""

    after = hook("session_start.py", claude("SessionStart", "cc-compact", cwd, source="compact"))
    assert after.returncode == 0
    assert "just compacted" in after.stdout and "record_response" in after.stdout
    assert "ArgoCD" in after.stdout  # the seed still comes with it

    startup = hook("session_start.py", claude("SessionStart", "cc-fresh", cwd, source="startup"))
    assert "ArgoCD" in startup.stdout and "compacted" not in startup.stdout


def test_cursor_pre_compact_shows_the_reminder_to_the_user(live: LiveStack, hook: HookRunner, tmp_path: Path) -> None:
    cwd = repo(tmp_path)
    payload = {
        "conversation_id": "cur-compact",
        "generation_id": "gen-7",
        "hook_event_name": "preCompact",
        "workspace_roots": [cwd],
        "cursor_version": "1.7.2",
        "trigger": "auto",
        "context_usage_percent": 91,
        "context_tokens": 182_000,
        "context_window_size": 200_000,
        "message_count": 140,
        "messages_to_compact": 120,
        "is_first_compaction": True,
    }
    out = hook("pre_compact.py", payload, "--client", "cursor")
    assert out.returncode == 0
    reply = json.loads(out.stdout)
    assert set(reply) == {"user_message"} and "record_response" in reply["user_message"]


@pytest.mark.parametrize("encoding", ["latin-1", "ascii"])
def test_context_arrives_as_utf8_whatever_the_locale(
    live: LiveStack, hook: HookRunner, tmp_path: Path, encoding: str
) -> None:
    cwd = repo(tmp_path)
    fact = "The release banner must read 日本語 — ✓ when the staging deploy is healthy"
    live.post("/api/memory-bank/add", {"content": fact, "cwd": cwd, "importance": 0.9})
    out = hook(
        "user_prompt_submit.py",
        claude("UserPromptSubmit", f"utf8-{encoding}", cwd, prompt="what must the release banner read on staging?"),
        env={"PYTHONIOENCODING": encoding, "LC_ALL": "C", "LANG": "C"},
    )
    assert out.returncode == 0
    text = out.raw_stdout.decode("utf-8")  # strict: every byte is UTF-8
    assert "日本語 — ✓" in text and "KNOWN CONTEXT" in text
