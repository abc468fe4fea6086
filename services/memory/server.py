"""gRPC servicer and entrypoint for the memory service.

    python -m services.memory

The servicer only translates: protobuf in, ``MemoryCore`` call, protobuf
out. Domain errors are mapped to status codes once, in ``servicer_errors``;
the book RPCs live in ``book_rpcs``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import grpc

from kernel import __version__, offline
from kernel.config import service_settings_or_exit
from kernel.grpc_runtime import channel, serve_until_signal, start_server
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1 import memory_service_pb2_grpc as pb_grpc
from services.memory import convert
from services.memory.book_rpcs import BookRpcs
from services.memory.core import MemoryCore
from services.memory.errors import EmbeddingUnavailable, InvalidRequest
from services.memory.naming import Scope
from services.memory.runtime import Embedder
from services.memory.search_rules import SearchParams, build_search_params
from services.memory.servicer_errors import translated
from services.memory.settings import MemorySettings
from services.memory.store import ChromaStore, open_client

log = logging.getLogger("mnemex.memory")
SERVICE_NAME = pb.DESCRIPTOR.services_by_name["MemoryService"].full_name


class MemoryServicer(BookRpcs, pb_grpc.MemoryServiceServicer):
    def __init__(self, core: MemoryCore) -> None:
        self.core = core

    def _scope(self, scope: common_pb.Scope) -> Scope:
        return self.core.scope(scope.user, scope.project)

    @staticmethod
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

    @translated
    async def Store(self, request: pb.StoreRequest, context: grpc.aio.ServicerContext) -> pb.StoreResponse:
        memory, deduplicated = await self.core.store(
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
            session_id=request.session_id,
        )
        return pb.StoreResponse(memory=convert.memory(memory), deduplicated=deduplicated)

    @translated
    async def Search(self, request: pb.SearchRequest, context: grpc.aio.ServicerContext) -> pb.SearchResponse:
        params = self._search_params(request)
        found = await self.core.search(self._scope(request.scope), params, request.query_vector)
        return pb.SearchResponse(memories=[convert.memory(m) for m in found])

    @translated
    async def PrepareContext(
        self, request: pb.PrepareContextRequest, context: grpc.aio.ServicerContext
    ) -> pb.PrepareContextResponse:
        params = self._search_params(request.search) if request.HasField("search") else None
        found, (required, ids, exchange_id) = await self.core.prepare_context(
            self._scope(request.scope), request.session_id, params, request.search.query_vector, request.prompt
        )
        return pb.PrepareContextResponse(
            memories=[convert.memory(m) for m in found],
            scoring_required=required,
            injected_ids=ids,
            exchange_id=exchange_id,
        )

    @translated
    async def Get(self, request: pb.GetRequest, context: grpc.aio.ServicerContext) -> pb.GetResponse:
        return pb.GetResponse(memory=convert.memory(await self.core.get(self._scope(request.scope), request.id)))

    @translated
    async def List(self, request: pb.ListRequest, context: grpc.aio.ServicerContext) -> pb.ListResponse:
        items, total = await self.core.list_memories(
            self._scope(request.scope),
            request.collection,
            limit=request.limit,
            offset=request.offset,
            include_archived=request.include_archived,
            sort_by=convert.sort_by(request.sort_by),
        )
        return pb.ListResponse(memories=[convert.memory(m) for m in items], total=total)

    @translated
    async def Update(self, request: pb.UpdateRequest, context: grpc.aio.ServicerContext) -> pb.UpdateResponse:
        memory = await self.core.update(
            self._scope(request.scope),
            request.id,
            content=request.content if request.HasField("content") else None,
            tags=list(request.tags),
            replace_tags=request.replace_tags,
            importance=request.importance if request.HasField("importance") else None,
            confidence=request.confidence if request.HasField("confidence") else None,
        )
        return pb.UpdateResponse(memory=convert.memory(memory))

    @translated
    async def Archive(self, request: pb.ArchiveRequest, context: grpc.aio.ServicerContext) -> pb.ArchiveResponse:
        memory = await self.core.archive(self._scope(request.scope), request.id, request.reason)
        return pb.ArchiveResponse(memory=convert.memory(memory))

    @translated
    async def Score(self, request: pb.ScoreRequest, context: grpc.aio.ServicerContext) -> pb.ScoreResponse:
        summary = await self.core.score(
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
        )

    @translated
    async def RecordExchange(
        self, request: pb.RecordExchangeRequest, context: grpc.aio.ServicerContext
    ) -> pb.RecordExchangeResponse:
        exchange_id = await self.core.record_exchange(
            self._scope(request.scope), request.session_id, request.user_text, request.assistant_text
        )
        return pb.RecordExchangeResponse(exchange_id=exchange_id)

    @translated
    async def GetScoringState(
        self, request: pb.GetScoringStateRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetScoringStateResponse:
        required, ids, exchange_id = await self.core.scoring_state(self._scope(request.scope), request.session_id)
        return pb.GetScoringStateResponse(scoring_required=required, injected_ids=ids, exchange_id=exchange_id)

    @translated
    async def RecordInjection(
        self, request: pb.RecordInjectionRequest, context: grpc.aio.ServicerContext
    ) -> pb.RecordInjectionResponse:
        await self.core.record_injection(self._scope(request.scope), request.session_id, list(request.ids), request.prompt)
        return pb.RecordInjectionResponse()

    @translated
    async def Stats(self, request: pb.StatsRequest, context: grpc.aio.ServicerContext) -> pb.StatsResponse:
        found = await self.core.stats(self._scope(request.scope))
        return pb.StatsResponse(
            counts=found.counts,
            score_histogram=found.score_histogram,
            events=found.events,
            data_bytes=found.data_bytes,
            events_by_day_json=found.events_by_day_json,
        )

    @translated
    async def RunMaintenance(
        self, request: pb.RunMaintenanceRequest, context: grpc.aio.ServicerContext
    ) -> pb.RunMaintenanceResponse:
        scope = self._scope(request.scope) if request.scope.user else None
        report = await self.core.run_maintenance(scope)
        return pb.RunMaintenanceResponse(
            promoted=report.promoted,
            demoted=report.demoted,
            deleted=report.deleted,
            expired=report.expired,
            exchanges_pruned=report.exchanges_pruned,
        )

    @translated
    async def ListScopes(self, request: pb.ListScopesRequest, context: grpc.aio.ServicerContext) -> pb.ListScopesResponse:
        found = await self.core.list_scopes()
        return pb.ListScopesResponse(
            scopes=[pb.ScopeInfo(scope=common_pb.Scope(user=s.user, project=s.project), counts=c) for s, c in found]
        )

    async def Export(self, request: pb.ExportRequest, context: grpc.aio.ServicerContext) -> AsyncIterator[pb.ExportResponse]:
        scope: Scope | None = None
        if request.scope.user:
            try:
                chosen = self._scope(request.scope)
            except InvalidRequest as exc:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
                return
            scope = chosen if request.scope.project else Scope(chosen.user, "")
        async for record in self.core.export(scope):
            yield pb.ExportResponse(record_json=record)

    async def Import(
        self, request_iterator: AsyncIterator[pb.ImportRequest], context: grpc.aio.ServicerContext
    ) -> pb.ImportResponse:
        async def lines() -> AsyncIterator[str]:
            async for item in request_iterator:
                yield item.record_json

        try:
            report = await self.core.import_records(lines())
        except EmbeddingUnavailable as exc:
            await context.abort(grpc.StatusCode.UNAVAILABLE, str(exc))
        return pb.ImportResponse(imported=report.imported, skipped_existing=report.skipped_existing, invalid=report.invalid)

    async def Info(self, request: pb.InfoRequest, context: grpc.aio.ServicerContext) -> pb.InfoResponse:
        return pb.InfoResponse(service="memory", version=__version__)


def default_embedder(settings: MemorySettings) -> Embedder:
    from services.embedding.client import EmbeddingClient

    return EmbeddingClient(channel(settings.embedding_addr), token=settings.token, timeout=settings.embed_timeout_s)


async def create_server(
    settings: MemorySettings, store: ChromaStore | None = None, embedder: Embedder | None = None
) -> tuple[grpc.aio.Server, int]:
    """Start the memory service; ``server.memory_core`` is the core (call its ``close()`` after stopping)."""
    if store is None:
        store = ChromaStore(await asyncio.to_thread(open_client, settings.home, settings.chroma_url))
    core = MemoryCore(settings, store, embedder if embedder is not None else default_embedder(settings))
    await core.start()
    servicer = MemoryServicer(core)
    server, port, health = await start_server(
        settings.address,
        lambda s: pb_grpc.add_MemoryServiceServicer_to_server(servicer, s),
        [SERVICE_NAME],
        token=settings.token,
        what="the memory service",
    )
    server.health = health  # type: ignore[attr-defined]
    server.memory_core = core  # type: ignore[attr-defined]
    return server, port


async def serve(settings: MemorySettings) -> None:
    server, port = await create_server(settings)
    core: MemoryCore = server.memory_core  # type: ignore[attr-defined]
    log.info("memory service on port %d (data in %s, retrieval %s)", port, settings.home, settings.retrieval_mode)
    await serve_until_signal(server, server.health, on_stop=[core.close])  # type: ignore[attr-defined]


def main() -> None:
    offline.apply()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    settings = service_settings_or_exit(  # before opening any data
        MemorySettings.from_env, lambda s: s.address, "MNEMEX_MEMORY_ADDR", "memory service"
    )
    asyncio.run(serve(settings))


if __name__ == "__main__":
    main()
