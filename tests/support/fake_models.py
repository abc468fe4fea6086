"""Fake model servers for driving real coding-assistant binaries on loopback. Standard library only.

- ``AnthropicServer``: the Messages API as Claude Code calls it (``POST /v1/messages``,
  streamed as server-sent events; ``/v1/messages/count_tokens``).
- ``OpenAIServer``: chat completions as OpenCode's ``@ai-sdk/openai-compatible`` provider
  calls them (``POST /v1/chat/completions`` streamed, ``GET /v1/models``).

Both log every request (``requests``: path and parsed JSON body) and answer each model
call with what ``script`` decides from the request: a text, or one tool call, so a test
can make the client call an MCP tool through its own MCP connection. The default
answers every call with a short text.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from kernel.json_values import JSONObject, JSONValue, object_at, objects_at, parse_value


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: Mapping[str, object]  # sent as JSON


Reply = Text | ToolCall


@dataclass
class Request:
    path: str
    body: JSONObject
    headers: dict[str, str] = field(default_factory=dict)

    def text(self) -> str:
        """Every string in the request body, joined: what a test searches for injected context."""
        return "\n".join(_strings(self.body))

    def tool_names(self) -> list[str]:
        names = []
        for tool in objects_at(self.body, "tools"):
            name = tool.get("name") or object_at(tool, "function").get("name")
            if name:
                names.append(str(name))
        return names


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


Script = Callable[[Request], Reply]


def always(text: str = "Done.") -> Script:
    return lambda _request: Text(text)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class FakeModelServer:
    """A loopback HTTP server in a thread; ``url`` is its base address."""

    def __init__(self, script: Script | None = None) -> None:
        self.script: Script = script or always()
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: object) -> None:
                pass

            def do_GET(self) -> None:
                fake._handle(self, "GET")

            def do_POST(self) -> None:
                fake._handle(self, "POST")

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, name=type(self).__name__, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> FakeModelServer:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def model_calls(self) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if self.is_model_call(r)]

    def clear(self) -> None:
        with self._lock:
            self.requests.clear()

    # -- per API ---------------------------------------------------------------------------
    def is_model_call(self, request: Request) -> bool:
        raise NotImplementedError

    def answer(self, handler: BaseHTTPRequestHandler, request: Request) -> None:
        raise NotImplementedError

    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body: JSONValue = parse_value(raw) if raw else {}
        except ValueError:
            body = {"_raw": raw.decode("utf-8", errors="replace")}
        request = Request(f"{method} {handler.path}", body if isinstance(body, dict) else {"_body": body})
        request.headers = {k.lower(): v for k, v in handler.headers.items()}
        with self._lock:
            self.requests.append(request)
        self.answer(handler, request)


def _send_json(handler: BaseHTTPRequestHandler, payload: object, status: int = 200) -> None:
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def _send_events(handler: BaseHTTPRequestHandler, events: list[str]) -> None:
    data = "".join(events).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class AnthropicServer(FakeModelServer):
    """``ANTHROPIC_BASE_URL`` for Claude Code."""

    def is_model_call(self, request: Request) -> bool:
        return request.path.startswith("POST /v1/messages") and "count_tokens" not in request.path

    def answer(self, handler: BaseHTTPRequestHandler, request: Request) -> None:
        if "count_tokens" in request.path:
            _send_json(handler, {"input_tokens": max(1, len(request.text()) // 4)})
            return
        if not self.is_model_call(request):
            _send_json(handler, {"type": "error", "error": {"type": "not_found_error", "message": "no"}}, 404)
            return
        reply = self.script(request)
        model = str(request.body.get("model") or "claude-fake")

        def event(name: str, data: Mapping[str, object]) -> str:
            return f"event: {name}\ndata: {json.dumps(data)}\n\n"

        start = {
            "type": "message_start",
            "message": {
                "id": f"msg_{uuid.uuid4().hex[:20]}",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        }
        events = [event("message_start", start)]
        if isinstance(reply, ToolCall):
            block = {"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:20]}", "name": reply.name, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(reply.arguments)}
            stop_reason = "tool_use"
        else:
            block = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": reply.text}
            stop_reason = "end_turn"
        events += [
            event("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
            event("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
            event("content_block_stop", {"type": "content_block_stop", "index": 0}),
            event(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                    "usage": {"output_tokens": 5},
                },
            ),
            event("message_stop", {"type": "message_stop"}),
        ]
        _send_events(handler, events)


class OpenAIServer(FakeModelServer):
    """An OpenAI-compatible ``baseURL`` (``<url>/v1``) for OpenCode."""

    model_id = "fake-model"

    def is_model_call(self, request: Request) -> bool:
        return request.path.startswith("POST") and request.path.split("?")[0].endswith("/chat/completions")

    def answer(self, handler: BaseHTTPRequestHandler, request: Request) -> None:
        if request.path.startswith("GET") and request.path.split("?")[0].endswith("/models"):
            _send_json(handler, {"object": "list", "data": [{"id": self.model_id, "object": "model"}]})
            return
        if not self.is_model_call(request):
            _send_json(handler, {"error": {"message": "not found"}}, 404)
            return
        reply = self.script(request)
        ident = f"chatcmpl-{uuid.uuid4().hex[:20]}"

        def chunk(delta: Mapping[str, object], finish: str | None = None) -> str:
            payload = {
                "id": ident,
                "object": "chat.completion.chunk",
                "created": 0,
                "model": self.model_id,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            return f"data: {json.dumps(payload)}\n\n"

        if isinstance(reply, ToolCall):
            call = {
                "index": 0,
                "id": f"call_{uuid.uuid4().hex[:20]}",
                "type": "function",
                "function": {"name": reply.name, "arguments": json.dumps(reply.arguments)},
            }
            events = [chunk({"role": "assistant", "tool_calls": [call]}), chunk({}, "tool_calls")]
        else:
            events = [chunk({"role": "assistant", "content": reply.text}), chunk({}, "stop")]
        usage = {
            "id": ident,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": self.model_id,
            "choices": [],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }
        events += [f"data: {json.dumps(usage)}\n\n", "data: [DONE]\n\n"]
        _send_events(handler, events)
