"""The memory service's composition root: one store, the use cases wired to it, background upkeep.

``MemoryUseCases(settings, chroma, embedder)`` builds every piece once,
with explicit dependencies (no service locator): the typed ``MemoryStore``
over Chroma and the search mirrors, the session store, the I/O pool, the
per-memory locks, then the use cases that the servicer calls (``writes``,
``reads``, ``searcher``, ``prepare``, ``turns``, ``scoring``, ``books``,
``maintenance``, ``portability``, ``consolidation``). ``start()`` warms the mirrors and starts
the periodic lifecycle sweep; ``close()`` stops both, lets deferred turn
writes finish and releases the pool and the session store.

No grpc and no chromadb imports here: the ``ChromaStore`` comes in built.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import datetime

from services.memory.api.backfill import Backfill
from services.memory.api.books import Books
from services.memory.api.consolidation import Consolidation
from services.memory.api.exchange_intake import ExchangeIntake
from services.memory.api.lifecycle_moves import LifecycleMoves
from services.memory.api.maintenance import Maintenance
from services.memory.api.memory_reads import MemoryReads
from services.memory.api.memory_restore import MemoryRestore
from services.memory.api.memory_writes import MemoryWrites, WriteLimits
from services.memory.api.observation_compaction import ObservationCompaction
from services.memory.api.outcome_scoring import OutcomeScoring
from services.memory.api.portability import Portability
from services.memory.api.prepare_context import PrepareContext
from services.memory.api.session_turns import SessionTurns
from services.memory.api.turn_write_queue import TurnWrites
from services.memory.api.viewer_reads import ViewerReads
from services.memory.domain import timefmt
from services.memory.domain.naming import Scope, make_scope
from services.memory.retrieval.lexical import LexicalIndex
from services.memory.retrieval.query_expansion import mentions_time
from services.memory.retrieval.searcher import Searcher
from services.memory.retrieval.vectors import Embedder, Vectors
from services.memory.settings import MemorySettings
from services.memory.storage.blocking_io import BlockingIO
from services.memory.storage.chroma_store import ChromaStore
from services.memory.storage.keyed_locks import KeyedLocks
from services.memory.storage.memory_store import MemoryStore
from services.memory.storage.merge_journal import MergeJournal
from services.memory.storage.session_state import SessionState
from services.memory.storage.turn_history import TurnHistory

log = logging.getLogger("mnemex.memory")
FIRST_SWEEP_AFTER_S = 30.0


def limit_blas_threads() -> None:
    """Make numpy's BLAS single-threaded in this process.

    Measured on 2 busy cores: a 10k x 384 matrix-vector product took 15 ms with
    OpenBLAS's default thread pool and 1.1 ms on one thread; the service gets
    its parallelism from concurrent requests, not from BLAS.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # the OPENBLAS_NUM_THREADS=1 set by __main__ covers the service process
        return
    threadpool_limits(1, user_api="blas")


