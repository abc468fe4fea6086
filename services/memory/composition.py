"""The memory service's composition root: the store, the use cases wired to it, the servicer, the process.

``MemoryUseCases(settings, chroma, embedder)`` builds every piece once, with
explicit dependencies: the typed ``MemoryStore`` over Chroma and the search
mirrors, retrieval's text indexes over them (``MirrorTexts``), the session
store, the I/O pool, the per-memory locks, then the use cases. ``start()``
warms the mirrors and starts the periodic lifecycle sweep; ``close()`` stops
both, lets deferred turn writes finish and releases the pool and the session
store.

``build_servicer`` hands each RPC group (``transport/*_rpcs.py``) exactly the
use cases it calls: no group reaches through this object. ``create_server``
starts the service on the kernel's gRPC scaffold and ``main`` is
``python -m services.memory`` (MNEMEX_MEMORY_ADDR, MNEMEX_HOME, MNEMEX_TOKEN, ...).

Layers, top to bottom: transport -> usecases -> retrieval -> storage -> domain;
only this module imports them all.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from kernel import home_schema, vector_model
from kernel.blocking_io import BlockingIO
from kernel.embedding_client import EmbeddingClient
from kernel.grpc_channel import channel
from kernel.grpc_hosting import RunningService, start_service
from kernel.service_main import limit_blas_threads, run_service
from kernel.store_health import sqlite_problem
from services.memory.domain import timefmt
from services.memory.domain.naming import Scope
from services.memory.retrieval.embedding_calls import Embedder, Vectors
from services.memory.retrieval.mirror_text import MirrorTexts
from services.memory.retrieval.searcher import Searcher
from services.memory.settings import MemorySettings
from services.memory.storage.chroma_store import ChromaStore, open_client
from services.memory.storage.consolidation_journal import ConsolidationJournal
from services.memory.storage.keyed_locks import KeyedLocks
from services.memory.storage.lifecycle_events import LifecycleEvents
from services.memory.storage.memory_store import MemoryStore
from services.memory.storage.outcome_log import OutcomeLog
from services.memory.storage.state_db import StateDb
from services.memory.storage.turns import TurnStore
from services.memory.transport import memory_servicer
from services.memory.transport.admin_rpcs import AdminRpcs
from services.memory.transport.memory_rpcs import MemoryRpcs
from services.memory.transport.memory_servicer import ERRORS, SERVICE_NAME, MemoryServicer
from services.memory.transport.portability_rpcs import PortabilityRpcs
from services.memory.transport.prompt_rpcs import PromptRpcs
from services.memory.transport.viewer_rpcs import ViewerRpcs
from services.memory.usecases.book_ingest import Books
from services.memory.usecases.consolidation import Consolidation
from services.memory.usecases.content_writes import ContentWrites
from services.memory.usecases.exchange_backfill import Backfill
from services.memory.usecases.exchange_intake import ExchangeIntake
from services.memory.usecases.lifecycle_moves import LifecycleMoves
from services.memory.usecases.maintenance import Maintenance
from services.memory.usecases.memory_reads import MemoryReads
from services.memory.usecases.memory_restore import MemoryRestore
from services.memory.usecases.memory_writes import MemoryWrites, WriteLimits
from services.memory.usecases.observation_compaction import ObservationCompaction
from services.memory.usecases.outcome_scoring import OutcomeScoring
from services.memory.usecases.portability import Portability
from services.memory.usecases.prepare_context import PrepareContext
from services.memory.usecases.request_scopes import RequestScopes
from services.memory.usecases.turn_recording import SessionTurns
from services.memory.usecases.turn_write_queue import TurnWrites
from services.memory.usecases.vector_model_watch import ModelInfo, watch_vector_model
from services.memory.usecases.viewer_reads import ViewerReads

log = logging.getLogger("mnemex.memory")
FIRST_SWEEP_AFTER_S = 30.0


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
        self.embedder = embedder
        self.vector_model_problem: str | None = None  # the stored vectors' model is not the one serving
        self.clock = timefmt.Clock(clock)  # every use case holds this one clock; tests replace its source
        clock = self.clock
        self.io = BlockingIO(settings.io_threads)
        self.state_db = StateDb(settings.state_path)  # one connection, shared by its three stores
        self.turn_store = TurnStore(self.state_db)
        self.outcome_log = OutcomeLog(self.state_db)
        self.events = LifecycleEvents(self.state_db)
        self.store = MemoryStore(
            chroma,
            self.io,
            dim=settings.vector_dim,
            weights=settings.ranking,
            owns=settings.shard.owns if settings.shard else None,
            ann_min_rows=settings.ann_min_rows,
        )
        self.locks = KeyedLocks()
        self.turn_writes = TurnWrites()
        vectors = Vectors(
            embedder, dim=settings.vector_dim, max_chars=settings.max_embed_chars, timeout_s=settings.embed_timeout_s
        )
        moves = LifecycleMoves(
            self.store, self.events, self.io, locks=self.locks, lifecycle=settings.lifecycle, clock=clock
        )
        content = ContentWrites(self.store, vectors, self.locks, clock)
        self.writes = MemoryWrites(
            content,
            limits=WriteLimits(settings.max_content_chars, settings.dedup_threshold, settings.memory_bank_cap),
            weights=settings.ranking,
        )
        self.reads = MemoryReads(self.store, weights=settings.ranking, clock=clock)
        self.texts = MirrorTexts(lexical=settings.retrieval_mode == "hybrid")
        self.scopes = RequestScopes(settings.default_user, settings.shard.check if settings.shard else None)
        self.searcher = Searcher(
            self.store,
            self.texts,
            self.io,
            vectors,
            retrieval=settings.retrieval,
            weights=settings.ranking,
            clock=clock,
        )
        self.intake = ExchangeIntake(self.turn_store, self.io, self.writes, self.store, self.turn_writes)
        self.turns = SessionTurns(self.turn_store, self.io, self.turn_writes, self.writes, self.intake, clock=clock)
        self.prepare = PrepareContext(
            self.turn_store,
            self.turns,
            self.turn_writes,
            self.searcher,
            self.reads,
            self.store,
        )
        self.scoring = OutcomeScoring(
            self.store,
            self.turn_store,
            self.io,
            self.locks,
            moves,
            self.turn_writes,
            lifecycle=settings.lifecycle,
            clock=clock,
            outcome_log=self.outcome_log,
        )
        self.viewer = ViewerReads(
            self.store,
            self.turn_store,
            self.turn_writes,
            self.outcome_log,
            self.events,
            self.io,
            weights=settings.ranking,
            clock=clock,
        )
        self.restore = MemoryRestore(self.store, self.locks, weights=settings.ranking, clock=clock)
        self.books = Books(self.store, vectors, self.locks, self.io, clock=clock)
        self.maintenance = Maintenance(
            self.store,
            self.turn_store,
            self.events,
            self.io,
            moves,
            lifecycle=settings.lifecycle,
            home=settings.home,
            clock=clock,
            compaction=ObservationCompaction(
                content, lifecycle=settings.lifecycle, max_content_chars=settings.max_content_chars
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
            content,
            max_content_chars=settings.max_content_chars,
            weights=settings.ranking,
            journal=ConsolidationJournal(settings.home / "memory" / "merges"),
        )
        self._sweeper: asyncio.Task[None] | None = None
        self._warmer: asyncio.Task[None] | None = None
        self._model_watch: asyncio.Task[None] | None = None

    def now(self) -> datetime:
        return self.clock()

    def scope(self, user: str, project: str) -> Scope:
        """The request scope for in-process callers (tests, benches); the RPC groups use ``scopes``."""
        return self.scopes.resolve(user, project)

    async def warmed(self) -> None:
        """Wait until the warming that ``start()`` began is over (mirrors and their text indexes built)."""
        if self._warmer is not None:
            await asyncio.shield(self._warmer)

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
                await self.searcher.warm(owner, collection)  # the mirror, then its BM25 index and time cues
            log.info("mirrors warm: %d collections, %d rows", len(owners), self.store.mirrors.rows())
        except Exception:
            log.exception("warming the search mirrors failed")

    def watch_vector_model(self, info: ModelInfo) -> None:
        """Record the embedding service's model for the stored vectors, or name a switch (kernel.vector_model)."""

        async def watch() -> None:
            self.vector_model_problem = await watch_vector_model(self.settings.home, info)

        if self._model_watch is None:
            self._model_watch = asyncio.get_running_loop().create_task(watch(), name="memory-vector-model")

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
        for task in (self._sweeper, self._warmer, self._model_watch):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._sweeper = self._warmer = self._model_watch = None
        await self.intake.close()  # what it has not stored stays journaled for the next start
        await self.turn_writes.settle()
        await asyncio.to_thread(self.io.close)
        await asyncio.to_thread(self.state_db.close)


