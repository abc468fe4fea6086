"""Session-state writes that run after their reply is sent, kept in order.

PrepareContext answers the prompt first and records what it injected
afterwards, so the SQLite write (and redacting the prompt) never sits on the
prompt's path. Anything that reads or changes a session's turns (the next
prompt, a stop, a score) first waits for the writes already handed over, so
a turn is always recorded before the next operation on it. Plain asyncio.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger("mnemex.memory.turns")


class TurnWrites:
    def __init__(self) -> None:
        self._pending: set[asyncio.Task[None]] = set()

    def defer(self, write: Coroutine[Any, Any, None]) -> None:
        """Run ``write`` now, in the background; failures are logged, never raised."""
        task = asyncio.get_running_loop().create_task(self._guarded(write), name="memory-turn-write")
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    @staticmethod
    async def _guarded(write: Coroutine[Any, Any, None]) -> None:
        try:
            await write
        except Exception:  # the prompt was answered already: log it, keep serving
            log.exception("recording an injection after the reply failed")

    async def settle(self) -> None:
        """Wait for the writes handed over before this call (each takes well under a millisecond)."""
        if self._pending:
            await asyncio.gather(*list(self._pending))

    @property
    def pending(self) -> int:
        return len(self._pending)
