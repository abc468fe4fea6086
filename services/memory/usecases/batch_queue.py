"""Writes queued per key and handed over in batches: one drain per key at a time.

Stores into one collection of one scope must not interleave (deduplication
reads the collection, then adds), so they used to run one after the other
under that collection's lock, each paying its own store call and disk commit.
With many clients on one project that queue grew long. Here every writer
queues its item under the key; a single drain takes everything queued so far,
holds the key's lock (``KeyedLocks``, the same key other writers of the
collection take) for one batch, and gives each writer its own result or
exception. Under load batches grow by themselves; a lone writer pays what it
did before.

A writer that stops waiting (its caller was cancelled, say by a deadline)
leaves its item queued: it is processed all the same, so a write a client gave
up on is still stored. Plain asyncio; no grpc, no chromadb.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

from services.memory.storage.keyed_locks import KeyedLocks

Item = TypeVar("Item")
Result = TypeVar("Result")
Process = Callable[[list[Item]], Awaitable[Sequence["Result | BaseException"]]]

MAX_BATCH = 64


class BatchQueue(Generic[Item, Result]):
    def __init__(self, locks: KeyedLocks, process: Process[Item, Result], max_batch: int = MAX_BATCH) -> None:
        self._locks = locks
        self._process = process
        self._max_batch = max_batch
        self._queues: dict[str, list[tuple[Item, asyncio.Future[Result]]]] = {}
        self._drains: dict[str, asyncio.Task[None]] = {}
        self.batches = 0  # how many batches were processed, and how many items: for tests and benches
        self.items = 0

    async def submit(self, key: str, item: Item) -> Result:
        """Queue ``item`` under ``key``; its result once its batch was processed (or its exception)."""
        done: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        done.add_done_callback(_mark_retrieved)  # a caller that stopped waiting must not leave a warning behind
        self._queues.setdefault(key, []).append((item, done))
        if key not in self._drains:
            self._drains[key] = asyncio.get_running_loop().create_task(self._drain(key), name=f"batch-drain {key}")
        return await asyncio.shield(done)  # cancelling the caller never cancels the write

    async def _drain(self, key: str) -> None:
        try:
            while self._queues.get(key):
                async with self._locks.hold(key):  # released between batches: other writers of the key get turns
                    queue = self._queues[key]
                    batch, queue[:] = queue[: self._max_batch], queue[self._max_batch :]
                    await self._run(batch)
        finally:
            del self._drains[key]
            if self._queues.get(key):  # cannot happen without an await in between, but never strand a writer
                self._drains[key] = asyncio.get_running_loop().create_task(self._drain(key))
            else:
                self._queues.pop(key, None)

    async def _run(self, batch: list[tuple[Item, asyncio.Future[Result]]]) -> None:
        try:
            results: Sequence[Result | BaseException] = await self._process([item for item, _ in batch])
            if len(results) != len(batch):
                raise RuntimeError(f"a batch of {len(batch)} gave {len(results)} results")
        except Exception as exc:
            results = [exc] * len(batch)
        except asyncio.CancelledError:  # the service is going down: its writers hear it, none waits forever
            for _, done in batch:
                done.cancel()
            raise
        self.batches += 1
        self.items += len(batch)
        for (_, done), result in zip(batch, results, strict=True):
            if done.done():
                continue
            if isinstance(result, BaseException):
                done.set_exception(result)
            else:
                done.set_result(result)

    async def settle(self) -> None:
        """Wait until every queued item was processed."""
        while self._drains:
            await asyncio.gather(*self._drains.values(), return_exceptions=True)


def _mark_retrieved(future: asyncio.Future[Result]) -> None:
    if not future.cancelled():
        future.exception()