def build_servicer(memory: MemoryUseCases) -> MemoryServicer:
    """The gRPC servicer: each RPC group gets exactly the use cases it calls."""
    return MemoryServicer(
        PromptRpcs(memory.scopes, memory.prepare, memory.searcher, memory.turns, memory.scoring, memory.viewer),
        MemoryRpcs(memory.scopes, memory.writes, memory.reads, memory.restore),
        ViewerRpcs(memory.scopes, memory.viewer),
        AdminRpcs(
            memory.scopes,
            memory.maintenance,
            memory.consolidation,
            lifecycle=memory.settings.lifecycle,
            ranking=memory.settings.ranking,
        ),
        PortabilityRpcs(memory.scopes, memory.portability, memory.backfill, memory.books),
    )


def default_embedder(settings: MemorySettings) -> Embedder:
    return EmbeddingClient(channel(settings.embedding_addr), token=settings.token, timeout=settings.embed_timeout_s)


async def create_server(
    settings: MemorySettings, *, chroma: ChromaStore | None = None, embedder: Embedder | None = None
) -> RunningService[MemoryUseCases]:
    """Start the memory service: Chroma under ``settings.home`` (or ``settings.chroma_url``) unless
    ``chroma`` is given, the embedding service at ``settings.embedding_addr`` unless ``embedder`` is."""
    await asyncio.to_thread(open_home, settings.home)
    if chroma is None:
        client = await asyncio.to_thread(open_client, settings.home, settings.chroma_url)
        chroma = ChromaStore(client, None if settings.chroma_url else settings.home / "chroma")
    memory = MemoryUseCases(settings, chroma, embedder if embedder is not None else default_embedder(settings))
    await memory.start()
    if isinstance(memory.embedder, ModelInfo):
        memory.watch_vector_model(memory.embedder)
    servicer = build_servicer(memory)
    return await start_service(
        settings,
        memory,
        register=lambda server: memory_servicer.register(servicer, server),
        service_names=[SERVICE_NAME],
        errors=ERRORS,
        what="the memory service",
        health_check=lambda: store_health_problem(memory, chroma),
    )


def open_home(home: Path) -> None:
    """The home's memory store at today's schema (or refused), and no reembed left half done."""
    for step in home_schema.ensure_current(home, "memory"):
        log.warning("migrated the memory store in %s to schema %d: %s", home, step.version + 1, step.summary)
    vector_model.check_no_unfinished_reembed(home)


def store_health_problem(memory: MemoryUseCases, chroma: ChromaStore) -> str | None:
    """The health check's real read: Chroma (a count per collection), then state.db."""
    return chroma.health_problem() or sqlite_problem(memory.settings.state_path, "memory state store (state.db)")


def log_started(settings: MemorySettings, running: RunningService[MemoryUseCases]) -> None:
    log.info(
        "memory service on port %d (data in %s, retrieval %s)", running.port, settings.home, settings.retrieval_mode
    )


def main() -> None:
    """``python -m services.memory`` (MNEMEX_MEMORY_ADDR, MNEMEX_HOME, MNEMEX_TOKEN, ...)."""
    run_service(
        MemorySettings.from_env,
        create_server,
        log_started,
        env_name="MNEMEX_MEMORY_ADDR",
        what="memory service",
        one_blas_thread=True,  # the search mirrors: one matrix-vector product per collection and prompt
    )
