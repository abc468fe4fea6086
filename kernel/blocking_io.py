"""A service's own thread pool for blocking work (Chroma, SQLite, disk).

The event loop never blocks on disk: every store and session-state call of the
memory service runs here. An own pool, because a search fans out to about ten
store/index calls at once, more than asyncio's default pool has.

It belongs to no layer of a service, as ``asyncio.to_thread`` does not: it runs
whatever function it is handed, and each layer hands it only its own or a
lower layer's functions. So a layer's ``io.run(self._method)`` is a call within
that layer, never a lower layer calling up. Plain asyncio.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


class BlockingIO:
    def __init__(self, threads: int, name: str = "memory-io") -> None:
        self._executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix=name)

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args, **kwargs)`` on the pool."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, functools.partial(fn, *args, **kwargs))

    def close(self) -> None:
        self._executor.shutdown(wait=True)
