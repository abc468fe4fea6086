"""One asyncio lock per key, dropped again when nobody holds or waits for it.

``hold(uid)`` serialises every read-modify-write of one memory (score
updates, moves, edits). The key is the memory's uid, which survives
promotion, so a writer holding an old id and one holding the new id still
take the same lock. Writes of one collection and ingests of one book title
take keys of their own.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator


class KeyedLocks:
    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @contextlib.asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(key, (None, 0))
        if lock is None:
            lock = asyncio.Lock()
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock_now, users_now = self._locks[key]
            if users_now <= 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock_now, users_now - 1)

    def __len__(self) -> int:
        return len(self._locks)
