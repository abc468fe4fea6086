"""One exchange as ``POST /api/backfill`` takes it, and the clean-up every reader applies.

An exchange is a user's prompt, the assistant's final answer to it and the
tools used in between. Readers build them with ``make_exchange``, which caps
every field to the gateway's limits and strips what mnemex itself injected
into a conversation (KNOWN CONTEXT blocks, scoring prompts), so a backfill
never stores memories of memories.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TypedDict

from kernel.json_values import JSONObject, JSONValue

MAX_SOURCE_ID_CHARS = 200
MAX_TEXT_CHARS = 100_000
MAX_TOOL_USES = 50
MAX_TOOL_INPUT_STRING = 2_000
MAX_TOOL_RESPONSE_STRING = 4_000  # the tail: test summaries and errors come last
MAX_DEPTH = 6
MAX_ITEMS = 50
TRUNCATED = "…[truncated by mnemex backfill]"
CLIENTS = ("claude", "opencode", "cursor")


class ToolUse(TypedDict):
    tool_name: str
    tool_input: JSONObject
    tool_response: JSONObject


class Exchange(TypedDict):
    source_id: str
    client: str
    session_id: str
    cwd: str
    started_at: str
    user_text: str
    assistant_text: str
    tool_uses: list[ToolUse]


_INJECTED_BLOCKS = (
    # mnemex's own context and scoring prompt, wherever a client echoed them
    re.compile(r"[^\n]*═══ KNOWN CONTEXT ═══.*?═══ END CONTEXT ═══[^\n]*\n?", re.DOTALL),
    re.compile(r"<mnemex-score-required>.*?</mnemex-score-required>\n?", re.DOTALL),
    # wrappers Claude Code puts around hook output and reminders inside a user turn
    re.compile(r"<system-reminder>.*?</system-reminder>\n?", re.DOTALL),
    re.compile(r"<user-prompt-submit-hook>.*?</user-prompt-submit-hook>\n?", re.DOTALL),
)
_UNCLOSED_CONTEXT = re.compile(r"[^\n]*═══ KNOWN CONTEXT ═══.*", re.DOTALL)  # cut off by a cap


def strip_injected(text: str) -> str:
    """``text`` without mnemex's KNOWN CONTEXT and scoring blocks (and the client wrappers around them)."""
    if "═══" in text or "<" in text:
        for pattern in _INJECTED_BLOCKS:
            text = pattern.sub("", text)
        text = _UNCLOSED_CONTEXT.sub("", text)
    return text.strip()


def cap_text(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - len(TRUNCATED)] + TRUNCATED


def _cap_tail(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return TRUNCATED + text[-(limit - len(TRUNCATED)) :]


def cap_value(value: object, string_limit: int, *, tail: bool = False, depth: int = 0) -> JSONValue:
    """A JSON value with long strings cut, long lists and objects shortened and deep nesting flattened."""
    if isinstance(value, str):
        return _cap_tail(value, string_limit) if tail else cap_text(value, string_limit)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if depth >= MAX_DEPTH:
        return cap_text(str(value), string_limit)
    if isinstance(value, dict):
        return _cap_object(value.items(), string_limit, tail=tail, depth=depth)
    if isinstance(value, (list, tuple)):
        return [cap_value(v, string_limit, tail=tail, depth=depth + 1) for v in list(value)[:MAX_ITEMS]]
    return cap_text(str(value), string_limit)


def _cap_object(
    items: Iterable[tuple[object, object]], string_limit: int, *, tail: bool = False, depth: int = 0
) -> JSONObject:
    """An object's first ``MAX_ITEMS`` entries, keys cut to 200 characters and values capped (``cap_value``)."""
    kept = list(items)[:MAX_ITEMS]
    return {str(k)[:200]: cap_value(v, string_limit, tail=tail, depth=depth + 1) for k, v in kept}


def tool_use(name: str, tool_input: object, tool_response: object) -> ToolUse:
    """A tool call with its result, both capped (the response keeps its tail)."""
    given = tool_input.items() if isinstance(tool_input, dict) else [("value", tool_input)]
    answer = tool_response.items() if isinstance(tool_response, dict) else [("output", tool_response)]
    return ToolUse(
        tool_name=str(name)[:200],
        tool_input=_cap_object(given, MAX_TOOL_INPUT_STRING),
        tool_response=_cap_object(answer, MAX_TOOL_RESPONSE_STRING, tail=True),
    )


def rfc3339(value: object) -> str | None:
    """An ISO-8601 string or epoch milliseconds as RFC 3339 UTC (``2026-05-01T09:30:00.123Z``); None if neither."""
    try:
        if isinstance(value, bool):
            return None
        if isinstance(value, (int, float)):
            moment = datetime.fromtimestamp(value / 1000, tz=UTC)
        elif isinstance(value, str) and value:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
        else:
            return None
    except (ValueError, OverflowError, OSError):
        return None
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def make_exchange(
    *,
    source_id: str,
    client: str,
    session_id: str,
    cwd: str,
    started_at: str,
    user_text: str,
    assistant_text: str,
    tool_uses: list[ToolUse],
) -> Exchange | None:
    """The exchange as the gateway takes it, or None when nothing of the user's own is left after clean-up."""
    prompt = cap_text(strip_injected(user_text))
    answer = cap_text(strip_injected(assistant_text))
    if not prompt or not (answer or tool_uses):
        return None
    return Exchange(
        source_id=source_id[:MAX_SOURCE_ID_CHARS],
        client=client,
        session_id=session_id[:200],
        cwd=cwd,
        started_at=started_at,
        user_text=prompt,
        assistant_text=answer,
        tool_uses=tool_uses[:MAX_TOOL_USES],
    )
