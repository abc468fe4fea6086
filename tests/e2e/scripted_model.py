"""What the fake model answers in the e2e scenarios: a model that obeys mnemex's scoring prompt.

On a request that carries the scoring prompt, and offers the ``score_response``
tool, it calls that tool once, through the client's own MCP connection; once the
tool result is in the conversation it answers with text. Everything else gets a
plain answer that names the prompt, so a stored exchange can be recognised.
"""

from __future__ import annotations

import json
import re
import threading

from kernel.json_values import JSONObject, JSONValue, list_at, object_at, objects_at, str_at
from tests.support.fake_models import Reply, Request, Text, ToolCall

SCORE_TAG = "<mnemex-score-required>"
SCORE_BLOCK = SCORE_TAG + "\n"  # the block itself; the tool descriptions and instructions only name the tag
SCORE_TOOL = re.compile(r"^(mcp__mnemex__|mnemex_)score_response$")
ANSWER = "Fake answer: "


def conversation_text(request: Request) -> str:
    """The system prompt and the messages: what the model reads, without the tool definitions."""
    return Request(request.path, {k: request.body.get(k) for k in ("system", "messages")}).text()


def is_title_request(request: Request) -> bool:
    """OpenCode's title generator: no tools, and it asks for a title."""
    return not request.tool_names() and "Generate a title" in conversation_text(request)


def _strings(value: JSONValue) -> str:
    return Request("", {"value": value}).text()


def _calls_score(message: JSONObject) -> bool:
    """An assistant message that calls score_response (Anthropic tool_use or OpenAI tool_calls)."""
    if message.get("role") != "assistant":
        return False
    names = [str_at(b, "name") for b in objects_at(message, "content") if b.get("type") == "tool_use"]
    names += [str_at(object_at(call, "function"), "name") for call in objects_at(message, "tool_calls")]
    return any(SCORE_TOOL.match(name) for name in names)


def unanswered_scoring(request: Request) -> bool:
    """Whether the model is asked to score and has not yet: a scoring block in the system prompt
    (instructions read afresh on every call), or in a message after its last score call.

    The system prompt is the top-level ``system`` (Anthropic) and the leading system messages
    (OpenAI); a system-role message later in the conversation (Claude Code puts hook output in
    one, after the user's prompt) belongs to its place in the history."""
    messages = list(objects_at(request.body, "messages"))
    lead = next((i for i, m in enumerate(messages) if m.get("role") != "system"), len(messages))
    if SCORE_BLOCK in _strings([request.body.get("system"), *messages[:lead]]):
        return True
    answered = max((i for i, m in enumerate(messages) if _calls_score(m)), default=-1)
    return SCORE_BLOCK in _strings(list(messages[max(answered + 1, lead) :]))


MAX_SCORES_PER_TURN = 2  # a client that keeps asking gets a second score, then an answer (no endless loop)


def scores_this_turn(request: Request) -> int:
    """Score calls the model already made since the user's latest message."""
    messages = list(objects_at(request.body, "messages"))
    start = max((i for i, m in enumerate(messages) if m.get("role") == "user" and not _is_tool_result(m)), default=0)
    return sum(1 for m in messages[start:] if _calls_score(m))


def _is_tool_result(message: JSONObject) -> bool:
    return any(c.get("type") == "tool_result" for c in objects_at(message, "content"))


def last_user_text(request: Request) -> str:
    """The newest user turn's own words (Anthropic or OpenAI shape): its text blocks without
    tool results, client reminders or a block mnemex attached to it."""
    for message in reversed(list(objects_at(request.body, "messages"))):
        if message.get("role") != "user":
            continue
        content = message.get("content")
        blocks = (
            [content]
            if isinstance(content, str)
            else [str_at(c, "text") for c in objects_at(message, "content") if c.get("type") == "text"]
        )
        own = [b for b in blocks if not _attached(b)]
        if own:
            return own[-1]
    return ""


def _attached(text: str) -> bool:
    return "KNOWN CONTEXT" in text or SCORE_TAG in text or text.lstrip().startswith("<system-reminder>")


def has_tool_result(request: Request) -> bool:
    """Whether this request continues a turn after a tool call (the tool's result is in it)."""
    messages = list_at(request.body, "messages")
    if not messages:
        return False
    last = messages[-1]
    if not isinstance(last, dict):
        return False
    if last.get("role") == "tool":  # OpenAI
        return True
    return _is_tool_result(last)


class ObedientModel:
    """Calls ``score_response`` whenever a scoring block is unanswered; remembers what it did.

    Like a real model it obeys what it reads on every call, so a client that keeps asking
    after the score was given gets a second score (the defect the scenarios look for)."""

    def __init__(self, outcome: str = "worked") -> None:
        self.outcome = outcome
        self.score_calls: list[dict[str, object]] = []
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Reply:
        tool = next((name for name in request.tool_names() if SCORE_TOOL.match(name)), None)
        if tool and unanswered_scoring(request) and scores_this_turn(request) < MAX_SCORES_PER_TURN:
            arguments = {"outcome": self.outcome}
            with self._lock:
                self.score_calls.append({"tool": tool, "arguments": arguments})
            return ToolCall(tool, arguments)
        prompt = last_user_text(request).strip().splitlines()
        # OpenCode's `run` sends the message in double quotes
        return Text(ANSWER + (prompt[-1].strip('"') if prompt else "ok")[:200])


def asks_for_scoring(request: Request) -> bool:
    return SCORE_BLOCK in conversation_text(request)


def body(request: Request) -> str:
    return json.dumps(request.body)[:3000]