class MemoryUseCases:
    def __init__(
        self,
        settings: MemorySettings,
        chroma: ChromaStore,
        embedder: Embedder | None,
        *,
        clock: Callable[[], datetime] = timefmt.now,
    ) -> None:
        limit_blas_threads()
        self.settings = settings
        self.clock = timefmt.Clock(clock)  # every use case holds this one clock; tests replace its source
        clock = self.clock
        self.io = BlockingIO(settings.io_threads)
        self.state = SessionState(settings.state_path)
        self.history = TurnHistory(settings.state_path)
        self.store = MemoryStore(
            chroma,
            self.io,
            dim=settings.vector_dim,
            text_index=LexicalIndex if settings.retrieval_mode == "hybrid" else None,
            time_cue=mentions_time,
            weights=settings.ranking,
            owns=settings.shard.owns if settings.shard else None,
            ann_min_rows=settings.ann_min_rows,
        )
        self.locks = KeyedLocks()
        self.turn_writes = TurnWrites()
        vectors = Vectors(
            embedder, dim=settings.vector_dim, max_chars=settings.max_embed_chars, timeout_s=settings.embed_timeout_s
        )
        moves = LifecycleMoves(self.store, self.state, self.io, clock=clock)
        self.writes = MemoryWrites(
            self.store,
            vectors,
            self.locks,
            limits=WriteLimits(settings.max_content_chars, settings.dedup_threshold, settings.memory_bank_cap),
            weights=settings.ranking,
            clock=clock,
        )
        self.reads = MemoryReads(self.store, weights=settings.ranking, clock=clock)
        self.searcher = Searcher(
            self.store, self.io, vectors, retrieval=settings.retrieval, weights=settings.ranking, clock=clock
        )
        self.intake = ExchangeIntake(self.state, self.io, self.writes, self.store, self.turn_writes)
        self.turns = SessionTurns(self.state, self.io, self.turn_writes, self.writes, self.intake, clock=clock)
        self.prepare = PrepareContext(
            self.state, self.turns, self.searcher, self.store, history=self.history, io=self.io
        )
        self.scoring = OutcomeScoring(
            self.store,
            self.state,
            self.io,
            self.locks,
            moves,
            self.turn_writes,
            lifecycle=settings.lifecycle,
            clock=clock,
            history=self.history,
        )
        self.viewer = ViewerReads(self.store, self.state, self.history, self.io, weights=settings.ranking, clock=clock)
        self.restore = MemoryRestore(self.store, self.locks, weights=settings.ranking, clock=clock)
        self.books = Books(self.store, vectors, self.locks, self.io, clock=clock)
        self.maintenance = Maintenance(
            self.store,
            self.state,
            self.io,
            self.locks,
            moves,
            lifecycle=settings.lifecycle,
            home=settings.home,
            clock=clock,
            compaction=ObservationCompaction(
                self.store,
                vectors,
                self.locks,
                lifecycle=settings.lifecycle,
                max_content_chars=settings.max_content_chars,
                clock=clock,
            ),
        )
        self.portability = Portability(
            self.store,
            vectors,
            default_user=settings.default_user,
            max_content_chars=settings.max_content_chars,
            clock=clock,
            check_owner=settings.shard.check if settings.shard else None,
        )
        self.backfill = Backfill(self.store, vectors, max_content_chars=settings.max_content_chars, clock=clock)
        self.consolidation = Consolidation(
            self.store,
            vectors,
            self.locks,
            max_content_chars=settings.max_content_chars,
            weights=settings.ranking,
            clock=clock,
            journal=MergeJournal(settings.home / "memory" / "merges"),
        )
        self._sweeper: asyncio.Task[None] | None = None
        self._warmer: asyncio.Task[None] | None = None

    def now(self) -> datetime:
        return self.clock()

    def scope(self, user: str, project: str) -> Scope:
        """The request's scope; when sharded, only for a user this shard owns (else NotThisShard)."""
        scope = make_scope(user, project, self.settings.default_user)
        if self.settings.shard is not None:
            self.settings.shard.check(scope.user)
        return scope

    async def start(self) -> None:
        finished = await self.consolidation.recover()  # before serving: no half-applied merge is ever seen
        if finished:
            log.warning("finished %d consolidations a crash had interrupted", finished)
        replayed = await self.intake.start()  # acknowledged exchanges a crash left unstored: stored first
        if replayed:
            log.warning("storing %d acknowledged exchanges left in the intake journal", replayed)
        pruned = await self.maintenance.prune_logs()
        if pruned:
            log.info(
                "pruned %d exchange logs older than %s days", pruned, self.settings.lifecycle.exchange_log_ttl_days
            )
        loop = asyncio.get_running_loop()
        if self._warmer is None:
            self._warmer = loop.create_task(self._warm_mirrors(), name="memory-warm-mirrors")
        if self.settings.maintenance_interval_s > 0 and self._sweeper is None:
            self._sweeper = loop.create_task(self._sweep_forever(), name="memory-maintenance")

    async def _warm_mirrors(self) -> None:
        """Build every collection's mirror in the background, so the first prompt is fast too."""
        try:
            owners = await self.store.owner_scopes()
            for owner, collection in owners:
                await self.store.warm_mirror(owner, collection)
            log.info("mirrors warm: %d collections, %d rows", len(owners), self.store.mirrors.rows())
        except Exception:
            log.exception("warming the search mirrors failed")

    async def _sweep_forever(self) -> None:
        interval = self.settings.maintenance_interval_s
        await asyncio.sleep(min(interval, FIRST_SWEEP_AFTER_S))
        while True:
            try:
                report = await self.maintenance.run(None)
                log.info("maintenance: %s", report)
            except Exception:
                log.exception("maintenance sweep failed")
            await asyncio.sleep(interval)

    async def close(self) -> None:
        for task in (self._sweeper, self._warmer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._sweeper = self._warmer = None
        await self.intake.close()  # what it has not stored stays journaled for the next start
        await self.turn_writes.settle()
        await asyncio.to_thread(self.io.close)
        await asyncio.to_thread(self.state.close)
        await asyncio.to_thread(self.history.close)
