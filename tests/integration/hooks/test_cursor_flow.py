"""Cursor's turn, hook by hook, against the live stack: the exchange is stored once, prompt and answer.

Payloads follow the shapes in Cursor's hooks documentation: every event carries
``conversation_id``, ``generation_id``, ``hook_event_name``, ``workspace_roots``
(and ``transcript_path``); beforeSubmitPrompt adds ``prompt``, afterAgentResponse
``text``, stop ``status`` and ``loop_count``. hooks.json runs beforeSubmitPrompt
through user_prompt_submit.py and both afterAgentResponse and stop through
stop.py, each with ``--client cursor``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway.reply_models import SearchOut
from tests.integration.gateway.live_stack import LiveStack
from tests.support.hook_runner import HookRunner


def repo(tmp_path: Path) -> str:
    path = tmp_path / "repo"
    (path / ".git").mkdir(parents=True)
    return str(path)


def cursor(
    event: str, conversation: str, generation: str, cwd: str, transcript: Path, **fields: object
) -> dict[str, object]:
    return {
        "conversation_id": conversation,
        "generation_id": generation,
        "model": "claude-4-sonnet",
        "hook_event_name": event,
        "cursor_version": "1.7.2",
        "workspace_roots": [cwd],
        "user_email": "dev@example.com",
        "transcript_path": str(transcript),
        **fields,
    }


def write_transcript(path: Path, prompt: str, answer: str) -> Path:
    """Cursor's agent transcript: one JSON object per line, the role outside the message."""
    lines = [
        {"role": "user", "message": {"content": [{"type": "text", "text": f"<user_query>\n{prompt}\n</user_query>"}]}},
        {"role": "assistant", "message": {"content": [{"type": "text", "text": answer}]}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def exchanges(live: LiveStack, cwd: str, answer: str) -> list[str]:
    found = live.post_as(
        "/api/search", {"days_back": 1, "collections": ["working"], "limit": 100, "cwd": cwd}, SearchOut
    )
    return [m.content for m in found.memories if answer in m.content]


def run_turn(
    hook: HookRunner, order: list[str], conversation: str, cwd: str, transcript: Path, prompt: str, answer: str
) -> None:
    events = {
        "prompt": (
            "user_prompt_submit.py",
            cursor("beforeSubmitPrompt", conversation, "gen-1", cwd, transcript, prompt=prompt, attachments=[]),
        ),
        "answer": ("stop.py", cursor("afterAgentResponse", conversation, "gen-1", cwd, transcript, text=answer)),
        "stop": ("stop.py", cursor("stop", conversation, "gen-1", cwd, transcript, status="completed", loop_count=0)),
    }
    for name in order:
        script, payload = events[name]
        out = hook(script, payload, "--client", "cursor")
        assert out.returncode == 0 and out.stdout == "", (name, out.stdout, out.stderr)


@pytest.mark.parametrize(
    "order",
    [["prompt", "answer", "stop"], ["prompt", "stop", "answer"], ["prompt", "stop"]],
    ids=["answer-then-stop", "stop-then-answer", "stop-only-from-transcript"],
)
def test_a_cursor_turn_stores_prompt_and_answer_exactly_once(
    live: LiveStack, hook: HookRunner, tmp_path: Path, order: list[str]
) -> None:
    cwd = repo(tmp_path)
    prompt = "why do the nightly builds of the billing service fail on Mondays?"
    answer = f"The Monday cron overlaps the weekly cache purge ({'-'.join(order)}); move it to 02:30."
    transcript = write_transcript(tmp_path / "agent-transcript.jsonl", prompt, answer)

    run_turn(hook, order, f"conv-{'-'.join(order)}", cwd, transcript, prompt, answer)

    stored = exchanges(live, cwd, answer)
    assert len(stored) == 1, stored
    assert prompt in stored[0] and answer in stored[0]
    assert stored[0].startswith("User: ")


def test_a_repeated_cursor_turn_key_stores_nothing_more(live: LiveStack, hook: HookRunner, tmp_path: Path) -> None:
    cwd = repo(tmp_path)
    prompt, answer = "which port does the admin UI use?", "It serves on 27311 behind the gateway."
    transcript = write_transcript(tmp_path / "t.jsonl", prompt, answer)
    run_turn(hook, ["prompt", "answer", "answer", "stop", "stop"], "conv-repeat", cwd, transcript, prompt, answer)
    assert len(exchanges(live, cwd, answer)) == 1

    direct = {"session_id": "conv-repeat", "cwd": cwd, "assistant_text": answer, "turn_key": "gen-1"}
    assert live.post("/api/hooks/stop", direct) == {"exchange_id": "", "already_recorded": True}


def test_the_next_cursor_turn_is_stored_again(live: LiveStack, hook: HookRunner, tmp_path: Path) -> None:
    cwd = repo(tmp_path)
    first = write_transcript(tmp_path / "1.jsonl", "first question about the queue", "First answer: use SQS FIFO.")
    run_turn(
        hook,
        ["prompt", "answer", "stop"],
        "conv-two",
        cwd,
        first,
        "first question about the queue",
        "First answer: use SQS FIFO.",
    )
    events = {
        "prompt": cursor("beforeSubmitPrompt", "conv-two", "gen-2", cwd, first, prompt="and the dead letters?"),
        "answer": cursor(
            "afterAgentResponse", "conv-two", "gen-2", cwd, first, text="Second answer: a DLQ with 5 retries."
        ),
        "stop": cursor("stop", "conv-two", "gen-2", cwd, first, status="completed", loop_count=0),
    }
    hook("user_prompt_submit.py", events["prompt"], "--client", "cursor")
    hook("stop.py", events["answer"], "--client", "cursor")
    hook("stop.py", events["stop"], "--client", "cursor")
    second = exchanges(live, cwd, "Second answer")
    assert len(second) == 1 and "and the dead letters?" in second[0]
    assert len(exchanges(live, cwd, "First answer")) == 1


def test_an_aborted_cursor_turn_stores_nothing_from_stop(live: LiveStack, hook: HookRunner, tmp_path: Path) -> None:
    cwd = repo(tmp_path)
    transcript = write_transcript(tmp_path / "t.jsonl", "refactor the parser", "Half-done refactor of the parser.")
    hook(
        "user_prompt_submit.py",
        cursor("beforeSubmitPrompt", "conv-abort", "gen-1", cwd, transcript, prompt="refactor the parser"),
        "--client",
        "cursor",
    )
    out = hook(
        "stop.py",
        cursor("stop", "conv-abort", "gen-1", cwd, transcript, status="aborted", loop_count=0),
        "--client",
        "cursor",
    )
    assert out.returncode == 0
    assert exchanges(live, cwd, "Half-done refactor") == []
