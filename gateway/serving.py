"""The gateway's HTTP server: uvicorn, guarded against slow clients, without its tenth-of-a-second idle tick.

**Slow and idle connections.** uvicorn gives a new connection unlimited time
to send its request head, and counts every open connection against
``limit_concurrency``: 300 connections that never finish their headers
(slowloris) turned every other request into a 503. ``GuardedHttpProtocol``

- closes a connection that has not sent a complete request head within
  ``HEAD_TIMEOUT_S`` of opening (or of starting the next request on a
  kept-alive connection); trickling bytes does not extend it;
- when more than ``MAX_CONNECTIONS`` are open, closes the one that has waited
  longest without a request in progress (an idle keep-alive or a half-sent
  head), so connections that make requests always find room below
  ``LIMIT_CONCURRENCY``;
- allows one remote address (not loopback, which every local client shares)
  ``PER_CLIENT_CONNECTIONS`` at once: past that, its own longest-waiting
  idle connection is closed, or the new one when none is idle.

``server_config`` is the one configuration the gateway runs with (tests and
benchmarks start the same).

uvicorn's main loop wakes every 100 ms to refresh the Date header (once a
second) and to notice a shutdown request. For a daemon that sits idle on a
laptop all day, those ten wake-ups a second are most of its idle CPU. Here the
loop wakes once a second, which is as often as the Date header changes, and a
shutdown signal wakes it at once through the event loop's self-pipe, so SIGTERM
still drains and exits without delay.
"""

from __future__ import annotations

import asyncio
import time
from types import FrameType
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from kernel.config import is_loopback

HEAD_TIMEOUT_S = 10.0
LIMIT_CONCURRENCY = 256  # uvicorn answers 503 past this many connections or requests in progress
MAX_CONNECTIONS = 192  # past this, the longest-idle connection is closed (below LIMIT_CONCURRENCY)
PER_CLIENT_CONNECTIONS = 64

TICK_S = 1.0
TICKS_PER_REFRESH = 10  # uvicorn refreshes the Date header when its tick counter is a multiple of 10


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol (the C parser uvicorn picks by default) with the head deadline and
    connection ceilings of the module doc."""

    head_timeout_s = HEAD_TIMEOUT_S
    max_connections = MAX_CONNECTIONS
    per_client = PER_CLIENT_CONNECTIONS
    exempt_loopback = True  # every local client shares 127.0.0.1: a per-address ceiling would be a global one

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]  # uvicorn's own annotation is narrower
        self.idle_since = time.monotonic()
        self.head_timer: asyncio.TimerHandle | None = None
        self._arm_head_timer()
        self._make_room()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.waiting_for_head():
            self._arm_head_timer()  # a kept-alive connection that starts its next request
        else:
            self._cancel_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        self.idle_since = time.monotonic()
        super().on_response_complete()

    def waiting_for_head(self) -> bool:
        """No request in progress: a head not (fully) sent yet, or an idle keep-alive."""
        return self.cycle is None or self.cycle.response_complete

    def _arm_head_timer(self) -> None:
        if self.head_timer is None:
            self.head_timer = self.loop.call_later(self.head_timeout_s, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _head_timed_out(self) -> None:
        self.head_timer = None
        if self.waiting_for_head() and not self.transport.is_closing():
            self.transport.close()

    def _make_room(self) -> None:
        peers = [c for c in self.connections if isinstance(c, GuardedHttpProtocol) and c is not self]
        client = self.client[0] if self.client else ""
        if client and not (self.exempt_loopback and is_loopback(client)):
            own = [c for c in peers if c.client and c.client[0] == client]
            if len(own) >= self.per_client and not _close_longest_idle(own):
                self.transport.close()
                return
        if len(peers) >= self.max_connections:
            _close_longest_idle(peers)


def _close_longest_idle(connections: list[GuardedHttpProtocol]) -> bool:
    idle = [c for c in connections if c.waiting_for_head() and not c.transport.is_closing()]
    if not idle:
        return False
    min(idle, key=lambda c: c.idle_since).transport.close()
    return True


def server_config(app: Any, host: str, port: int, **overrides: Any) -> uvicorn.Config:
    """The gateway's uvicorn configuration (``overrides`` for tests: e.g. ``lifespan``, ``fd``)."""
    settings: dict[str, Any] = {
        "host": host,
        "port": port,
        "http": GuardedHttpProtocol,
        "log_level": "warning",
        "log_config": None,  # kernel.logs formats every record: uvicorn's handlers would print whole messages
        "access_log": False,
        "timeout_keep_alive": 5,
        "timeout_graceful_shutdown": 5,
        "limit_concurrency": LIMIT_CONCURRENCY,
    }
    settings.update(overrides)
    return uvicorn.Config(app, **settings)


class QuietServer(uvicorn.Server):
    _wake: asyncio.Event | None = None
    _loop: asyncio.AbstractEventLoop | None = None

    async def main_loop(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        counter = 0
        should_exit = await self.on_tick(counter)
        while not should_exit:
            counter = (counter + TICKS_PER_REFRESH) % 864_000
            try:
                await asyncio.wait_for(self._wake.wait(), TICK_S)
            except TimeoutError:
                pass
            should_exit = await self.on_tick(counter)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        if self._loop is not None and self._wake is not None:
            self._loop.call_soon_threadsafe(self._wake.set)


STARTUP_FAILURE = 3  # uvicorn.run's exit code when the server never started (e.g. the port is taken)


def serve(config: uvicorn.Config) -> None:
    server = QuietServer(config)
    server.run()
    if not server.started:
        raise SystemExit(STARTUP_FAILURE)
