"""Hook scripts as processes, fed realistic Claude Code / Cursor JSON, against the live stack."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gateway.reply_models import ScoreOut, SearchOut, StoredFactOut
from kernel import projects
from tests.integration.gateway.live_stack import LiveStack
from tests.support.hook_runner import HookRunner
from tests.unit.gateway.cl100k import count


def claude(event: str, session: str, cwd: str, **fields: object) -> dict[str, object]:
    return {
        "session_id": session,
        "transcript_path": f"/home/dev/.claude/projects/demo/{session}.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": event,
        **fields,
    }


def repo(tmp_path: Path) -> str:
    path = tmp_path / "repo"
    (path / ".git").mkdir(parents=True)
    return str(path)


def scoring_block(text: str) -> str:
    start = text.find("<mnemex-score-required>")
    end = text.find("</mnemex-score-required>")
    return text[start : end + len("</mnemex-score-required>")] if start >= 0 else ""


def test_prompt_gets_context_then_scoring_after_a_completed_turn(
    live: LiveStack, hook: HookRunner, tmp_path: Path
) -> None:
    cwd = repo(tmp_path)
    fact = live.post_as(
        "/api/memory-bank/add",
        {"content": "Hook tests run the gateway on port 27300 by default", "cwd": cwd},
        StoredFactOut,
    ).memory
    session = "hook-cycle"

    first = hook(
        "user_prompt_submit.py", claude("UserPromptSubmit", session, cwd, prompt="which port does the gateway use?")
    )
    assert first.returncode == 0
    assert f"[id:{fact.id}]" in first.stdout and "KNOWN CONTEXT" in first.stdout
    assert "<mnemex-score-required>" not in first.stdout
    shown = [line.split("[id:")[1].split("]")[0] for line in first.stdout.splitlines() if line.startswith("• ")]

    stop = hook(
        "stop.py",
        claude(
            "Stop",
            session,
            cwd,
            stop_hook_active=False,
            last_assistant_message="It listens on 27300 unless MNEMEX_GATEWAY_PORT is set.",
        ),
    )
    assert stop.returncode == 0 and stop.stdout == ""

    second = hook(
        "user_prompt_submit.py",
        claude("UserPromptSubmit", session, cwd, prompt="great, thanks! now add a health check"),
    )
    block = scoring_block(second.stdout)
    assert block, second.stdout
    assert all(f'"{i}"' in block for i in shown)
    assert "27300" not in block and "It listens" not in block

    scored = live.post_as(
        "/api/record-outcome",
        {"session_id": session, "cwd": cwd, "outcome": "worked", "memory_scores": {i: "worked" for i in shown}},
        ScoreOut,
    )
    assert {s.id for s in scored.scored} >= set(shown)
    exchange = live.post_as("/api/search", {"id": scored.exchange_id, "cwd": cwd}, SearchOut).memories[0]
    assert exchange.uses == 1 and exchange.score > 0.5


def test_real_scoring_prompt_fits_120_tokens(live: LiveStack, hook: HookRunner, tmp_path: Path) -> None:
    cwd = repo(tmp_path)
    facts = [  # all on the prompt's topic: get-context leaves out lines below its relevance floor
        "The scoring prompt must stay under 120 tokens",
        "Scoring prompt tokens are counted with the cl100k encoding",
        "The lean scoring prompt lists memory ids, never memory contents",
        "Scoring prompt token budgets matter because injections persist in the conversation",
        "The scoring prompt's guide has four short lines",
        "Scoring prompt size in tokens is checked by a benchmark of hook output",
    ]
    for fact in facts:
        live.post_as("/api/memory-bank/add", {"content": fact, "cwd": cwd}, StoredFactOut)
    hook(
        "user_prompt_submit.py",
        claude("UserPromptSubmit", "hook-tokens", cwd, prompt="how many tokens may the scoring prompt use?"),
    )
    hook("stop.py", claude("Stop", "hook-tokens", cwd, stop_hook_active=False, last_assistant_message="Very lean."))
    out = hook("user_prompt_submit.py", claude("UserPromptSubmit", "hook-tokens", cwd, prompt="ok"))
    block = scoring_block(out.stdout)
    assert block.count('": "?"') == 5
    assert count(block) <= 120


def test_interrupted_turn_and_stop_hook_continuation_get_no_scoring(
    live: LiveStack, hook: HookRunner, tmp_path: Path
) -> None:
    cwd = repo(tmp_path)
    live.post_as(
        "/api/memory-bank/add",
        {"content": "Migrations are generated with alembic revision --autogenerate", "cwd": cwd},
        StoredFactOut,
    )
    hook("user_prompt_submit.py", claude("UserPromptSubmit", "hook-int", cwd, prompt="generate a migration"))
    interrupted = hook(
        "user_prompt_submit.py",
        claude("UserPromptSubmit", "hook-int", cwd, prompt="stop, name the alembic migration add_users"),
    )
    assert "KNOWN CONTEXT" in interrupted.stdout and "<mnemex-score-required>" not in interrupted.stdout

    hook("stop.py", claude("Stop", "hook-int", cwd, stop_hook_active=True, last_assistant_message="continuing"))
    still = hook("user_prompt_submit.py", claude("UserPromptSubmit", "hook-int", cwd, prompt="and run it"))
    assert "<mnemex-score-required>" not in still.stdout


def test_session_start_prints_a_bounded_seed(live: LiveStack, hook: HookRunner, tmp_path: Path) -> None:
    cwd = repo(tmp_path)
    live.post_as(
        "/api/memory-bank/add",
        {"content": "The user likes short answers with code first", "cwd": cwd, "importance": 0.95},
        StoredFactOut,
    )
    out = hook("session_start.py", claude("SessionStart", "hook-seed", cwd, source="startup"))
    assert out.returncode == 0 and "About the user:" in out.stdout and "code first" in out.stdout
    assert len(out.stdout) <= 10_000
    # Claude Code drops PreCompact output; the reminder reaches the model with SessionStart "compact".
    dropped = hook("pre_compact.py", claude("PreCompact", "hook-seed", cwd, trigger="auto", custom_instructions=""))
    assert dropped.returncode == 0 and dropped.stdout == ""
    reminder = hook("session_start.py", claude("SessionStart", "hook-seed", cwd, source="compact"))
    assert "record_response" in reminder.stdout and "code first" in reminder.stdout


def test_cursor_session_start_speaks_json_and_cursor_payloads_skip_the_claude_path(
    live: LiveStack, hook: HookRunner, tmp_path: Path
) -> None:
    cwd = repo(tmp_path)
    live.post_as(
        "/api/memory-bank/add",
        {"content": "The user runs Cursor with the vim extension", "cwd": cwd, "importance": 0.95},
        StoredFactOut,
    )
    cursor: dict[str, object] = {
        "conversation_id": "cur-1",
        "generation_id": "g1",
        "hook_event_name": "sessionStart",
        "workspace_roots": [cwd],
        "cursor_version": "1.7.0",
    }
    out = hook("session_start.py", cursor, "--client", "cursor")
    assert "vim extension" in json.loads(out.stdout)["additional_context"]
    twice = hook("session_start.py", cursor)  # the same event through ~/.claude/settings.json
    assert twice.returncode == 0 and twice.stdout == ""

    stop = {**cursor, "hook_event_name": "stop", "status": "completed", "loop_count": 0}
    assert hook("stop.py", stop).stdout == ""  # Claude path ignores it: nothing recorded twice
    assert hook("stop.py", stop, "--client", "cursor").returncode == 0


def test_post_tool_use_is_fast_and_stores_the_observation(live: LiveStack, hook: HookRunner, tmp_path: Path) -> None:
    cwd = repo(tmp_path)
    out = hook(
        "post_tool_use.py",
        claude(
            "PostToolUse",
            "hook-tool",
            cwd,
            tool_name="Edit",
            tool_input={"file_path": f"{cwd}/gateway/app.py", "old_string": "a" * 50_000, "new_string": "b"},
            tool_response={"filePath": f"{cwd}/gateway/app.py", "success": True},
        ),
    )
    assert out.returncode == 0 and out.stdout == ""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = live.post_as("/api/search", {"days_back": 1, "collections": ["working"], "cwd": cwd}, SearchOut)
        if any(m.content == "Edited gateway/app.py" for m in found.memories):
            return
        time.sleep(0.05)
    pytest.fail("observation not stored")


def test_the_hooks_name_their_client_on_the_turns_they_record(
    live: LiveStack, hook: HookRunner, tmp_path: Path
) -> None:
    cwd = repo(tmp_path)
    session = "hook-client"
    asked = hook("user_prompt_submit.py", claude("UserPromptSubmit", session, cwd, prompt="what port?"))
    answered = hook(
        "stop.py", claude("Stop", session, cwd, stop_hook_active=False, last_assistant_message="Port 27300.")
    )
    assert asked.returncode == 0 and answered.returncode == 0
    cursor: dict[str, object] = {
        "conversation_id": "cur-client",
        "generation_id": "g1",
        "workspace_roots": [cwd],
        "cursor_version": "1.7.0",
        "prompt": "and the host?",
        "hook_event_name": "beforeSubmitPrompt",
    }
    assert hook("user_prompt_submit.py", cursor, "--client", "cursor").returncode == 0
    after = {**cursor, "hook_event_name": "afterAgentResponse", "text": "Loopback."}
    assert hook("stop.py", after, "--client", "cursor").returncode == 0

    page = live.client.get("/ui/sessions", params={"project": projects.resolve(cwd, live.home)})
    assert page.status_code == 200, page.text
    rows = {
        line.split('data-session="')[1].split('"')[0]: line
        for line in page.text.split("<tr ")
        if 'data-session="' in line
    }
    assert 'data-testid="session-client">Claude Code<' in rows[session]
    assert 'data-testid="session-client">Cursor<' in rows["cur-client"]
