"""Carrying out lifecycle transitions: write, move, or delete a memory, and log the event.

``apply`` carries out one transition; the caller holds the memory's uid lock
(outcome scoring, which decides the transition from the new counters).
``sweep_memory`` is the maintenance sweep's step for one memory: under its uid
lock, read it again, decide by age and score (``domain.lifecycle.sweep``) and
apply. ``repair_split_moves`` finishes what a crash left of a move (the memory
in two collections).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from kernel.blocking_io import BlockingIO
from services.memory.domain.lifecycle import Action, LifecycleConfig, Transition, expiry_clock, sweep
from services.memory.domain.naming import Scope, split_id
from services.memory.domain.record import MemoryRecord
from services.memory.storage.keyed_locks import KeyedLocks
from services.memory.storage.lifecycle_events import LifecycleEvent, LifecycleEvents
from services.memory.storage.memory_store import MemoryStore


class LifecycleMoves:
    def __init__(
        self,
        store: MemoryStore,
        events: LifecycleEvents,
        io: BlockingIO,
        *,
        locks: KeyedLocks,
        lifecycle: LifecycleConfig,
        clock: Callable[[], datetime],
    ) -> None:
        self._store = store
        self._events = events
        self._io = io
        self._locks = locks
        self._lifecycle = lifecycle
        self._clock = clock

    def _sweep(self, memory: MemoryRecord) -> Transition:
        return sweep(
            memory.collection,
            memory.counters,
            expiry_clock=expiry_clock(memory),
            now=self._clock(),
            config=self._lifecycle,
        )

    async def sweep_memory(self, scope: Scope, record: MemoryRecord) -> Action:
        """The sweep's transition for one active memory, carried out; ``Action.NONE`` when it stays."""
        if self._sweep(record).action is Action.NONE:  # decided from the scan first: most memories stay
            return Action.NONE
        async with self._locks.hold(split_id(record.id)[1]):
            current = await self._store.get(scope, record.collection, [record.id])
            if not current or current[0].archived:
                return Action.NONE
            memory = current[0]
            transition = self._sweep(memory)
            if transition.action is not Action.NONE:
                await self.apply(scope, memory, memory, transition)
            return transition.action

    async def repair_split_moves(self, scope: Scope, records: list[MemoryRecord]) -> None:
        """A crash between a move's add and delete leaves one uid in two collections; keep the newest."""
        by_uid: dict[str, list[MemoryRecord]] = {}
        for record in records:
            by_uid.setdefault(split_id(record.id)[1], []).append(record)
        for uid, copies in by_uid.items():
            if len(copies) < 2:
                continue
            async with self._locks.hold(uid):
                copies.sort(key=lambda r: r.moved_at.timestamp() if r.moved_at else float("-inf"), reverse=True)
                for stale in copies[1:]:
                    await self._store.delete(scope, stale)

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
        await self._io.run(self._events.add, scope, [event], self._clock().timestamp())
