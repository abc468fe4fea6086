"""Hook internals: adapters, stdlib JSON, circuit breaker, request/render rules."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

HOOKS = Path(__file__).resolve().parents[3] / "hooks"
sys.path.insert(0, str(HOOKS))

import hook_client  # noqa: E402
import hook_events  # noqa: E402
import hook_json  # noqa: E402
import hook_main  # noqa: E402

CLAUDE_PROMPT = {
    "session_id": "abc-123",
    "transcript_path": "/home/u/.claude/projects/x/abc-123.jsonl",
    "cwd": "/home/u/project",
    "permission_mode": "default",
    "hook_event_name": "UserPromptSubmit",
    "prompt": "why does the gateway time out?",
}
CURSOR_STOP = {
    "conversation_id": "conv-9",
    "generation_id": "gen-1",
    "hook_event_name": "stop",
    "workspace_roots": ["/home/u/project"],
    "cursor_version": "1.7.2",
    "status": "completed",
    "loop_count": 0,
}


def raw(payload: object) -> bytes:
    return json.dumps(payload).encode()


def test_claude_prompt_is_normalized() -> None:
    event = hook_events.parse(raw(CLAUDE_PROMPT), "prompt", "claude")
    assert event is not None
    assert (event.client, event.session_id, event.cwd, event.prompt) == (
        "claude",
        "abc-123",
        "/home/u/project",
        CLAUDE_PROMPT["prompt"],
    )
    with pytest.raises(AttributeError):
        event.prompt = "changed"


def test_cursor_payload_on_the_claude_path_is_ignored_so_nothing_fires_twice() -> None:
    assert hook_events.parse(raw(CURSOR_STOP), "stop", "claude") is None
    event = hook_events.parse(raw(CURSOR_STOP), "stop", "cursor")
    assert event is not None and event.session_id == "conv-9" and event.cwd == "/home/u/project"


def test_aborted_cursor_turn_and_stop_hook_continuations_record_nothing() -> None:
    aborted = hook_events.parse(raw({**CURSOR_STOP, "status": "aborted"}), "stop", "cursor")
    assert aborted is not None and hook_main.request_body(aborted) is None
    again = hook_events.parse(
        raw({"session_id": "s", "stop_hook_active": True, "last_assistant_message": "x"}), "stop", "claude"
    )
    assert again is not None and hook_main.request_body(again) is None


def test_cursor_prompt_only_opens_the_turn_because_cursor_cannot_add_context() -> None:
    event = hook_events.parse(
        raw({**CURSOR_STOP, "hook_event_name": "beforeSubmitPrompt", "prompt": "hi"}), "prompt", "cursor"
    )
    assert event is not None
    assert hook_main.endpoint(event) == "/api/hooks/turn-start"
    assert hook_main.request_body(event) == {
        "session_id": "conv-9",
        "cwd": "/home/u/project",
        "prompt": "hi",
        "client": "cursor",
    }
    assert hook_main.render(event, {"context": "KNOWN CONTEXT"}) == ""
    claude = hook_events.parse(raw(CLAUDE_PROMPT), "prompt", "claude")
    assert claude is not None and hook_main.endpoint(claude) == "/api/hooks/get-context"


def test_cursor_answer_and_stop_report_the_same_turn_key(tmp_path: Path) -> None:
    answer = {**CURSOR_STOP, "hook_event_name": "afterAgentResponse", "text": "use the retry flag"}
    answer.pop("status")
    event = hook_events.parse(raw(answer), "stop", "cursor")
    assert event is not None and event.native == "afterAgentResponse"
    assert hook_main.request_body(event) == {
        "session_id": "conv-9",
        "cwd": "/home/u/project",
        "assistant_text": "use the retry flag",
        "turn_key": "gen-1",
        "client": "cursor",
    }
    transcript = tmp_path / "cursor.jsonl"
    lines = [
        {"role": "user", "message": {"content": [{"type": "text", "text": "<user_query>why?</user_query>"}]}},
        {"role": "assistant", "message": {"content": [{"type": "text", "text": "because of the cache"}]}},
        {"role": "assistant", "message": {"content": [{"type": "tool_use", "name": "Read", "input": {}}]}},
    ]
    transcript.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    stop = hook_events.parse(raw({**CURSOR_STOP, "transcript_path": str(transcript)}), "stop", "cursor")
    assert stop is not None
    body = hook_main.request_body(stop)
    assert body is not None and body["assistant_text"] == "because of the cache" and body["turn_key"] == "gen-1"
    nothing = hook_events.parse(raw({**CURSOR_STOP, "transcript_path": str(tmp_path / "missing")}), "stop", "cursor")
    assert nothing is not None and hook_main.request_body(nothing) is None  # no answer to report
    keyless = {k: v for k, v in CURSOR_STOP.items() if k != "generation_id"}
    unkeyed = hook_events.parse(raw({**keyless, "transcript_path": str(transcript)}), "stop", "cursor")
    assert unkeyed is not None and hook_main.request_body(unkeyed) is None  # could not be told apart


@pytest.mark.parametrize("data", [b"", b"   ", b"\x00\xff\xfe", b"not json", b"[1, 2]", b'"str"', b"{" * 100_000])
def test_malformed_stdin_yields_no_event(data: bytes) -> None:
    assert hook_events.parse(data, "prompt", "claude") is None


def test_tool_payloads_are_trimmed_before_sending() -> None:
    payload = {
        "session_id": "s",
        "cwd": "/r",
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": "/r/a.py", "content": "line\n" * 100_000},
        "tool_response": {"stdout": "x" * 100_000, "stderr": "", "interrupted": False, "isImage": False},
    }
    event = hook_events.parse(raw(payload), "post_tool_use", "claude")
    assert event is not None
    body = hook_main.request_body(event)
    assert body is not None
    assert body["tool_input"] == {"file_path": "/r/a.py", "content_lines": 100_001}
    assert len(body["tool_response"]["stdout"]) <= hook_events.MAX_FIELD_CHARS
    assert len(hook_json.dumps(body)) < 10_000


def test_stop_falls_back_to_the_transcript(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    lines = [
        {"type": "user", "message": {"role": "user", "content": "q"}},
        {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "final answer"}]}},
    ]
    transcript.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    event = hook_events.parse(raw({"session_id": "s", "transcript_path": str(transcript)}), "stop", "claude")
    assert event is not None
    assert hook_main.request_body(event) == {
        "session_id": "s",
        "cwd": "",
        "assistant_text": "final answer",
        "client": "claude",
    }


def test_render_caps_output_and_speaks_each_clients_format() -> None:
    prompt = hook_events.HookEvent("claude", "prompt")
    assert len(hook_main.render(prompt, {"context": "x" * 20_000})) == hook_main.MAX_OUTPUT_CHARS
    cursor_start = hook_events.HookEvent("cursor", "session_start")
    assert json.loads(hook_main.render(cursor_start, {"context": "seed"})) == {"additional_context": "seed"}
    assert hook_main.render(hook_events.HookEvent("claude", "stop"), {"exchange_id": "x"}) == ""


def test_pre_compact_prints_only_where_a_client_shows_it() -> None:
    reply = {"context": "save it now", "user_message": "this chat is being compacted"}
    assert hook_main.render(hook_events.HookEvent("claude", "pre_compact"), reply) == ""  # Claude Code drops it
    cursor = hook_main.render(hook_events.HookEvent("cursor", "pre_compact"), reply)
    assert json.loads(cursor) == {"user_message": "this chat is being compacted"}


@pytest.mark.parametrize("value", [{"a": [1, 2.5, None, True, False, 'é\n"\\']}, [], "", {"nested": {"d": {}}}, -3])
def test_hook_json_round_trips_like_json(value: object) -> None:
    assert json.loads(hook_json.dumps(value)) == value
    assert hook_json.loads(json.dumps(value)) == value


@pytest.mark.parametrize("text", ["", "{", '{"a": 1} trailing', "nul", "[1,]"])
def test_hook_json_rejects_what_json_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        hook_json.loads(text)


def test_circuit_opens_after_repeated_failures_and_backs_off(tmp_path: Path) -> None:
    circuit = hook_client.Circuit(str(tmp_path / "c"), threshold=3, cooldown=30, max_cooldown=100)
    now = 1_000.0
    for _ in range(2):
        circuit.record_failure(now)
    assert not circuit.is_open(now)
    circuit.record_failure(now)
    assert circuit.is_open(now + 29) and not circuit.is_open(now + 31)
    for _ in range(3):
        circuit.record_failure(now + 31)
    assert circuit.is_open(now + 31 + 59) and not circuit.is_open(now + 31 + 61)  # doubled
    circuit.record_success()
    assert not circuit.is_open(now) and not (tmp_path / "c").exists()


def test_gateway_address_from_env() -> None:
    assert hook_client.gateway_address({}) == ("127.0.0.1", 27300, "http")
    assert hook_client.gateway_address({"MNEMEX_GATEWAY_PORT": "9999"}) == ("127.0.0.1", 9999, "http")
    assert hook_client.gateway_address({"MNEMEX_GATEWAY_URL": "http://[::1]:8080/"}) == ("::1", 8080, "http")


def test_autostart_is_rate_limited_by_a_lock(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    env = {"MNEMEX_HOOK_START_CMD": f"{sys.executable} -c \"open(r'{marker}', 'a').write('x')\""}
    assert hook_client.maybe_start_stack(str(tmp_path), env) is True
    assert hook_client.maybe_start_stack(str(tmp_path), env) is False
    deadline = time.monotonic() + 10
    # The detached child may have created the file but not yet written to it.
    while not (marker.exists() and marker.read_text()) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert marker.read_text() == "x"
    assert hook_client.maybe_start_stack(str(tmp_path), {**env, "MNEMEX_HOOK_AUTOSTART": "0"}) is False


@pytest.mark.parametrize(
    ("event_name", "payload", "client", "named"),
    [
        ("prompt", CLAUDE_PROMPT, "claude", True),
        ("stop", {"session_id": "s", "cwd": "/r", "last_assistant_message": "done"}, "claude", True),
        ("session_start", {"session_id": "s", "cwd": "/r", "source": "startup"}, "claude", True),
        ("session_start", {**CURSOR_STOP, "hook_event_name": "sessionStart"}, "cursor", True),
        ("pre_compact", {"session_id": "s", "cwd": "/r", "trigger": "auto"}, "claude", False),
    ],
)
def test_the_turns_requests_name_their_client(
    event_name: str, payload: dict[str, object], client: str, named: bool
) -> None:
    event = hook_events.parse(raw(payload), event_name, client)
    assert event is not None
    body = hook_main.request_body(event)
    assert body is not None
    assert body.get("client") == (client if named else None)


def test_a_transcript_text_part_that_is_not_a_string_is_skipped(tmp_path: Path) -> None:
    """Found by type-checking the hooks as the modules they run as: a number in a text part raised in join."""
    transcript = tmp_path / "t.jsonl"
    content = [{"type": "text", "text": 7}, {"type": "text", "text": "the fix was a pinned seed"}]
    transcript.write_text(
        json.dumps({"type": "assistant", "message": {"role": "assistant", "content": content}}) + "\n"
    )
    assert hook_main.last_assistant_text(str(transcript)) == "the fix was a pinned seed"
