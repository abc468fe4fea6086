"""Per-client adapters: stdin JSON from Claude Code or Cursor -> one HookEvent.

Standard library only; imported by the hook scripts, which must start fast.
Oversized tool payloads are trimmed here so the gateway never receives them.
"""

from __future__ import annotations

import hook_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hook_json import JSONObject, JSONValue

EVENTS = ("prompt", "stop", "session_start", "pre_compact", "post_tool_use")
MAX_FIELD_CHARS = 4_000
MAX_PROMPT_CHARS = 100_000
MAX_ASSISTANT_CHARS = 100_000
_KEEP_INPUT_KEYS = ("file_path", "notebook_path", "path", "command", "description", "url", "query", "pattern")
_KEEP_RESPONSE_KEYS = ("stdout", "stderr", "output", "error", "interrupted", "failed")
_EXIT_CODE_KEYS = ("exit_code", "exitCode", "returncode", "return_code")

CLAUDE_EVENTS = {
    "UserPromptSubmit": "prompt",
    "Stop": "stop",
    "SessionStart": "session_start",
    "PreCompact": "pre_compact",
    "PostToolUse": "post_tool_use",
    # A tool call that fails fires this instead of PostToolUse (payload: tool_name, tool_input, error).
    "PostToolUseFailure": "post_tool_use",
}
CURSOR_EVENTS = {
    "beforeSubmitPrompt": "prompt",
    "afterAgentResponse": "stop",
    "stop": "stop",
    "sessionStart": "session_start",
    "preCompact": "pre_compact",
    "afterFileEdit": "post_tool_use",
    "afterShellExecution": "post_tool_use",
    "postToolUseFailure": "post_tool_use",
}
_CURSOR_MARKERS = ("cursor_version", "workspace_roots", "generation_id", "conversation_id")


class HookEvent:
    """One normalized hook event (immutable). A hand-written frozen record:
    ``dataclasses`` costs ~7 ms of import, a tenth of the hook's budget."""

    client: str
    event: str
    session_id: str
    cwd: str
    prompt: str
    assistant_text: str
    source: str
    trigger: str
    tool_name: str
    tool_input: JSONObject
    tool_response: JSONObject
    stop_hook_active: bool
    completed: bool
    transcript_path: str
    native: str
    turn_key: str

    __slots__ = (
        "assistant_text",
        "client",
        "completed",
        "cwd",
        "event",
        "native",
        "prompt",
        "session_id",
        "source",
        "stop_hook_active",
        "tool_input",
        "tool_name",
        "tool_response",
        "transcript_path",
        "trigger",
        "turn_key",
    )
    _DEFAULTS: dict[str, str | bool | None] = {  # noqa: RUF012 - read-only; typing.ClassVar would cost an import
        "session_id": "",
        "cwd": "",
        "prompt": "",
        "assistant_text": "",
        "source": "",
        "trigger": "",
        "tool_name": "",
        "tool_input": None,
        "tool_response": None,
        "stop_hook_active": False,
        "completed": True,
        "transcript_path": "",
        "native": "",  # the client's own event name (Cursor: afterAgentResponse or stop for stop.py)
        "turn_key": "",  # the client's id for this prompt and its answer (Cursor: generation_id)
    }

    def __init__(self, client: str, event: str, **fields: object) -> None:
        unknown = set(fields) - set(self._DEFAULTS)
        if unknown:
            raise TypeError(f"unknown HookEvent fields: {sorted(unknown)}")
        object.__setattr__(self, "client", client)
        object.__setattr__(self, "event", event)
        for name, default in self._DEFAULTS.items():
            value = fields.get(name, default)
            if value is None and name in ("tool_input", "tool_response"):
                value = {}
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("HookEvent is immutable")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HookEvent) and all(getattr(self, n) == getattr(other, n) for n in self.__slots__)

    def __repr__(self) -> str:
        return "HookEvent(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__) + ")"


def looks_like_cursor(payload: JSONObject) -> bool:
    """Cursor also runs Claude Code hooks; its payloads carry these fields."""
    return any(key in payload for key in _CURSOR_MARKERS)


def _str(value: object, limit: int = MAX_FIELD_CHARS) -> str:
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    return text[:limit]


def clip(text: str, limit: int = MAX_FIELD_CHARS) -> str:
    """Keep the head and the (usually more telling) tail of long output."""
    if len(text) <= limit:
        return text
    head = limit // 4
    return text[:head] + "\n…\n" + text[-(limit - head - 3) :]


def _iterable(value: JSONValue) -> list[JSONValue] | str | JSONObject:
    """``value`` when ``for _ in value`` works on it (an array, string or object).

    A number raises TypeError as that loop would."""
    if isinstance(value, (list, str, dict)):
        return value
    raise TypeError(f"'{type(value).__name__}' object is not iterable")


