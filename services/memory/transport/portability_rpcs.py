"""Bulk data in and out: Export, Import, Backfill, and books (IngestBook, IngestBookStream, ListBooks, RemoveBook).

Translation only: each RPC checks its scope, calls one use case and converts the reply.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable

from kernel.grpc_hosting import RpcContext
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from services.memory.domain.naming import Scope
from services.memory.transport import memory_protos as protos
from services.memory.usecases.book_ingest import Books, IngestResult, Progress
from services.memory.usecases.exchange_backfill import Backfill, BackfillItem
from services.memory.usecases.portability import Portability
from services.memory.usecases.request_scopes import RequestScopes


def _ingest_reply(result: IngestResult) -> pb.IngestBookResponse:
    return pb.IngestBookResponse(
        title=result.title, chunks=result.chunks, skipped_unchanged=result.skipped_unchanged, ids=result.ids
    )


class PortabilityRpcs:
    def __init__(self, scopes: RequestScopes, portability: Portability, backfill: Backfill, books: Books) -> None:
        self._scopes = scopes
        self._portability = portability
        self._backfill = backfill
        self._books = books

    async def Export(self, request: pb.ExportRequest, context: RpcContext) -> AsyncIterator[pb.ExportResponse]:
        scope: Scope | None = None
        if request.scope.user:
            chosen = protos.scope(self._scopes, request.scope)
            scope = chosen if request.scope.project else Scope(chosen.user, "")
        async for record in self._portability.export(scope):
            yield pb.ExportResponse(record_json=record)

    async def Import(self, request_iterator: AsyncIterator[pb.ImportRequest], context: RpcContext) -> pb.ImportResponse:
        async def lines() -> AsyncIterator[str]:
            async for item in request_iterator:
                yield item.record_json

        report = await self._portability.import_records(lines())
        return pb.ImportResponse(
            imported=report.imported, skipped_existing=report.skipped_existing, invalid=report.invalid
        )

    async def Backfill(self, request: pb.BackfillRequest, context: RpcContext) -> pb.BackfillResponse:
        def items(messages: Iterable[pb.BackfillItem]) -> list[BackfillItem]:
            return [
                BackfillItem(
                    scope=protos.scope(self._scopes, m.scope),
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

        report = await self._backfill.run(
            items(request.exchanges), items(request.observations), dry_run=request.dry_run
        )
        return pb.BackfillResponse(
            stored_ids=report.stored_ids, existing_ids=report.existing_ids, empty_ids=report.empty_ids
        )

    async def _ingest(self, request: pb.IngestBookRequest, on_progress: Progress | None = None) -> IngestResult:
        return await self._books.ingest(
            protos.scope(self._scopes, request.scope),
            title=request.title,
            source=request.source,
            data=request.data,
            filename=request.filename,
            skip_if_unchanged=request.skip_if_unchanged,
            on_progress=on_progress,
        )

    async def IngestBook(self, request: pb.IngestBookRequest, context: RpcContext) -> pb.IngestBookResponse:
        return _ingest_reply(await self._ingest(request))

    async def IngestBookStream(
        self, request: pb.IngestBookStreamRequest, context: RpcContext
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

    async def ListBooks(self, request: pb.ListBooksRequest, context: RpcContext) -> pb.ListBooksResponse:
        found = await self._books.list_books(protos.scope(self._scopes, request.scope))
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

    async def RemoveBook(self, request: pb.RemoveBookRequest, context: RpcContext) -> pb.RemoveBookResponse:
        removed = await self._books.remove(protos.scope(self._scopes, request.scope), request.title)
        return pb.RemoveBookResponse(removed_chunks=len(removed), removed_ids=removed)
