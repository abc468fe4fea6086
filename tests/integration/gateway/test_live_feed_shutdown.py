"""A gateway stopping with the viewer's live feed open ends the stream at once, not after the 5 s drain timeout."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from pathlib import Path

import httpx

from gateway.app import create_app
from gateway.serving import QuietServer, server_config
from kernel.config import Settings


def test_stopping_ends_open_feed_streams_at_once(tmp_path: Path) -> None:
    app = create_app(Settings.from_env({"MNEMEX_HOME": str(tmp_path)}))  # no backend is called
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = QuietServer(server_config(app, "127.0.0.1", port), on_exit=app.state.gateway.activity.close)
    streaming = threading.Event()
    ended: list[str] = []

    def listen() -> None:
        with (
            httpx.Client(timeout=30) as client,
            client.stream("GET", f"http://127.0.0.1:{port}/ui/live/events") as reply,
        ):
            assert reply.headers["content-type"].startswith("text/event-stream")
            for _ in reply.iter_lines():
                streaming.set()
            ended.append("cleanly")

    async def scenario() -> float:
        serving = asyncio.ensure_future(server.serve(sockets=[sock]))
        while not server.started:
            await asyncio.sleep(0.02)
        reader = threading.Thread(target=listen, daemon=True)
        reader.start()
        await asyncio.to_thread(streaming.wait, 10)
        started = time.perf_counter()
        server.should_exit = True  # what a signal does (handle_exit), without re-raising it at the end
        await serving
        await asyncio.to_thread(reader.join, 5)
        return time.perf_counter() - started

    took = asyncio.run(scenario())
    assert streaming.is_set()
    assert took < 2.5, f"the drain waited {took:.1f} s for the open feed"  # the tick is 1 s; the drain timeout 5 s
    assert ended == ["cleanly"]  # the stream ended as a complete reply, not a cut connection
