"""Write-ahead intake for exchanges: a stop is acknowledged once journaled, stored right after.

Storing an exchange means embedding it (the largest cost of a stop, about
7 ms of CPU for a typical exchange, and no cheaper in batches on this model)
and adding it to Chroma. With many clients stopping in one project, waiting
for that on every stop made stops queue behind each other. So RecordExchange
journals the exchange and completes its turn in one fsynced SQLite commit
(``TurnStore.journal_exchange``), and this worker stores the journal's
entries in order, removing each only after its store call returned.

What a stop's reply promises:

- the exchange is durable (it survives kill -9 and a power cut) and its turn
  is completed, so the next prompt's scoring state is right at once;
- when no other exchange is waiting in the intake (a single client, normal
  use), the reply waits for the store, as before the journal existed: the
  exchange is searchable once the stop returns, and the id is the stored
  memory's (a near-duplicate: the id of the memory it refreshed). Should the
  store take longer than ``ALONE_WAIT_S`` (the embedding service stalled),
  the reply carries the promised id; in the rare case that exchange then
  refreshes a near-duplicate, that id names no memory (its turn points at
  the refreshed one);
- when others are waiting (many clients on one project), the reply does not
  wait for the store (``wait_s``, 0 by default): it carries the id the
  exchange will be stored under. Such an exchange is always stored under that id,
  even when it is a near-duplicate (the id in a reply always names a
  memory; near-duplicates made under load are left to consolidation).
  The session's own next operation waits for it (``TurnWrites.track``, which
  asks this worker to store it next); other readers see it once the worker
  has caught up;
- an exchange stored as a refresh of a near-duplicate (first case) points
  its turn at the refreshed memory, so scoring credits the memory that exists;
- with more than ``max_pending`` entries waiting, a stop waits for its own
  store (backpressure), as before the journal existed.

While stops keep arriving, the worker rests between batches (``REST_FACTOR``
times the last batch's time), so acknowledging stops gets most of the CPU
and the journal absorbs the burst; it stores flat out once the stops pause,
when the backlog passes half of ``max_pending``, or when a session waits for
its own exchanges.

A restart replays the journal (``start``): entries whose memory was stored
before the crash are only dropped from the journal, never stored twice.
Plain asyncio; no grpc, no chromadb.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Hashable

from kernel.blocking_io import BlockingIO
from services.memory.domain.memory_errors import InvalidRequest
from services.memory.domain.naming import WORKING
from services.memory.storage.memory_store import MemoryStore
from services.memory.storage.turns import IntakeEntry, TurnStore
from services.memory.usecases.memory_writes import MemoryWrites
from services.memory.usecases.turn_write_queue import TurnWrites

log = logging.getLogger("mnemex.memory.intake")

WAIT_S = 0.0  # how long a stop with others ahead of it waits for its store before answering with its id
ALONE_WAIT_S = 1.0  # a stop with nothing ahead of it waits this long for its store (a stalled embedding)
MAX_PENDING = 20_000  # past this many waiting entries, a stop waits for its own store (backpressure)
BATCH = 32  # entries stored together (their embeddings and Chroma add batch downstream)
# While stops keep arriving, the worker rests this many times as long as its last batch took (at most
# MAX_REST_S), so acknowledging stops gets most of the CPU and the journal absorbs the burst; it works
# flat out when the stops pause, when the backlog passes half of ``max_pending``, or for a waiting session.
REST_FACTOR = 3.0
MAX_REST_S = 2.0
REPLAY_PAGE = 500
RETRY_AFTER_S = 1.0


class ExchangeIntake:
    def __init__(
        self,
        turn_store: TurnStore,
        io: BlockingIO,
        writes: MemoryWrites,
        store: MemoryStore,
        turn_writes: TurnWrites,
        *,
        wait_s: float = WAIT_S,
        max_pending: int = MAX_PENDING,
    ) -> None:
        self._turn_store = turn_store
        self._io = io
        self._writes = writes
        self._store = store
        self._turn_writes = turn_writes
        self._wait_s = wait_s
        self._max_pending = max_pending
        self._queue: deque[IntakeEntry] = deque()
        self._urgent: deque[IntakeEntry] = deque()
        self._stored: dict[int, asyncio.Future[str]] = {}  # entry id -> the id it was stored under
        # entry id -> its first store attempt: the stored id, or the promised one when it failed (retried later)
        self._attempts: dict[int, asyncio.Future[str]] = {}
        self._replayed: set[int] = set()  # entries from before a restart: maybe stored already
        self._keep_id: set[int] = set()  # entries whose promised id may have been given out: stored under it
        self._wake: asyncio.Event | None = None
        self._hurry: asyncio.Event | None = None  # a session waits for its exchanges: stop resting
        self._accepted = 0  # stops accepted so far (the worker rests while this moves)
        self._worker: asyncio.Task[None] | None = None
        self.stored_count = 0  # for tests and benches
        turn_writes.expedite = self._expedite

    @property
    def pending(self) -> int:
        return len(self._stored)

    async def accept(self, entry: IntakeEntry) -> str:
        """Hand a journaled entry to the worker; the stored memory's id, or the promised one past ``wait_s``."""
        waiting = len(self._stored)
        self._accepted += 1
        self._enqueue(entry, keep_id=0 < waiting < self._max_pending)
        attempt = self._attempts[entry.id] = asyncio.get_running_loop().create_future()
        try:
            if entry.id not in self._keep_id:  # nothing ahead of it, or backpressure: wait for the store
                limit = None if waiting else ALONE_WAIT_S
                return await asyncio.wait_for(asyncio.shield(attempt), limit) or entry.memory_id
            if self._wait_s <= 0:
                return entry.memory_id
            return await asyncio.wait_for(asyncio.shield(attempt), self._wait_s) or entry.memory_id
        except TimeoutError:
            return entry.memory_id

    def _enqueue(self, entry: IntakeEntry, *, keep_id: bool, replayed: bool = False) -> asyncio.Future[str]:
        loop = asyncio.get_running_loop()
        stored: asyncio.Future[str] = loop.create_future()
        self._stored[entry.id] = stored
        if keep_id:
            self._keep_id.add(entry.id)
        if replayed:
            self._replayed.add(entry.id)
        self._turn_writes.track(entry.scope, entry.session_id, stored)
        self._queue.append(entry)
        if self._wake is None:
            self._wake, self._hurry = asyncio.Event(), asyncio.Event()
        self._wake.set()
        if self._worker is None:
            self._worker = loop.create_task(self._work(), name="memory-exchange-intake")
        return stored

    async def start(self) -> int:
        """Queue what the journal still holds (a previous run's acknowledged exchanges); how many."""
        after, count = 0, 0
        while True:
            page = await self._io.run(self._turn_store.pending_intake, after, REPLAY_PAGE)
            for entry in page:
                if entry.id not in self._stored:
                    self._enqueue(entry, keep_id=True, replayed=True)
                    count += 1
            if len(page) < REPLAY_PAGE:
                return count
            after = page[-1].id

    async def close(self) -> None:
        """Stop the worker; what it has not stored stays journaled for the next start."""
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None
        for waiters in (self._stored, self._attempts):  # release waiters: their entries stay journaled
            for future in waiters.values():
                if not future.done():
                    future.set_result("")
            waiters.clear()
        self._queue.clear()
        self._urgent.clear()
        self._keep_id.clear()
        self._replayed.clear()

    def _expedite(self, scope: Hashable, session_id: str) -> None:
        """Store the session's waiting exchanges next (all of the scope's without a session)."""
        if not self._queue:
            return
        rest: deque[IntakeEntry] = deque()
        for entry in self._queue:
            wanted = entry.scope == scope and (not session_id or entry.session_id == session_id)
            (self._urgent if wanted else rest).append(entry)
        self._queue = rest
        if self._urgent and self._hurry is not None:
            self._hurry.set()

    async def _work(self) -> None:
        assert self._wake is not None and self._hurry is not None
        while True:
            if not self._queue and not self._urgent:
                self._wake.clear()
                await self._wake.wait()
                continue
            accepted, started = self._accepted, time.monotonic()
            await self._store_batch()
            hot = self._accepted != accepted and len(self._stored) < self._max_pending // 2
            if hot and self._queue and not self._urgent:  # never rests with nothing queued: a lone stop waits
                self._hurry.clear()
                rest = min(MAX_REST_S, REST_FACTOR * (time.monotonic() - started))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._hurry.wait(), rest)

    async def _store_batch(self) -> None:
        """Store the next batch (waiting sessions' entries first); drop what was stored from the journal."""
        batch: list[IntakeEntry] = []
        for source in (self._urgent, self._queue):
            while source and len(batch) < BATCH:
                batch.append(source.popleft())
        results = await asyncio.gather(*(self._store_entry(entry) for entry in batch), return_exceptions=True)
        done: list[tuple[IntakeEntry, str]] = []
        retry: list[IntakeEntry] = []
        for entry, result in zip(batch, results, strict=True):
            if isinstance(result, str):
                done.append((entry, result))
            elif isinstance(result, InvalidRequest):  # cannot happen: checked when journaled. Kept there.
                log.error("journaled exchange %s cannot be stored: %s", entry.memory_id, result)
                done.append((entry, ""))
            else:
                log.warning("storing journaled exchange %s failed (%r); retrying", entry.memory_id, result)
                retry.append(entry)
        forget = [(entry, actual) for entry, actual in done if actual]
        try:
            await self._io.run(self._turn_store.finish_intake, forget)
        except Exception:
            log.exception("dropping stored exchanges from the intake journal failed; a restart re-checks them")
        for entry, actual in done:
            self._replayed.discard(entry.id)
            self._keep_id.discard(entry.id)
            stored = self._stored.pop(entry.id, None)
            if stored is not None and not stored.done():
                stored.set_result(actual)
        for entry, actual in [*done, *((e, "") for e in retry)]:
            attempt = self._attempts.pop(entry.id, None)
            if attempt is not None and not attempt.done():
                attempt.set_result(actual)
        self.stored_count += len(forget)
        if retry:
            self._queue.extendleft(reversed(retry))
            await asyncio.sleep(RETRY_AFTER_S)

    async def _store_entry(self, entry: IntakeEntry) -> str:
        """The id ``entry`` was stored under (a near-duplicate: the memory it refreshed)."""
        if entry.id in self._replayed:
            found = await self._store.locate(entry.scope, entry.memory_id)
            if found is not None:  # stored before the crash; only its journal entry was left
                return entry.memory_id
        result = await self._writes.store(
            entry.scope,
            collection=WORKING,
            content=entry.content,
            session_id=entry.session_id,
            kind="exchange",
            memory_id_=entry.memory_id,
            allow_duplicate=entry.id in self._keep_id,
        )
        return result.memory.id
