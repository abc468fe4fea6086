"""gRPC servicer and entrypoint for the memory service.

    python -m services.memory      (MNEMEX_MEMORY_ADDR, MNEMEX_HOME, MNEMEX_TOKEN, ...)

The servicer only translates: protobuf in, a use case of ``MemoryUseCases``
(``api.composition``), protobuf out. Deadlines and the mapping of domain
errors to status codes (``ERRORS``) are the scaffold's, done once for every
RPC (``kernel.grpc_service``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Iterable

import grpc

from kernel import __version__, logs, offline
from kernel.config import service_settings_or_exit
from kernel.embedding_client import EmbeddingClient
from kernel.grpc_call_policy import ErrorTable
from kernel.grpc_channel import channel
from kernel.grpc_service import RunningService, serve_until_signal, start_service
from kernel.sharding import NotThisShard
from kernel.store_health import sqlite_problem
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from services.memory.api import convert, viewer_convert
from services.memory.api.backfill import BackfillItem
from services.memory.api.books import IngestResult, Progress
from services.memory.api.composition import MemoryUseCases
from services.memory.api.rules import rules_response
from services.memory.api.session_turns import check_session_id
from services.memory.domain.browse import EVENT_KINDS, build_browse_query
from services.memory.domain.clients import check_client
from services.memory.domain.errors import EmbeddingUnavailable, InvalidRequest, LimitReached, MemoryNotFound
from services.memory.domain.naming import Scope
from services.memory.domain.search_params import SearchParams, build_search_params
from services.memory.retrieval.vectors import Embedder
from services.memory.settings import MemorySettings
from services.memory.storage.chroma_store import ChromaStore, open_client

log = logging.getLogger("mnemex.memory")
SERVICE_NAME = pb.DESCRIPTOR.services_by_name["MemoryService"].full_name
ERRORS: ErrorTable = {
    InvalidRequest: grpc.StatusCode.INVALID_ARGUMENT,
    MemoryNotFound: grpc.StatusCode.NOT_FOUND,
    LimitReached: grpc.StatusCode.FAILED_PRECONDITION,
    EmbeddingUnavailable: grpc.StatusCode.UNAVAILABLE,
    NotThisShard: grpc.StatusCode.FAILED_PRECONDITION,
}
Context = grpc.aio.ServicerContext


def _search_params(request: pb.SearchRequest) -> SearchParams:
    return build_search_params(
        query=request.query,
        has_vector=bool(request.query_vector),
        collections=list(request.collections),
        limit=request.limit,
        days_back=request.days_back,
        memory_id=request.id,
        sort_by=convert.sort_by(request.sort_by),
        filters_json=request.metadata_filters_json,
        collection_weights=dict(request.collection_weights),
        boost_ids=list(request.boost_ids),
    )


def _ingest_reply(result: IngestResult) -> pb.IngestBookResponse:
    return pb.IngestBookResponse(
        title=result.title, chunks=result.chunks, skipped_unchanged=result.skipped_unchanged, ids=result.ids
    )


class MemoryServicer(pb_grpc.MemoryServiceServicer):
    def __init__(self, memory: MemoryUseCases) -> None:
        self.memory = memory

    def _scope(self, scope: common_pb.Scope) -> Scope:
        return self.memory.scope(scope.user, scope.project)

    # -- memories ----------------------------------------------------------------------
    async def Store(self, request: pb.StoreRequest, context: Context) -> pb.StoreResponse:
        result = await self.memory.writes.store(
            self._scope(request.scope),
            collection=request.collection,
            content=request.content,
            vector=request.vector,
            tags=list(request.tags),
            importance=request.importance if request.HasField("importance") else None,
            confidence=request.confidence if request.HasField("confidence") else None,
            metadata_json=request.metadata_json,
            initial_outcome=convert.outcome(request.initial_outcome, "initial_outcome"),
            allow_duplicate=request.allow_duplicate,
            session_id=check_session_id(request.session_id),
            user_wide=request.user_wide,
        )
        return pb.StoreResponse(
            memory=convert.memory(result.memory),
            deduplicated=result.deduplicated,
            superseded_ids=list(result.superseded),
        )

    async def Search(self, request: pb.SearchRequest, context: Context) -> pb.SearchResponse:
        scope = self._scope(request.scope)  # the shard check comes before any other
        found = await self.memory.searcher.search(scope, _search_params(request), request.query_vector)
        return pb.SearchResponse(memories=[convert.memory(m) for m in found])

    async def PrepareContext(self, request: pb.PrepareContextRequest, context: Context) -> pb.PrepareContextResponse:
        params = _search_params(request.search) if request.HasField("search") else None
        scope = self._scope(request.scope)
        lessons = await self.memory.reads.find_many(scope, list(request.lesson_ids)) if request.lesson_ids else []
        prepared = await self.memory.prepare.select(
            scope,
            request.session_id,
            params,
            request.search.query_vector,
            request.prompt,
            also_injected=[m.id for m in lessons],
            beside=lessons,
            client=check_client(request.client),
        )
        required, ids, exchange_id = prepared.state
        return pb.PrepareContextResponse(
            memories=[convert.memory(m) for m in prepared.memories],
            scoring_required=required,
            injected_ids=ids,
            exchange_id=exchange_id,
            lessons=[convert.memory(m) for m in lessons],
            choices=[
                pb.ContextChoice(
                    id=c.id,
                    kept=c.kept,
                    reason=c.reason,
                    merged_ids=c.merged_ids,
                    relevance=c.relevance,
                    parts=viewer_convert.rank_parts(c.parts),
                )
                for c in prepared.choices
            ],
        )

    async def Get(self, request: pb.GetRequest, context: Context) -> pb.GetResponse:
        found = await self.memory.reads.get(self._scope(request.scope), request.id)
        return pb.GetResponse(memory=convert.memory(found))

    async def List(self, request: pb.ListRequest, context: Context) -> pb.ListResponse:
        items, total = await self.memory.reads.list_memories(
            self._scope(request.scope),
            request.collection,
            limit=request.limit,
            offset=request.offset,
            include_archived=request.include_archived,
            sort_by=convert.sort_by(request.sort_by),
        )
        return pb.ListResponse(memories=[convert.memory(m) for m in items], total=total)

    async def Update(self, request: pb.UpdateRequest, context: Context) -> pb.UpdateResponse:
        memory = await self.memory.writes.update(
            self._scope(request.scope),
            request.id,
            content=request.content if request.HasField("content") else None,
            tags=list(request.tags),
            replace_tags=request.replace_tags,
            importance=request.importance if request.HasField("importance") else None,
            confidence=request.confidence if request.HasField("confidence") else None,
        )
        return pb.UpdateResponse(memory=convert.memory(memory))

    async def Archive(self, request: pb.ArchiveRequest, context: Context) -> pb.ArchiveResponse:
        memory = await self.memory.writes.archive(self._scope(request.scope), request.id, request.reason)
        return pb.ArchiveResponse(memory=convert.memory(memory))

    # -- sessions and outcomes ------------------------------------------------------------
    async def Score(self, request: pb.ScoreRequest, context: Context) -> pb.ScoreResponse:
        summary = await self.memory.scoring.score(
            self._scope(request.scope),
            session_id=request.session_id,
            outcome=convert.outcome(request.outcome),
            memory_scores=convert.memory_scores(request.memory_scores),
            related=list(request.related.ids) if request.HasField("related") else None,
        )
        return pb.ScoreResponse(
            scored=[convert.scored(s) for s in summary.scored],
            exchange_id=summary.exchange_id,
            not_found=summary.not_found,
            collections=summary.collections,
            prompt=summary.prompt,
            session_id=summary.session_id,
        )

    async def RecordExchange(self, request: pb.RecordExchangeRequest, context: Context) -> pb.RecordExchangeResponse:
        scope = self._scope(request.scope)
        check_client(request.client)  # refused before anything is written
        exchange_id = await self.memory.turns.record_exchange_once(
            scope, request.session_id, request.turn_key, request.user_text, request.assistant_text
        )
        await self.memory.viewer.record_client(scope, request.session_id, request.client)
        if exchange_id is None:
            return pb.RecordExchangeResponse(already_recorded=True)
        return pb.RecordExchangeResponse(exchange_id=exchange_id)

    async def Backfill(self, request: pb.BackfillRequest, context: Context) -> pb.BackfillResponse:
        def items(messages: Iterable[pb.BackfillItem]) -> list[BackfillItem]:
            return [
                BackfillItem(
                    scope=self._scope(m.scope),
                    id=m.id,
                    session_id=m.session_id,
                    created_at=m.created_at,
                    user_text=m.user_text,
                    assistant_text=m.assistant_text,
                    content=m.content,
                    metadata_json=m.metadata_json,
                )
                for m in messages
            ]

        report = await self.memory.backfill.run(
            items(request.exchanges), items(request.observations), dry_run=request.dry_run
        )
        return pb.BackfillResponse(
            stored_ids=report.stored_ids, existing_ids=report.existing_ids, empty_ids=report.empty_ids
        )

    async def GetScoringState(self, request: pb.GetScoringStateRequest, context: Context) -> pb.GetScoringStateResponse:
        required, ids, exchange_id = await self.memory.turns.scoring_state(
            self._scope(request.scope), request.session_id
        )
        return pb.GetScoringStateResponse(scoring_required=required, injected_ids=ids, exchange_id=exchange_id)

    async def RecordInjection(self, request: pb.RecordInjectionRequest, context: Context) -> pb.RecordInjectionResponse:
        scope = self._scope(request.scope)
        check_client(request.client)  # refused before anything is written
        await self.memory.turns.record_injection(scope, request.session_id, list(request.ids), request.prompt)
        await self.memory.viewer.record_client(scope, request.session_id, request.client)
        return pb.RecordInjectionResponse()

    # -- books ------------------------------------------------------------------------------
    async def _ingest(self, request: pb.IngestBookRequest, on_progress: Progress | None = None) -> IngestResult:
        return await self.memory.books.ingest(
            self._scope(request.scope),
            title=request.title,
            source=request.source,
            data=request.data,
            filename=request.filename,
            skip_if_unchanged=request.skip_if_unchanged,
            on_progress=on_progress,
        )

    async def IngestBook(self, request: pb.IngestBookRequest, context: Context) -> pb.IngestBookResponse:
        return _ingest_reply(await self._ingest(request))

    async def IngestBookStream(
        self, request: pb.IngestBookStreamRequest, context: Context
    ) -> AsyncIterator[pb.IngestBookStreamResponse]:
        """The same ingest as IngestBook, with a progress message after every stored batch."""
        updates: asyncio.Queue[tuple[int, int] | None] = asyncio.Queue()
        work = asyncio.ensure_future(self._ingest(request.book, lambda total, done: updates.put_nowait((total, done))))
        work.add_done_callback(lambda _: updates.put_nowait(None))
        try:
            while (update := await updates.get()) is not None:
                progress = pb.IngestBookProgress(chunks_total=update[0], chunks_done=update[1])
                yield pb.IngestBookStreamResponse(progress=progress)
            result = work.result()
        finally:
            if not work.done():  # the caller went away: stop (the ingest removes what it wrote)
                work.cancel()
        yield pb.IngestBookStreamResponse(result=_ingest_reply(result))

    async def ListBooks(self, request: pb.ListBooksRequest, context: Context) -> pb.ListBooksResponse:
        found = await self.memory.books.list_books(self._scope(request.scope))
        return pb.ListBooksResponse(
            books=[
                pb.Book(
                    title=b.title,
                    source=b.source,
                    chunks=b.chunks,
                    created_at=b.created_at,
                    content_hash=b.content_hash,
                )
                for b in found
            ]
        )

    async def RemoveBook(self, request: pb.RemoveBookRequest, context: Context) -> pb.RemoveBookResponse:
        removed = await self.memory.books.remove(self._scope(request.scope), request.title)
        return pb.RemoveBookResponse(removed_chunks=len(removed), removed_ids=removed)

    # -- upkeep, reporting, portability ---------------------------------------------------------
    async def Stats(self, request: pb.StatsRequest, context: Context) -> pb.StatsResponse:
        found = await self.memory.maintenance.stats(self._scope(request.scope))
        return pb.StatsResponse(
            counts=found.counts,
            score_histogram=found.score_histogram,
            events=found.events,
            data_bytes=found.data_bytes,
            events_by_day_json=found.events_by_day_json,
        )

    async def RunMaintenance(self, request: pb.RunMaintenanceRequest, context: Context) -> pb.RunMaintenanceResponse:
        scope = self._scope(request.scope) if request.scope.user else None
        report = await self.memory.maintenance.run(scope)
        return pb.RunMaintenanceResponse(
            promoted=report.promoted,
            demoted=report.demoted,
            deleted=report.deleted,
            expired=report.expired,
            exchanges_pruned=report.exchanges_pruned,
            observations_compacted=report.observations_compacted,
        )

    async def ListScopes(self, request: pb.ListScopesRequest, context: Context) -> pb.ListScopesResponse:
        found = await self.memory.maintenance.scope_counts()
        return pb.ListScopesResponse(
            scopes=[pb.ScopeInfo(scope=common_pb.Scope(user=s.user, project=s.project), counts=c) for s, c in found]
        )

    async def Export(self, request: pb.ExportRequest, context: Context) -> AsyncIterator[pb.ExportResponse]:
        scope: Scope | None = None
        if request.scope.user:
            chosen = self._scope(request.scope)
            scope = chosen if request.scope.project else Scope(chosen.user, "")
        async for record in self.memory.portability.export(scope):
            yield pb.ExportResponse(record_json=record)

    async def Import(self, request_iterator: AsyncIterator[pb.ImportRequest], context: Context) -> pb.ImportResponse:
        async def lines() -> AsyncIterator[str]:
            async for item in request_iterator:
                yield item.record_json

        report = await self.memory.portability.import_records(lines())
        return pb.ImportResponse(
            imported=report.imported, skipped_existing=report.skipped_existing, invalid=report.invalid
        )

    async def Info(self, request: pb.InfoRequest, context: Context) -> pb.InfoResponse:
        return pb.InfoResponse(service="memory", version=__version__)

    async def GetRules(self, request: pb.GetRulesRequest, context: Context) -> pb.GetRulesResponse:
        return rules_response(self.memory.settings.lifecycle, self.memory.settings.ranking)

    # -- consolidation (the assistant decides; see api/consolidation.py) ------------------------
    async def FindConsolidationCandidates(
        self, request: pb.FindConsolidationCandidatesRequest, context: Context
    ) -> pb.FindConsolidationCandidatesResponse:
        clusters, scanned = await self.memory.consolidation.candidates(
            self._scope(request.scope), list(request.kinds), request.limit
        )
        return pb.FindConsolidationCandidatesResponse(
            clusters=[
                pb.ConsolidationCluster(
                    kind=c.kind,
                    reason=c.reason,
                    similarity=c.similarity,
                    memories=[convert.memory(m) for m in c.memories],
                )
                for c in clusters
            ],
            scanned=scanned,
        )

    async def Consolidate(self, request: pb.ConsolidateRequest, context: Context) -> pb.ConsolidateResponse:
        merge = await self.memory.consolidation.consolidate(
            self._scope(request.scope),
            source_ids=list(request.source_ids),
            content=request.content,
            collection=request.collection,
            tags=list(request.tags),
            importance=request.importance if request.HasField("importance") else None,
            confidence=request.confidence if request.HasField("confidence") else None,
            reason=request.reason,
        )
        return pb.ConsolidateResponse(
            merged=convert.memory(merge.merged), archived=[convert.memory(m) for m in merge.archived]
        )

    async def UndoConsolidation(
        self, request: pb.UndoConsolidationRequest, context: Context
    ) -> pb.UndoConsolidationResponse:
        undo = await self.memory.consolidation.undo(self._scope(request.scope), request.id)
        return pb.UndoConsolidationResponse(
            restored=[convert.memory(m) for m in undo.restored], merged=convert.memory(undo.merged)
        )

    # -- the web viewer -------------------------------------------------------------------------
    async def Browse(self, request: pb.BrowseRequest, context: Context) -> pb.BrowseResponse:
        query = build_browse_query(
            collections=list(request.collections),
            tag=request.tag,
            sort=request.sort,
            archived=request.archived,
            limit=request.limit,
            offset=request.offset,
            kind=request.kind,
        )
        shown, total, tags = await self.memory.viewer.browse(self._scope(request.scope), query)
        return pb.BrowseResponse(memories=[convert.memory(m) for m in shown], total=total, tags=tags)

    async def Restore(self, request: pb.RestoreRequest, context: Context) -> pb.RestoreResponse:
        memory = await self.memory.restore.restore(self._scope(request.scope), request.id)
        return pb.RestoreResponse(memory=convert.memory(memory))

    async def ListSessions(self, request: pb.ListSessionsRequest, context: Context) -> pb.ListSessionsResponse:
        found = await self.memory.viewer.sessions(self._scope(request.scope), request.limit)
        return pb.ListSessionsResponse(sessions=[viewer_convert.session(s) for s in found])

    async def ListTurns(self, request: pb.ListTurnsRequest, context: Context) -> pb.ListTurnsResponse:
        scope = self._scope(request.scope)
        found = await self.memory.viewer.turns(
            scope, session_id=request.session_id, memory_id=request.memory_id, limit=request.limit
        )
        writer = await self.memory.viewer.written_by(scope, request.memory_id) if request.memory_id else ""
        return pb.ListTurnsResponse(turns=[viewer_convert.turn(t) for t in found], written_by=writer)

    async def Overview(self, request: pb.OverviewRequest, context: Context) -> pb.OverviewResponse:
        found = await self.memory.viewer.overview(self._scope(request.scope))
        return pb.OverviewResponse(
            counts=found.counts,
            score_histogram=found.score_histogram,
            events={kind: found.events.get(kind, 0) for kind in EVENT_KINDS},
            events_by_day_json=json.dumps(found.events_by_day, sort_keys=True),
        )

    async def OutcomeLog(self, request: pb.OutcomeLogRequest, context: Context) -> pb.OutcomeLogResponse:
        found = await self.memory.viewer.outcome_log(self._scope(request.scope), request.memory_id, request.limit)
        return pb.OutcomeLogResponse(entries=[viewer_convert.outcome_entry(o) for o in found])


def default_embedder(settings: MemorySettings) -> Embedder:
    return EmbeddingClient(channel(settings.embedding_addr), token=settings.token, timeout=settings.embed_timeout_s)


async def create_server(
    settings: MemorySettings, *, chroma: ChromaStore | None = None, embedder: Embedder | None = None
) -> RunningService[MemoryUseCases]:
    """Start the memory service: Chroma under ``settings.home`` (or ``settings.chroma_url``) unless
    ``chroma`` is given, the embedding service at ``settings.embedding_addr`` unless ``embedder`` is."""
    if chroma is None:
        client = await asyncio.to_thread(open_client, settings.home, settings.chroma_url)
        chroma = ChromaStore(client, None if settings.chroma_url else settings.home / "chroma")
    memory = MemoryUseCases(settings, chroma, embedder if embedder is not None else default_embedder(settings))
    await memory.start()
    servicer = MemoryServicer(memory)
    return await start_service(
        settings,
        memory,
        register=lambda server: pb_grpc.add_MemoryServiceServicer_to_server(servicer, server),
        service_names=[SERVICE_NAME],
        errors=ERRORS,
        what="the memory service",
        health_check=lambda: store_health_problem(memory, chroma),
    )


def store_health_problem(memory: MemoryUseCases, chroma: ChromaStore) -> str | None:
    """The health check's real read: Chroma (a count per collection), then state.db."""
    return chroma.health_problem() or sqlite_problem(memory.settings.state_path, "memory state store (state.db)")


async def serve(settings: MemorySettings) -> None:
    running = await create_server(settings)
    log.info(
        "memory service on port %d (data in %s, retrieval %s)", running.port, settings.home, settings.retrieval_mode
    )
    await serve_until_signal(running)


def main() -> None:
    offline.apply()
    logs.configure()
    settings = service_settings_or_exit(  # before opening any data
        MemorySettings.from_env, lambda s: s.address, "MNEMEX_MEMORY_ADDR", "memory service"
    )
    asyncio.run(serve(settings))


if __name__ == "__main__":
    main()
