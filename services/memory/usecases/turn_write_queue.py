"""Session-state writes that run after their reply is sent, kept in order.

PrepareContext answers the prompt first and records what it injected
afterwards, so the SQLite write (and redacting the prompt) never sits on the
prompt's path. Anything that reads or changes a session's turns (the next
prompt, a stop, a score) first waits for that session's writes already handed
over, so a turn is always recorded before the next operation on it, across
every gateway replica. Other sessions never wait for each other.

``finish`` runs a write the caller may stop waiting for (a stop whose client,
or whose gRPC deadline, gave up): the write goes on to its end, and the
service's shutdown (``settle()``) waits for it.

``track`` registers an exchange acknowledged from the intake journal but not
stored yet (``usecases.exchange_intake``): the session's next operation waits for
it (at most ``STORED_WAIT_S``; the intake is asked to store it next), so a
session always reads its own exchanges. Shutdown does not wait for them:
they are journaled, and the next start stores them. Plain asyncio.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Hashable
from typing import TypeVar

log = logging.getLogger("mnemex.memory.turns")
T = TypeVar("T")
STORED_WAIT_S = 2.0  # how long a session's next operation waits for its journaled exchanges to be stored
Expedite = Callable[[Hashable, str], None]


class TurnWrites:
    def __init__(self) -> None:
        # (scope, session_id) -> writes in flight. An empty session_id means "the scope's
        # latest session", so it is ordered against every session of its scope.
        self._pending: dict[tuple[Hashable, str], set[asyncio.Task[None]]] = {}
        self._finishing: set[asyncio.Task[object]] = set()  # ``finish`` writes still running
        self._stored: dict[tuple[Hashable, str], set[asyncio.Future[str]]] = {}  # ``track``ed exchanges
        self.expedite: Expedite | None = None  # asks the intake to store a session's exchanges next

    def track(self, scope: Hashable, session_id: str, stored: asyncio.Future[str]) -> None:
        """The session's next operation waits for ``stored`` (an exchange on its way from the intake)."""
        key = (scope, session_id)
        self._stored.setdefault(key, set()).add(stored)
        stored.add_done_callback(lambda done: self._untrack(key, done))

    def _untrack(self, key: tuple[Hashable, str], stored: asyncio.Future[str]) -> None:
        futures = self._stored.get(key)
        if futures is not None:
            futures.discard(stored)
            if not futures:
                del self._stored[key]

    async def finish(self, write: Coroutine[object, None, T]) -> T:
        """``write``'s result; cancelling the caller does not cancel ``write``, which runs to its end."""
        task = asyncio.get_running_loop().create_task(write, name="memory-write-to-the-end")
        self._finishing.add(task)
        task.add_done_callback(self._finished)
        return await asyncio.shield(task)

    def _finished(self, task: asyncio.Task[object]) -> None:
        self._finishing.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.debug("a write finished with an error: %r", task.exception())

    def defer(self, scope: Hashable, session_id: str, write: Coroutine[object, None, None]) -> None:
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
    async def _guarded(write: Coroutine[object, None, None]) -> None:
        try:
            await write
        except Exception:  # the prompt was answered already: log it, keep serving
            log.exception("recording an injection after the reply failed")

    async def settle(self, scope: Hashable | None = None, session_id: str = "", *, stored: bool = True) -> None:
        """Wait for the writes this session's next operation must see (all of them without a scope).

        ``stored=False``: not for its journaled exchanges (a stop needs its turn, not the previous exchange).
        """
        if scope is None and self._finishing:
            await asyncio.gather(*list(self._finishing), return_exceptions=True)
        if scope is not None and stored and self._stored:
            await self._settle_stored(scope, session_id)
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

    async def _settle_stored(self, scope: Hashable, session_id: str) -> None:
        stored = [
            future
            for (task_scope, task_session), futures in list(self._stored.items())
            if task_scope == scope and (not session_id or task_session in ("", session_id))
            for future in futures
        ]
        if not stored:
            return
        if self.expedite is not None:
            self.expedite(scope, session_id)
        _, late = await asyncio.wait(stored, timeout=STORED_WAIT_S)
        if late:
            log.info("%d journaled exchanges not stored within %.1f s; going on without them", len(late), STORED_WAIT_S)

    @property
    def pending(self) -> int:
        return sum(len(tasks) for tasks in self._pending.values())