def trim_tool_input(value: JSONValue) -> JSONObject:
    if isinstance(value, str):
        try:
            value = hook_json.loads(value)
        except ValueError:
            return {}
    if not isinstance(value, dict):
        return {}
    out: JSONObject = {k: _str(value[k], 2_000) for k in _KEEP_INPUT_KEYS if k in value}
    edits, content = value.get("edits"), value.get("content")
    if isinstance(edits, list):
        out["edits"] = [{} for _ in edits[:100]]
    if isinstance(content, str):
        out["content_lines"] = content.count("\n") + 1
    return out


def trim_tool_response(value: JSONValue) -> JSONObject:
    if isinstance(value, str):
        return {"output": clip(value)}
    if not isinstance(value, dict):
        return {}
    out: JSONObject = {}
    for key in _KEEP_RESPONSE_KEYS:
        if key in value:
            field = value[key]
            out[key] = clip(field) if isinstance(field, str) else bool(field)
    for key in _EXIT_CODE_KEYS:
        code = value.get(key)
        if isinstance(code, int) and not isinstance(code, bool):
            out["exit_code"] = code
            break
    return out


def failure_response(error: JSONValue) -> JSONObject:
    """The tool_response of a failed tool call: its error text, marked as a failure."""
    return {"error": clip(_str(error, 1_000_000)), "failed": True}


def from_claude(event: str, payload: JSONObject) -> HookEvent:
    return HookEvent(
        client="claude",
        event=event,
        session_id=_str(payload.get("session_id"), 200),
        cwd=_str(payload.get("cwd"), 4096),
        prompt=_str(payload.get("prompt"), MAX_PROMPT_CHARS),
        assistant_text=_str(payload.get("last_assistant_message"), MAX_ASSISTANT_CHARS),
        source=_str(payload.get("source"), 32),
        trigger=_str(payload.get("trigger"), 32),
        tool_name=_str(payload.get("tool_name"), 200),
        tool_input=trim_tool_input(payload.get("tool_input")),
        tool_response=failure_response(payload.get("error"))
        if payload.get("hook_event_name") == "PostToolUseFailure"
        else trim_tool_response(payload.get("tool_response")),
        stop_hook_active=bool(payload.get("stop_hook_active")),
        transcript_path=_str(payload.get("transcript_path"), 4096),
        native=_str(payload.get("hook_event_name"), 64),
    )


def from_cursor(event: str, payload: JSONObject) -> HookEvent:
    roots = payload.get("workspace_roots")
    cwd = payload.get("cwd") or (roots[0] if isinstance(roots, list) and roots else "")
    name = _str(payload.get("hook_event_name"), 64)
    tool_name = ""
    tool_input: JSONObject = {}
    tool_response: JSONObject = {}
    if name == "afterFileEdit":
        tool_name = "Edit"
        count = min(sum(1 for _ in _iterable(payload.get("edits") or [])), 100)
        edits: list[JSONValue] = [{} for _ in range(count)]
        tool_input = {"file_path": _str(payload.get("file_path"), 2_000), "edits": edits}
    elif name == "afterShellExecution":
        tool_name = "Bash"
        tool_input = {"command": _str(payload.get("command"), 2_000)}
        tool_response = {"output": clip(_str(payload.get("output"), 1_000_000))}
        for key in _EXIT_CODE_KEYS:
            code = payload.get(key)
            if isinstance(code, int) and not isinstance(code, bool):
                tool_response["exit_code"] = code
                break
    elif name == "postToolUseFailure":
        tool_name = _str(payload.get("tool_name"), 200) or "tool"
        tool_input = trim_tool_input(payload.get("tool_input"))
        tool_response = failure_response(
            payload.get("error_message") or payload.get("error") or payload.get("failure_type")
        )
    status = _str(payload.get("status"), 32)
    return HookEvent(
        client="cursor",
        event=event,
        session_id=_str(payload.get("conversation_id") or payload.get("session_id"), 200),
        cwd=_str(cwd, 4096),
        prompt=_str(payload.get("prompt"), MAX_PROMPT_CHARS),
        assistant_text=_str(payload.get("text") or payload.get("last_assistant_message"), MAX_ASSISTANT_CHARS),
        source=_str(payload.get("source") or "startup", 32),
        trigger=_str(payload.get("trigger"), 32),
        tool_name=tool_name,
        tool_input=tool_input,
        tool_response=tool_response,
        completed=status in ("", "completed"),
        transcript_path=_str(payload.get("transcript_path"), 4096),
        native=name,
        turn_key=_str(payload.get("generation_id"), 200),
    )


def parse(raw: bytes, event: str, client: str) -> HookEvent | None:
    """None for anything that is not a JSON object, or that the other adapter owns."""
    if event not in EVENTS or not raw.strip():
        return None
    try:
        payload: JSONValue = hook_json.loads(raw.decode("utf-8", errors="strict"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(payload, dict):
        return None
    if client == "cursor":
        return from_cursor(event, payload)
    if looks_like_cursor(payload):
        return None  # Cursor runs Claude Code hooks too; its own adapter acts instead.
    return from_claude(event, payload)
