"""The memory servicer's book RPCs: IngestBook, IngestBookStream, ListBooks, RemoveBook.

A mixin of ``MemoryServicer`` (it relies on ``core`` and ``_scope`` there),
kept apart so each module stays small. IngestBookStream runs the same
ingest as IngestBook and streams ``on_progress`` reports as they happen.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import grpc

from kernel.grpc_runtime import abort_if_expired
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from services.memory.books import IngestResult, Progress
from services.memory.servicer_errors import DOMAIN_ERRORS, abort_for, translated

if TYPE_CHECKING:
    from services.memory.core import MemoryCore
    from services.memory.naming import Scope


def _result(result: IngestResult) -> pb.IngestBookResponse:
    return pb.IngestBookResponse(
        title=result.title, chunks=result.chunks, skipped_unchanged=result.skipped_unchanged, ids=result.ids
    )


class BookRpcs:
    if TYPE_CHECKING:  # provided by MemoryServicer
        core: MemoryCore

        def _scope(self, scope: common_pb.Scope) -> Scope: ...

    async def _ingest(self, request: pb.IngestBookRequest, on_progress: Progress | None = None) -> IngestResult:
        return await self.core.ingest_book(
            self._scope(request.scope),
            title=request.title,
            source=request.source,
            data=request.data,
            filename=request.filename,
            skip_if_unchanged=request.skip_if_unchanged,
            on_progress=on_progress,
        )

    @translated
    async def IngestBook(self, request: pb.IngestBookRequest, context: grpc.aio.ServicerContext) -> pb.IngestBookResponse:
        return _result(await self._ingest(request))

    async def IngestBookStream(
        self, request: pb.IngestBookStreamRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.IngestBookStreamResponse]:
        await abort_if_expired(context)
        updates: asyncio.Queue[tuple[int, int] | None] = asyncio.Queue()
        work = asyncio.ensure_future(self._ingest(request.book, lambda total, done: updates.put_nowait((total, done))))
        work.add_done_callback(lambda _: updates.put_nowait(None))
        try:
            while (update := await updates.get()) is not None:
                progress = pb.IngestBookProgress(chunks_total=update[0], chunks_done=update[1])
                yield pb.IngestBookStreamResponse(progress=progress)
            result = work.result()
        except DOMAIN_ERRORS as exc:
            await abort_for(exc, context)
            return
        finally:
            if not work.done():  # the caller went away: stop (the ingest removes what it wrote)
                work.cancel()
        yield pb.IngestBookStreamResponse(result=_result(result))

    @translated
    async def ListBooks(self, request: pb.ListBooksRequest, context: grpc.aio.ServicerContext) -> pb.ListBooksResponse:
        found = await self.core.list_books(self._scope(request.scope))
        return pb.ListBooksResponse(
            books=[
                pb.Book(title=b.title, source=b.source, chunks=b.chunks, created_at=b.created_at, content_hash=b.content_hash)
                for b in found
            ]
        )

    @translated
    async def RemoveBook(self, request: pb.RemoveBookRequest, context: grpc.aio.ServicerContext) -> pb.RemoveBookResponse:
        removed = await self.core.remove_book(self._scope(request.scope), request.title)
        return pb.RemoveBookResponse(removed_chunks=len(removed), removed_ids=removed)
