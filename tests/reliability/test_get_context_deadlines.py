"""get-context's deadline contract: a prompt is never held up by the stack behind it.

Wall-clock bounds are the behaviour under test here (a hook has a hard time
limit; the gateway must answer well inside it), so they live with the other
fault bounds rather than in the unit tests. Real FastAPI app, real gRPC channels
pointed at closed or hanging loopback ports. How fast get-context is when all is
well is measured by the benchmarks (BENCHMARKS.md), never asserted.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gateway.app import create_app
from kernel.config import Settings
from tests.support.dead_backends import dead_settings


@pytest.fixture
def client(isolated_home: Path) -> Iterator[TestClient]:
    with TestClient(create_app(dead_settings(isolated_home)), base_url="http://127.0.0.1") as test_client:
        yield test_client


def test_get_context_with_everything_down_is_empty_and_fast(client: TestClient) -> None:
    started = time.monotonic()
    reply = client.post(
        "/api/hooks/get-context", json={"session_id": "s1", "prompt": "how do I deploy?", "cwd": "/tmp"}
    )
    elapsed = time.monotonic() - started
    assert reply.status_code == 200
    body = reply.json()
    assert body["context"] == "" and body["memories"] == [] and body["scoring_required"] is False
    assert "memory" in body["degraded"]
    assert elapsed < 1.6


def test_hanging_backends_cost_at_most_the_context_budget(isolated_home: Path) -> None:
    """Backends that accept connections and never answer: get-context returns empty within its budget."""
    import threading

    from gateway.prompt_context import Deadlines

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.05)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    addr = f"127.0.0.1:{server.getsockname()[1]}"
    settings = Settings.from_env(
        {
            "MNEMEX_HOME": str(isolated_home),
            "MNEMEX_USER": "t",
            "MNEMEX_EMBEDDING_ADDR": addr,
            "MNEMEX_MEMORY_ADDR": addr,
            "MNEMEX_KG_ADDR": addr,
        }
    )
    try:
        with TestClient(create_app(settings, deadlines=Deadlines.within(0.4)), base_url="http://127.0.0.1") as client:
            started = time.monotonic()
            reply = client.post("/api/hooks/get-context", json={"session_id": "h", "prompt": "anything", "cwd": "/tmp"})
            elapsed = time.monotonic() - started
    finally:
        stop.set()
        thread.join(2)
        for conn in held:
            conn.close()
        server.close()
    assert reply.status_code == 200 and reply.json()["context"] == ""
    assert reply.json()["degraded"]
    assert elapsed < 1.2
