"""``MemoryCore``: every memory operation behind one async facade.

The gRPC servicer translates messages to these calls and back; benchmarks
and tests may also drive it directly. No grpc or chromadb imports here.
Operations live in small modules (writes, search, outcome_flow, books,
maintenance, portability); this class wires them to one ``Runtime`` and
runs the periodic lifecycle sweep.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Mapping, Sequence

from services.memory import (
    books,
    maintenance,
    outcome_flow,
    portability,
    search,
    writes,
)
from services.memory.errors import InvalidRequest
from services.memory.naming import Scope, check_id, make_scope
from services.memory.normalize import NormalizedMemory
from services.memory.outcomes import Outcome
from services.memory.runtime import Embedder, Runtime, limit_blas_threads
from services.memory.search_rules import SearchParams
from services.memory.session_state import MAX_SESSION_ID_CHARS, SessionState, Turn
from services.memory.settings import MemorySettings
from services.memory.store import ChromaStore
from services.memory.turn_writes import TurnWrites

log = logging.getLogger("mnemex.memory")
MAX_INJECTED_IDS = 200
MAX_PROMPT_CHARS = 20_000


# (scoring required, ids injected into the previous turn, that turn's exchange id)
ScoringState = tuple[bool, list[str], str]


def _scoring_state(turn: Turn | None) -> ScoringState:
    return (False, [], "") if turn is None else (True, turn.injected_ids, turn.exchange_id)


def check_session_id(session_id: str) -> str:
    value = session_id.strip()
    if len(value) > MAX_SESSION_ID_CHARS:
        raise InvalidRequest(f"session_id is longer than {MAX_SESSION_ID_CHARS} characters")
    return value


class MemoryCore:
    def __init__(self, settings: MemorySettings, store: ChromaStore, embedder: Embedder | None) -> None:
        limit_blas_threads()
        self.settings = settings
        self.rt = Runtime(settings, store, SessionState(settings.state_path), embedder)
        self._sweeper: asyncio.Task[None] | None = None
        self._warmer: asyncio.Task[None] | None = None
        self.turn_writes = TurnWrites()

    def scope(self, user: str, project: str) -> Scope:
        return make_scope(user, project, self.settings.default_user)

    # -- lifecycle of the service itself ------------------------------------------
    async def start(self) -> None:
        pruned = await maintenance.prune_logs(self.rt)
        if pruned:
            log.info("pruned %d exchange logs older than %s days", pruned, self.settings.lifecycle.exchange_log_ttl_days)
        if self._warmer is None:
            self._warmer = asyncio.get_running_loop().create_task(self._warm_mirrors(), name="memory-warm-mirrors")
        if self.settings.maintenance_interval_s > 0 and self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever(), name="memory-maintenance")

    async def _warm_mirrors(self) -> None:
        """Build every collection's mirror in the background, so the first prompt is fast too."""
        try:
            owners = await self.rt.io(self.rt.store.owner_scopes)
            for owner, collection in owners:
                await self.rt.io(self.rt.mirrors.warm, owner, collection)
            log.info("mirrors warm: %d collections, %d rows", len(owners), self.rt.mirrors.rows())
        except Exception:
            log.exception("warming the search mirrors failed")

    async def _sweep_forever(self) -> None:
        interval = self.settings.maintenance_interval_s
        await asyncio.sleep(min(interval, 30.0))
        while True:
            try:
                report = await maintenance.run_maintenance(self.rt, None)
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
        await self.turn_writes.settle()
        await asyncio.to_thread(self.rt.close)

    # -- memories ----------------------------------------------------------------------
    async def store(self, scope: Scope, **kwargs: object) -> tuple[NormalizedMemory, bool]:
        kwargs["session_id"] = check_session_id(str(kwargs.get("session_id", "")))
        result = await writes.store_memory(self.rt, scope, **kwargs)  # type: ignore[arg-type]
        return search.normalized(self.rt, result.memory), result.deduplicated

    async def search(self, scope: Scope, params: SearchParams, query_vector: bytes = b"") -> list[NormalizedMemory]:
        return await search.search(self.rt, scope, params, query_vector)

    async def get(self, scope: Scope, memory_id: str) -> NormalizedMemory:
        return await search.get_memory(self.rt, scope, memory_id)

    async def list_memories(self, scope: Scope, collection: str, **kwargs: object) -> tuple[list[NormalizedMemory], int]:
        return await search.list_memories(self.rt, scope, collection, **kwargs)  # type: ignore[arg-type]

    async def update(self, scope: Scope, memory_id: str, **kwargs: object) -> NormalizedMemory:
        memory = await writes.update_memory(self.rt, scope, memory_id, **kwargs)  # type: ignore[arg-type]
        return search.normalized(self.rt, memory)

    async def archive(self, scope: Scope, memory_id: str, reason: str) -> NormalizedMemory:
        return search.normalized(self.rt, await writes.archive_memory(self.rt, scope, memory_id, reason))

    # -- sessions and outcomes ------------------------------------------------------------
    async def score(
        self,
        scope: Scope,
        *,
        session_id: str,
        outcome: Outcome | None,
        memory_scores: Mapping[str, Outcome],
        related: Sequence[str] | None,
    ) -> outcome_flow.ScoreSummary:
        session_id = check_session_id(session_id)
        await self.turn_writes.settle(scope, session_id)
        return await outcome_flow.score(
            self.rt, scope, session_id=session_id, outcome=outcome, memory_scores=memory_scores, related=related
        )

    async def record_exchange(self, scope: Scope, session_id: str, user_text: str, assistant_text: str) -> str:
        session_id = check_session_id(session_id)
        await self.turn_writes.settle(scope, session_id)
        return await writes.record_exchange(self.rt, scope, session_id, user_text, assistant_text)

    async def scoring_state(self, scope: Scope, session_id: str) -> ScoringState:
        session_id = check_session_id(session_id)
        await self.turn_writes.settle(scope, session_id)
        return _scoring_state(await self.rt.io(self.rt.state.scoring_state, scope, session_id))

    async def record_injection(self, scope: Scope, session_id: str, ids: Sequence[str], prompt: str) -> None:
        session_id = check_session_id(session_id)
        await self.turn_writes.settle(scope, session_id)
        await self._record_injection(scope, session_id, ids, prompt)

    async def _record_injection(self, scope: Scope, session_id: str, ids: Sequence[str], prompt: str) -> None:
        """``session_id`` already checked."""
        if len(ids) > MAX_INJECTED_IDS:
            raise InvalidRequest(f"{len(ids)} ids given; record at most {MAX_INJECTED_IDS} per call")
        clean = [check_id(i) for i in ids]
        from kernel.privacy import redact

        await self.rt.io(
            self.rt.state.record_injection, scope, session_id, clean,
            redact(prompt[:MAX_PROMPT_CHARS]).strip(), self.rt.now().timestamp(),
        )

    async def prepare_context(
        self, scope: Scope, session_id: str, params: SearchParams | None, query_vector: bytes, prompt: str
    ) -> tuple[list[NormalizedMemory], ScoringState]:
        """The prompt hot path in one call: the session's scoring state (as it stood before
        this prompt), the search when ``params`` is given, and the record of what is injected
        now, written after the caller has its answer (``turn_writes`` keeps it in order)."""
        session_id = check_session_id(session_id)
        await self.turn_writes.settle(scope, session_id)
        # A read of about 30 microseconds under the session store's own lock: done inline, it
        # cannot queue behind Chroma writes in the I/O pool when many sessions are busy.
        state = _scoring_state(self.rt.state.scoring_state(scope, session_id))
        found = await search.search(self.rt, scope, params, query_vector) if params is not None else []
        self.turn_writes.defer(scope, session_id, self._record_injection(scope, session_id, [m.id for m in found], prompt))
        return found, state

    # -- books ------------------------------------------------------------------------------
    async def ingest_book(self, scope: Scope, **kwargs: object) -> books.IngestResult:
        return await books.ingest_book(self.rt, scope, **kwargs)  # type: ignore[arg-type]

    async def list_books(self, scope: Scope) -> list[books.BookInfo]:
        return await books.list_books(self.rt, scope)

    async def remove_book(self, scope: Scope, title: str) -> list[str]:
        return await books.remove_book(self.rt, scope, title)

    # -- upkeep and reporting -----------------------------------------------------------------
    async def stats(self, scope: Scope) -> maintenance.Stats:
        return await maintenance.stats(self.rt, scope)

    async def run_maintenance(self, scope: Scope | None) -> maintenance.SweepReport:
        return await maintenance.run_maintenance(self.rt, scope)

    async def list_scopes(self) -> list[tuple[Scope, dict[str, int]]]:
        return await maintenance.scope_counts(self.rt)

    def export(self, scope: Scope | None) -> AsyncIterator[str]:
        return portability.export_records(self.rt, scope)

    async def import_records(self, lines: AsyncIterator[str]) -> portability.ImportReport:
        return await portability.import_records(self.rt, lines)
