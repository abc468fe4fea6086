"""Slow and greedy clients against the gateway's real HTTP server (issue 27, defect 6).

The gateway is served exactly as ``python -m gateway`` serves it
(``gateway.serving.server_config``) on 127.0.0.1:0; the attackers are raw
sockets. Before ``GuardedHttpProtocol``, 300 connections that never finished
their request head made every other request a 503, for as long as they were
held, and a 60 MB backfill body was read and parsed.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Unpack

import httpx
import pytest

from gateway.app import BACKFILL_BODY_LIMIT, create_app
from gateway.connection_guard import GuardedHttpProtocol
from gateway.serving import ServerOverrides, server_config
from kernel.config import Settings
from mnemex.backfill.plan import MAX_BATCH_BYTES
from tests.support.loop_thread import LoopThread

CLOSED = "127.0.0.1:9"
HALF_HEAD = b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow"


class QuickHeadTimeout(GuardedHttpProtocol):
    head_timeout_s = 0.5


class OnePerClient(GuardedHttpProtocol):
    """The per-address ceiling, applied to loopback (which production exempts) so a test can reach it."""

    per_client = 4
    exempt_loopback = False


def _settings(home: Path) -> Settings:
    return Settings.from_env(
        {
            "MNEMEX_HOME": str(home),
            "MNEMEX_USER": "tester",
            "MNEMEX_GATEWAY_ADDR": "127.0.0.1:0",
            "MNEMEX_EMBEDDING_ADDR": CLOSED,
            "MNEMEX_MEMORY_ADDR": CLOSED,
            "MNEMEX_KG_ADDR": CLOSED,
        }
    )


def _serve(loop_thread: LoopThread, home: Path, **overrides: Unpack[ServerOverrides]) -> tuple[str, Callable[[], None]]:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(server_config(create_app(_settings(home)), "127.0.0.1", port, **overrides))

    async def start() -> asyncio.Future[None]:
        task = asyncio.ensure_future(server.serve(sockets=[sock]))
        while not server.started:
            await asyncio.sleep(0.01)
        return task

    task = loop_thread.run(start())

    def stop() -> None:
        server.should_exit = True

        async def wait() -> None:
            await asyncio.wait_for(task, 15)

        loop_thread.run(wait())
        sock.close()

    return f"http://127.0.0.1:{port}", stop


@pytest.fixture
def served(loop_thread: LoopThread, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    url, stop = _serve(loop_thread, tmp_path, **getattr(request, "param", {}))
    yield url
    stop()


def _half_open(url: str, count: int) -> list[socket.socket]:
    port = int(url.rsplit(":", 1)[1])
    held = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.sendall(HALF_HEAD)
        held.append(sock)
    return held


def _closed_by_server(sock: socket.socket, wait_s: float) -> bool:
    sock.settimeout(wait_s)
    try:
        return sock.recv(1024) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def test_three_hundred_unfinished_heads_do_not_block_other_requests(served: str) -> None:
    held = _half_open(served, 300)
    try:
        with httpx.Client(base_url=served, timeout=30) as client:
            statuses = [client.get("/openapi.json", headers={"Connection": "close"}).status_code for _ in range(20)]
        assert statuses == [200] * 20
    finally:
        for sock in held:
            sock.close()


@pytest.mark.parametrize("served", [{"http": QuickHeadTimeout}], indirect=True)
def test_a_head_not_finished_in_time_is_closed_even_when_it_trickles(served: str) -> None:
    (sock,) = _half_open(served, 1)
    try:
        sock.sendall(b"\r\nX-Slow: 1")  # more bytes, still no end of head: the deadline is not moved
        assert _closed_by_server(sock, 10.0)
    finally:
        sock.close()
    # A connection that sent its request is answered, not cut.
    with httpx.Client(base_url=served, timeout=30) as client:
        assert client.get("/openapi.json").status_code == 200


@pytest.mark.parametrize("served", [{"http": OnePerClient}], indirect=True)
def test_one_address_cannot_hold_more_than_its_share(served: str) -> None:
    held = _half_open(served, 8)
    try:
        # Each connection past the fourth closed the one that had waited longest: the first four are gone.
        assert all(_closed_by_server(sock, 10.0) for sock in held[:4])
        with httpx.Client(base_url=served, timeout=30) as client:
            assert client.get("/openapi.json").status_code == 200
    finally:
        for sock in held:
            sock.close()


def test_a_huge_backfill_body_is_refused_by_its_size(served: str) -> None:
    body = b'{"exchanges": [' + b"{}," * (20 * 1024 * 1024 // 3) + b"{}]}"
    with httpx.Client(base_url=served, timeout=60) as client:
        reply = client.post("/api/backfill", content=body, headers={"Content-Type": "application/json"})
    assert reply.status_code == 413, reply.text[:300]
    assert f"{BACKFILL_BODY_LIMIT:,}" in reply.json()["error"]
    assert BACKFILL_BODY_LIMIT <= 4 * 1024 * 1024


def test_the_largest_batch_backfill_sends_fits(served: str) -> None:
    text = "x" * 90_000
    exchange = {"source_id": "s", "client": "claude", "started_at": "2025-01-01T00:00:00Z", "user_text": text}
    count = MAX_BATCH_BYTES // len(json.dumps(exchange))
    body = json.dumps({"exchanges": [exchange] * count, "dry_run": True}).encode()
    assert len(body) >= MAX_BATCH_BYTES * 0.9
    with httpx.Client(base_url=served, timeout=60) as client:
        reply = client.post("/api/backfill", content=body, headers={"Content-Type": "application/json"})
    assert reply.status_code != 413, reply.text[:300]  # the backends are down: a 503 says it was read


# --- The hook path keeps its own room (issue 36, item 6) ---------------------------------------------


class FewSlots(GuardedHttpProtocol):
    """Small request classes and short body deadlines, so a test reaches them with a few sockets."""

    hook_requests = 4
    other_requests = 4
    body_timeout_s = 30.0
    hook_body_timeout_s = 30.0


class QuickBodyTimeout(GuardedHttpProtocol):
    body_timeout_s = 0.5


def _slow_body(url: str, path: str) -> socket.socket:
    port = int(url.rsplit(":", 1)[1])
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        "Content-Length: 1000\r\n\r\n{".encode()
    )
    return sock


def _answered_408(sock: socket.socket) -> bool:
    sock.settimeout(0.2)
    try:
        return sock.recv(1024).startswith(b"HTTP/1.1 408")
    except OSError:
        return False


def _get_context(client: httpx.Client) -> int:
    body = {"session_id": "s-room", "prompt": "why does the deploy fail", "cwd": "/tmp/room"}
    reply = client.post("/api/hooks/get-context", json=body, headers={"Connection": "close"})
    return reply.status_code


def test_mcp_offers_no_event_stream_to_hold(served: str) -> None:
    with httpx.Client(base_url=served, timeout=30) as client:
        held = client.get("/mcp", headers={"Accept": "text/event-stream"})
        ended = client.delete("/mcp")
    assert (held.status_code, held.headers["allow"]) == (405, "POST")
    assert "stateless" in held.json()["error"]
    assert ended.status_code == 405


@pytest.mark.parametrize("served", [{"http": FewSlots}], indirect=True)
def test_slow_bodies_on_every_path_leave_get_context_its_room(served: str) -> None:
    held = [_slow_body(served, path) for path in ("/mcp", "/api/search", "/api/hooks/stop") for _ in range(6)]
    try:
        time.sleep(1.0)  # past the grace a real client's body needs, on a loaded machine too
        with httpx.Client(base_url=served, timeout=30) as client:
            statuses = [_get_context(client) for _ in range(10)]
            other = client.get("/openapi.json", headers={"Connection": "close"}).status_code
        # backends are down: get-context answers its degraded 200; never a 503 for want of a slot
        assert statuses == [200] * 10
        assert other == 200  # the other class made room too: its slowest body was dropped
        dropped = [sock for sock in held if _answered_408(sock)]
        assert dropped, "no slow body was dropped to make room"
    finally:
        for sock in held:
            sock.close()


@pytest.mark.parametrize("served", [{"http": QuickBodyTimeout}], indirect=True)
def test_a_body_not_sent_in_time_is_answered_408_and_closed(served: str) -> None:
    sock = _slow_body(served, "/api/search")
    try:
        sock.settimeout(10)
        reply = b""
        while chunk := sock.recv(4096):
            reply += chunk
        assert reply.startswith(b"HTTP/1.1 408"), reply[:200]
        assert b"did not arrive in time" in reply
    finally:
        sock.close()


def test_a_huge_chunked_mcp_body_is_refused_not_a_server_error(served: str) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "x": "'
        for _ in range(8):
            yield b"a" * (512 * 1024)
        yield b'"}'

    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    with httpx.Client(base_url=served, timeout=60) as client:
        reply = client.post("/mcp", content=chunks(), headers=headers)
    assert reply.status_code == 413, reply.text[:300]
