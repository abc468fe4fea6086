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
from typing import Any

FIELDS = {"source_id", "client", "session_id", "cwd", "started_at", "user_text", "assistant_text", "tool_uses"}
CHANGE_TOOLS = {"Edit", "MultiEdit", "Write", "Bash", "NotebookEdit"}


@dataclass
class FakeBackfillGateway:
    port: int = 0
    stored: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)
    max_body: int = 2 * 1024 * 1024
    fail_after: int | None = None
    succeeded: int = 0

    @property
    def addr(self) -> str:
        return f"127.0.0.1:{self.port}"

    def answer(self, body: Any) -> tuple[int, dict[str, Any]]:
        if not isinstance(body, dict) or not isinstance(body.get("exchanges"), list):
            return 422, {"detail": "exchanges: field required"}
        exchanges = body["exchanges"]
        if not 1 <= len(exchanges) <= 256:
            return 422, {"detail": "exchanges: 1 to 256 items"}
        for exchange in exchanges:
            problem = invalid(exchange)
            if problem:
                return 422, {"detail": problem}
        if self.fail_after is not None and self.succeeded >= self.fail_after:
            return 503, {"detail": "memory service unavailable"}
        self.requests.append(body)
        reply: dict[str, Any] = {"stored": 0, "existing": 0, "observations": 0, "projects": {}}
        for exchange in exchanges:
            project = PurePath(exchange["cwd"]).name or "default"
            counts = reply["projects"].setdefault(project, {"stored": 0, "existing": 0})
            kind = "existing" if exchange["source_id"] in self.stored else "stored"
            counts[kind] += 1
            reply[kind] += 1
            if kind == "stored":
                reply["observations"] += sum(t["tool_name"] in CHANGE_TOOLS for t in exchange["tool_uses"])
                if not body.get("dry_run"):
                    self.stored[exchange["source_id"]] = exchange
        self.succeeded += 1
        return 200, reply


def invalid(exchange: Any) -> str:
    if not isinstance(exchange, dict) or set(exchange) != FIELDS:
        return f"an exchange needs exactly {sorted(FIELDS)}"
    if len(exchange["source_id"]) > 200 or exchange["client"] not in ("claude", "opencode", "cursor"):
        return "bad source_id or client"
    if not exchange["started_at"].endswith("Z") or "T" not in exchange["started_at"]:
        return "started_at must be RFC 3339 UTC"
    if len(exchange["user_text"]) > 100_000 or len(exchange["assistant_text"]) > 100_000:
        return "text too long"
    if len(exchange["tool_uses"]) > 50:
        return "too many tool uses"
    for used in exchange["tool_uses"]:
        if set(used) != {"tool_name", "tool_input", "tool_response"} or not isinstance(used["tool_input"], dict):
            return "bad tool use"
    return ""


@contextmanager
def fake_backfill_gateway(**knobs: Any) -> Iterator[FakeBackfillGateway]:
    gateway = FakeBackfillGateway(**knobs)

    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, payload: Any) -> None:
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
            self._send(*gateway.answer(json.loads(raw or b"null")))

        def log_message(self, format: str, *args: Any) -> None:
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
