"""Restore: undo Archive, so the memory surfaces in search and context again.

The archive time and reason stay in the memory's metadata as a record of
what happened; ``archived`` flips back and ``updated_at`` moves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from services.memory.domain.memory_errors import MemoryNotFound
from services.memory.domain.memory_view import NormalizedMemory, view
from services.memory.domain.naming import Scope, check_id, split_id
from services.memory.domain.ranking import RankingWeights
from services.memory.storage.keyed_locks import KeyedLocks
from services.memory.storage.memory_store import MemoryStore


class MemoryRestore:
    def __init__(
        self, store: MemoryStore, locks: KeyedLocks, *, weights: RankingWeights, clock: Callable[[], datetime]
    ) -> None:
        self._store = store
        self._locks = locks
        self._weights = weights
        self._clock = clock

    async def restore(self, scope: Scope, memory_id_: str) -> NormalizedMemory:
        memory_id_ = check_id(memory_id_)
        _, uid = split_id(memory_id_)
        async with self._locks.hold(uid):
            current = await self._store.locate(scope, memory_id_)
            if current is None:
                raise MemoryNotFound(f"no memory {memory_id_!r} in this scope: check the id")
            if current.archived:
                current = await self._store.update(
                    scope, current, replace(current, archived=False, updated_at=self._clock())
                )
            return view(current, now=self._clock(), weights=self._weights)
