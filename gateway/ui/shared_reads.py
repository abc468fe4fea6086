"""Identical reads made at the same time, answered by one call."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar, cast

T = TypeVar("T")


class SharedReads:
    """One call for identical reads made at the same time (the graph page asks for the whole graph and the
    one around a concept at once, and both read the same kg view, export and facts). Only a call in flight
    is shared: no answer outlives it, so nothing goes stale."""

    def __init__(self) -> None:
        self._in_flight: dict[tuple[str, ...], asyncio.Future[object]] = {}

    async def read(self, key: tuple[str, ...], read: Callable[[], Awaitable[T]]) -> T:
        """``read()``'s answer; a caller that names the same ``key`` as a read in flight shares it (the same
        key always names the same read, so the answer has ``T``'s type)."""

        async def reading() -> object:
            return await read()

        running = self._in_flight.get(key)
        if running is None:
            running = asyncio.ensure_future(reading())
            self._in_flight[key] = running
            running.add_done_callback(lambda _: self._in_flight.pop(key, None))
        return cast(T, await asyncio.shield(running))
