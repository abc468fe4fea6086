"""A tiny stdlib HTTP server standing in for the gateway: records each POST, answers with fixed context."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from kernel.json_values import JSONValue, parse_value

FAKE_CONTEXT = "KNOWN CONTEXT: the billing job runs at 02:00 UTC"


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: JSONValue


@dataclass
class FakeGateway:
    port: int
    requests: list[Received] = field(default_factory=list)


@contextmanager
def fake_gateway() -> Iterator[FakeGateway]:
    gateway = FakeGateway(0)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            gateway.requests.append(Received(self.path, dict(self.headers.items()), parse_value(raw or b"null")))
            reply = json.dumps({"context": FAKE_CONTEXT}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    gateway.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield gateway
    finally:
        server.shutdown()
        server.server_close()
