"""A stdlib HTTP server that implements the gateway's backfill contract, for client tests.

``POST /api/backfill`` takes ``{"exchanges": [...], "dry_run": bool}``,
checks each exchange's shape and limits like the gateway, keeps them by
``source_id`` (an id seen before counts as existing) and answers with
``stored``, ``existing``, ``observations`` and per-project counts; the
project is the last folder of the exchange's ``cwd``. ``GET /api/health``
answers ok. Knobs: ``max_body`` (413 beyond it) and ``fail_after`` (answer
503 once that many backfill requests succeeded).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import PurePath

from kernel.json_values import JSONObject, JSONValue, object_at, objects_at, parse_value, str_at
from mnemex.backfill.exchange import Exchange, ToolUse

FIELDS = {"source_id", "client", "session_id", "cwd", "started_at", "user_text", "assistant_text", "tool_uses"}
TEXT_FIELDS = FIELDS - {"tool_uses"}
CHANGE_TOOLS = {"Edit", "MultiEdit", "Write", "Bash", "NotebookEdit"}


@dataclass(frozen=True)
class BackfillRequest:
    """One accepted ``POST /api/backfill``: its exchanges, and ``dry_run`` as the body had it."""

    exchanges: list[Exchange]
    dry_run: JSONValue


@dataclass
class FakeBackfillGateway:
    port: int = 0
    stored: dict[str, Exchange] = field(default_factory=dict)
    requests: list[BackfillRequest] = field(default_factory=list)
    max_body: int = 2 * 1024 * 1024
    fail_after: int | None = None
    succeeded: int = 0

    @property
    def addr(self) -> str:
        return f"127.0.0.1:{self.port}"

    def answer(self, body: JSONValue) -> tuple[int, JSONObject]:
        given = body.get("exchanges") if isinstance(body, dict) else None
        if not isinstance(body, dict) or not isinstance(given, list):
            return 422, {"detail": "exchanges: field required"}
        if not 1 <= len(given) <= 256:
            return 422, {"detail": "exchanges: 1 to 256 items"}
        for exchange in given:
            problem = invalid(exchange)
            if problem:
                return 422, {"detail": problem}
        if self.fail_after is not None and self.succeeded >= self.fail_after:
            return 503, {"detail": "memory service unavailable"}
        exchanges = [as_exchange(exchange) for exchange in objects_at(body, "exchanges")]  # each one valid
        self.requests.append(BackfillRequest(exchanges, body.get("dry_run")))
        totals = {"stored": 0, "existing": 0, "observations": 0}
        projects: dict[str, dict[str, int]] = {}
        for accepted in exchanges:
            project = PurePath(accepted["cwd"]).name or "default"
            counts = projects.setdefault(project, {"stored": 0, "existing": 0})
            kind = "existing" if accepted["source_id"] in self.stored else "stored"
            counts[kind] += 1
            totals[kind] += 1
            if kind == "stored":
                totals["observations"] += sum(t["tool_name"] in CHANGE_TOOLS for t in accepted["tool_uses"])
                if not body.get("dry_run"):
                    self.stored[accepted["source_id"]] = accepted
        self.succeeded += 1
        reply: JSONObject = {**totals, "projects": {name: {**counts} for name, counts in projects.items()}}
        return 200, reply


def invalid(exchange: JSONValue) -> str:
    if not isinstance(exchange, dict) or set(exchange) != FIELDS:
        return f"an exchange needs exactly {sorted(FIELDS)}"
    if any(not isinstance(exchange[name], str) for name in TEXT_FIELDS):
        return f"{sorted(TEXT_FIELDS)} must be strings"
    if len(str_at(exchange, "source_id")) > 200 or str_at(exchange, "client") not in ("claude", "opencode", "cursor"):
        return "bad source_id or client"
    started_at = str_at(exchange, "started_at")
    if not started_at.endswith("Z") or "T" not in started_at:
        return "started_at must be RFC 3339 UTC"
    if len(str_at(exchange, "user_text")) > 100_000 or len(str_at(exchange, "assistant_text")) > 100_000:
        return "text too long"
    tool_uses = exchange["tool_uses"]
    if not isinstance(tool_uses, list):
        return "tool_uses must be a list"
    if len(tool_uses) > 50:
        return "too many tool uses"
    for used in tool_uses:
        if (
            not isinstance(used, dict)
            or set(used) != {"tool_name", "tool_input", "tool_response"}
            or not isinstance(used["tool_input"], dict)
        ):
            return "bad tool use"
    return ""


def as_exchange(exchange: JSONObject) -> Exchange:
    """A valid exchange (``invalid`` found nothing wrong) as the client's own type."""
    return Exchange(
        source_id=str_at(exchange, "source_id"),
        client=str_at(exchange, "client"),
        session_id=str_at(exchange, "session_id"),
        cwd=str_at(exchange, "cwd"),
        started_at=str_at(exchange, "started_at"),
        user_text=str_at(exchange, "user_text"),
        assistant_text=str_at(exchange, "assistant_text"),
        tool_uses=[
            ToolUse(
                tool_name=str_at(used, "tool_name"),
                tool_input=object_at(used, "tool_input"),
                tool_response=object_at(used, "tool_response"),
            )
            for used in objects_at(exchange, "tool_uses")
        ],
    )


@contextmanager
def fake_backfill_gateway(
    *, max_body: int = 2 * 1024 * 1024, fail_after: int | None = None
) -> Iterator[FakeBackfillGateway]:
    gateway = FakeBackfillGateway(max_body=max_body, fail_after=fail_after)

    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, payload: JSONObject) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.startswith("/api/health"):
                self._send(200, {"status": "ok"})
            else:
                self._send(404, {"detail": "Not Found"})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length > gateway.max_body:
                self.rfile.read(length)
                self._send(413, {"error": f"request body over {gateway.max_body} bytes"})
                return
            raw = self.rfile.read(length)
            if not self.path.startswith("/api/backfill"):
                self._send(404, {"detail": "Not Found"})
                return
            self._send(*gateway.answer(parse_value(raw or b"null")))

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    gateway.port = int(server.server_address[1])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield gateway
    finally:
        server.shutdown()
        server.server_close()
