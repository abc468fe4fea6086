"""The gateway's HTTP server: uvicorn with ``gateway.connection_guard`` in front, without its
tenth-of-a-second idle tick.

``server_config`` is the one configuration the gateway runs with (tests and
benchmarks start the same). uvicorn's own ``limit_concurrency`` is off: its one
global count answered 503 to everyone, hooks included, once any client held
enough connections; the guard admits by class instead.

uvicorn's main loop wakes every 100 ms to refresh the Date header (once a
second) and to notice a shutdown request. For a daemon that sits idle on a
laptop all day, those ten wake-ups a second are most of its idle CPU. Here the
loop wakes once a second, which is as often as the Date header changes, and a
shutdown signal wakes it at once through the event loop's self-pipe, so SIGTERM
still drains and exits without delay.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import FrameType
from typing import Literal, TypedDict, Unpack

import uvicorn
from starlette.types import ASGIApp

from gateway.connection_guard import GuardedHttpProtocol

TICK_S = 1.0
TICKS_PER_REFRESH = 10  # uvicorn refreshes the Date header when its tick counter is a multiple of 10


class ServerOverrides(TypedDict, total=False):
    """What a test may set otherwise: uvicorn.Config's keywords of the same names."""

    http: type[asyncio.Protocol]
    lifespan: Literal["auto", "on", "off"]


def server_config(app: ASGIApp, host: str, port: int, **overrides: Unpack[ServerOverrides]) -> uvicorn.Config:
    """The gateway's uvicorn configuration (``overrides`` for tests: the ``http`` protocol, ``lifespan``)."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=overrides.get("http", GuardedHttpProtocol),
        lifespan=overrides.get("lifespan", "auto"),
        log_level="warning",
        log_config=None,  # kernel.logs formats every record: uvicorn's handlers would print whole messages
        access_log=False,
        timeout_keep_alive=5,
        timeout_graceful_shutdown=5,
        limit_concurrency=None,  # the guard admits by class (hooks keep their own room)
    )


class QuietServer(uvicorn.Server):
    """``on_exit``: called when a shutdown begins, before open requests drain (streams end there)."""

    _wake: asyncio.Event | None = None
    _loop: asyncio.AbstractEventLoop | None = None

    def __init__(self, config: uvicorn.Config, on_exit: Callable[[], None] | None = None) -> None:
        super().__init__(config)
        self.on_exit = on_exit

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
        if self.on_exit is not None:
            self.on_exit()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        if self._loop is not None and self._wake is not None:
            self._loop.call_soon_threadsafe(self._wake.set)


STARTUP_FAILURE = 3  # uvicorn.run's exit code when the server never started (e.g. the port is taken)


def serve(config: uvicorn.Config, on_exit: Callable[[], None] | None = None) -> None:
    """Run until a signal; ``on_exit`` ends what would hold the drain back (the viewer's live streams)."""
    server = QuietServer(config, on_exit)
    server.run()
    if not server.started:
        raise SystemExit(STARTUP_FAILURE)
