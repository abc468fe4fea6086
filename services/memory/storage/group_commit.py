"""Group commit for metadata updates: concurrent writers share one store call.

A persistent Chroma write costs about the same for one id as for ten (each
call commits to disk), and concurrent calls serialise inside Chroma. So
metadata-only updates (the outcome path) are queued per target; one flush at
a time takes everything queued so far and writes it in a single call, and
every caller is released only after that call returned, so an acknowledged
update is on disk. Under load the batches grow by themselves; alone, a
writer pays one call as before. Plain asyncio; no grpc, no chromadb.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

Value = TypeVar("Value")
Flush = Callable[[Hashable, list[str], list[dict[str, Value]]], Awaitable[None]]


@dataclass
class _Queue(Generic[Value]):
    items: list[tuple[str, dict[str, Value], asyncio.Future[None]]] = field(default_factory=list)
    flushing: bool = False


class GroupCommit(Generic[Value]):
    def __init__(self, flush: Flush[Value]) -> None:
        self._flush = flush
        self._queues: dict[Hashable, _Queue[Value]] = {}
        self.calls = 0
        self.updates = 0

    async def update(self, target: Hashable, item_id: str, changes: dict[str, Value]) -> None:
        queue = self._queues.setdefault(target, _Queue())
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue.items.append((item_id, changes, done))
        if not queue.flushing:
            queue.flushing = True
            asyncio.get_running_loop().create_task(self._drain(target, queue))
        await done

    async def _drain(self, target: Hashable, queue: _Queue[Value]) -> None:
        try:
            await asyncio.sleep(0)  # let writers that are already runnable join this batch
            while queue.items:
                batch, queue.items = queue.items, []
                merged: dict[str, dict[str, Value]] = {}
                for item_id, changes, _ in batch:
                    merged.setdefault(item_id, {}).update(changes)
                try:
                    await self._flush(target, list(merged), list(merged.values()))
                except Exception as exc:
                    for _, _, done in batch:
                        if not done.done():
                            done.set_exception(exc)
                    continue
                self.calls += 1
                self.updates += len(batch)
                for _, _, done in batch:
                    if not done.done():
                        done.set_result(None)
        finally:
            queue.flushing = False
            if not queue.items:
                self._queues.pop(target, None)
