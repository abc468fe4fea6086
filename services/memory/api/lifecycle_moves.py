"""Carrying out a lifecycle transition: write, move, or delete a memory, and log the event.

Shared by outcome scoring and the maintenance sweep; the caller holds the
memory's uid lock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from services.memory.domain.lifecycle import Action, Transition
from services.memory.domain.naming import Scope
from services.memory.domain.record import MemoryRecord
from services.memory.storage.blocking_io import BlockingIO
from services.memory.storage.memory_store import MemoryStore
from services.memory.storage.session_state import LifecycleEvent, SessionState


class LifecycleMoves:
    def __init__(
        self, store: MemoryStore, state: SessionState, io: BlockingIO, *, clock: Callable[[], datetime]
    ) -> None:
        self._store = store
        self._state = state
        self._io = io
        self._clock = clock

    async def apply(
        self, scope: Scope, before: MemoryRecord, after: MemoryRecord, transition: Transition
    ) -> tuple[str, str]:
        """Write ``after`` and carry out ``transition``. Returns (collection_after, new_id)."""
        if transition.action is Action.NONE:
            await self._store.update(scope, before, after)
            return before.collection, ""
        if transition.action in (Action.DELETE, Action.EXPIRE):
            await self._store.delete(scope, before)
            await self._log(scope, LifecycleEvent(transition.action.value, before.id, before.collection))
            return "", ""
        assert transition.target is not None
        now = self._clock()
        stamped = (
            replace(after, promoted_at=now, moved_at=now)
            if transition.action is Action.PROMOTE
            else replace(after, demoted_at=now, moved_at=now)
        )
        moved = await self._store.move(scope, before, stamped, transition.target)
        await self._log(scope, LifecycleEvent(transition.action.value, before.id, before.collection, transition.target))
        return moved.collection, moved.id

    async def _log(self, scope: Scope, event: LifecycleEvent) -> None:
        await self._io.run(self._state.add_events, scope, [event], self._clock().timestamp())
