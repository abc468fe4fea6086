"""Session-state writes that run after their reply is sent, kept in order.

PrepareContext answers the prompt first and records what it injected
afterwards, so the SQLite write (and redacting the prompt) never sits on the
prompt's path. Anything that reads or changes a session's turns (the next
prompt, a stop, a score) first waits for that session's writes already handed
over, so a turn is always recorded before the next operation on it, across
every gateway replica. Other sessions never wait for each other. Plain asyncio.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Hashable
from typing import Any

log = logging.getLogger("mnemex.memory.turns")


class TurnWrites:
    def __init__(self) -> None:
        # (scope, session_id) -> writes in flight. An empty session_id means "the scope's
        # latest session", so it is ordered against every session of its scope.
        self._pending: dict[tuple[Hashable, str], set[asyncio.Task[None]]] = {}

    def defer(self, scope: Hashable, session_id: str, write: Coroutine[Any, Any, None]) -> None:
        """Run ``write`` now, in the background; failures are logged, never raised."""
        key = (scope, session_id)
        task = asyncio.get_running_loop().create_task(self._guarded(write), name="memory-turn-write")
        self._pending.setdefault(key, set()).add(task)
        task.add_done_callback(lambda done: self._forget(key, done))

    def _forget(self, key: tuple[Hashable, str], task: asyncio.Task[None]) -> None:
        tasks = self._pending.get(key)
        if tasks is not None:
            tasks.discard(task)
            if not tasks:
                del self._pending[key]

    @staticmethod
    async def _guarded(write: Coroutine[Any, Any, None]) -> None:
        try:
            await write
        except Exception:  # the prompt was answered already: log it, keep serving
            log.exception("recording an injection after the reply failed")

    async def settle(self, scope: Hashable | None = None, session_id: str = "") -> None:
        """Wait for the writes this session's next operation must see (all of them without a scope)."""
        if not self._pending:
            return
        waiting = [
            task
            for (task_scope, task_session), tasks in list(self._pending.items())
            if scope is None or (task_scope == scope and (not session_id or task_session in ("", session_id)))
            for task in tasks
        ]
        if waiting:
            await asyncio.gather(*waiting)

    @property
    def pending(self) -> int:
        return sum(len(tasks) for tasks in self._pending.values())
