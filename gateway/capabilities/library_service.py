"""The library side of mnemex: books (ingest, list, remove), the knowledge-graph view and the scope's stats."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence

import grpc

from gateway import input_validation
from gateway.caller import Caller
from gateway.gateway_errors import NotFound
from gateway.replies.book_replies import (
    Book,
    BookRemoved,
    Books,
    IngestDone,
    Ingested,
    IngestEvent,
    IngestFailed,
    IngestProgress,
)
from gateway.replies.kg_replies import KgGraph
from gateway.replies.reply_json import json_object
from gateway.replies.system_replies import MemoryStats, ProjectStats
from gateway.rpc import Rpc, translate
from kernel.config import Settings
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

log = logging.getLogger("mnemex.gateway.library")
INGEST_TIMEOUT = 60.0
INGEST_STREAM_TIMEOUT = 600.0  # a whole 10 MB book on a slow CPU; the progress events show it is alive
REMOVE_TIMEOUT = 30.0
KG_REMOVE_TIMEOUT = 5.0


class LibraryService:
    def __init__(self, rpc: Rpc, settings: Settings) -> None:
        self.rpc = rpc
        self.settings = settings

    # -- knowledge graph ---------------------------------------------------------
    async def graph(self, caller: Caller, *, entities: Sequence[str] | None = None, limit: int = 50) -> KgGraph:
        names = [input_validation.text(e, "entity", input_validation.MAX_ID_CHARS) for e in entities or () if e]
        input_validation.in_range(limit, "limit", (1, 500))
        request = kg_pb.GraphRequest(scope=caller.scope, entities=names, limit=limit)
        reply: kg_pb.GraphResponse = await self.rpc.unary("kg", self.rpc.kg(caller.user).Graph, request)
        return KgGraph.from_proto(reply)

    # -- books -------------------------------------------------------------------
    def _book_request(
        self, caller: Caller, *, title: str, filename: str, data: bytes, source: str
    ) -> mem_pb.IngestBookRequest:
        input_validation.book_size(data)
        title = input_validation.text(title, "title", input_validation.MAX_TITLE_CHARS, required=True).strip()
        return mem_pb.IngestBookRequest(
            scope=caller.scope,
            title=title,
            source=input_validation.text(source, "source", input_validation.MAX_TITLE_CHARS),
            data=data,
            filename=input_validation.text(filename, "filename", input_validation.MAX_TITLE_CHARS, required=True),
            skip_if_unchanged=True,
        )

    async def ingest_book(
        self, caller: Caller, *, title: str, filename: str, data: bytes, source: str = ""
    ) -> Ingested:
        request = self._book_request(caller, title=title, filename=filename, data=data, source=source)
        reply: mem_pb.IngestBookResponse = await self.rpc.unary(
            "memory", self.rpc.memory(caller.user).IngestBook, request, INGEST_TIMEOUT
        )
        return Ingested(
            title=reply.title, chunks=reply.chunks, skipped_unchanged=reply.skipped_unchanged, ids=tuple(reply.ids)
        )

    async def ingest_progress(
        self, caller: Caller, *, title: str, filename: str, data: bytes, source: str = ""
    ) -> AsyncIterator[IngestEvent]:
        """``ingest_book`` as events: ``progress`` ones while the chunks are embedded and stored, then
        ``result``. Bad input or a memory service that is down fails here, before the first event; a
        failure later ends the events with ``{"type": "error", "status": <HTTP status>, "error": ...}``."""
        book = self._book_request(caller, title=title, filename=filename, data=data, source=source)
        stream = self.rpc.stream(
            self.rpc.memory(caller.user).IngestBookStream,
            mem_pb.IngestBookStreamRequest(book=book),
            INGEST_STREAM_TIMEOUT,
        )
        first = await self.rpc.translated("memory", stream.read())
        return _ingest_events(stream, first)

    async def books(self, caller: Caller) -> Books:
        request = mem_pb.ListBooksRequest(scope=caller.scope)
        reply: mem_pb.ListBooksResponse = await self.rpc.unary(
            "memory", self.rpc.memory(caller.user).ListBooks, request
        )
        return Books(tuple(Book(b.title, b.source, b.chunks, b.created_at, b.content_hash) for b in reply.books))

    async def remove(self, caller: Caller, *, title: str) -> BookRemoved:
        title = input_validation.text(title, "title", input_validation.MAX_TITLE_CHARS, required=True).strip()
        missing = NotFound(
            f"no book titled {title!r} in this project: list titles with GET /api/books or `mnemex books`"
        )
        try:
            reply: mem_pb.RemoveBookResponse = await self.rpc.unary(
                "memory",
                self.rpc.memory(caller.user).RemoveBook,
                mem_pb.RemoveBookRequest(scope=caller.scope, title=title),
                REMOVE_TIMEOUT,
            )
        except NotFound:
            raise missing from None
        if reply.removed_chunks == 0:
            raise missing
        references = 0
        try:
            request = kg_pb.RemoveDocsRequest(scope=caller.scope, doc_ids=list(reply.removed_ids))
            kg_reply: kg_pb.RemoveDocsResponse = await self.rpc.call(
                self.rpc.kg(caller.user).RemoveDocs, request, KG_REMOVE_TIMEOUT
            )
            references = kg_reply.references_removed
        except grpc.aio.AioRpcError as exc:
            log.warning("kg RemoveDocs after removing %r failed: %s", title, exc.code().name)
        return BookRemoved(
            title=title,
            removed_chunks=reply.removed_chunks,
            removed_ids=tuple(reply.removed_ids),
            kg_references_removed=references,
        )

    # -- state -------------------------------------------------------------------
    async def stats(self, caller: Caller) -> ProjectStats:
        scope = caller.scope
        memory_stats = self.rpc.unary("memory", self.rpc.memory(caller.user).Stats, mem_pb.StatsRequest(scope=scope))
        kg_stats = self.rpc.unary("kg", self.rpc.kg(caller.user).Stats, kg_pb.StatsRequest(scope=scope))
        memory_r, kg_r = await asyncio.gather(memory_stats, kg_stats, return_exceptions=True)
        if isinstance(memory_r, BaseException):
            raise memory_r
        memory = MemoryStats(
            counts=dict(memory_r.counts),
            score_histogram=dict(memory_r.score_histogram),
            events=dict(memory_r.events),
            data_bytes=memory_r.data_bytes,
            events_by_day=json_object(memory_r.events_by_day_json),
        )
        if isinstance(kg_r, BaseException):
            return ProjectStats(scope.user, scope.project, memory, kg_counts=None, kg_error=str(kg_r))
        return ProjectStats(scope.user, scope.project, memory, kg_counts=dict(kg_r.counts))


def _ingest_event(message: mem_pb.IngestBookStreamResponse) -> IngestEvent:
    if message.HasField("progress"):
        return IngestProgress(message.progress.chunks_total, message.progress.chunks_done)
    result = message.result
    return IngestDone(Ingested(result.title, result.chunks, result.skipped_unchanged, tuple(result.ids)))


async def _ingest_events(
    stream: grpc.aio.UnaryStreamCall[mem_pb.IngestBookStreamRequest, mem_pb.IngestBookStreamResponse],
    first: object,
) -> AsyncIterator[IngestEvent]:
    """The stream's messages as events (``first`` already read); ends at the stream's EOF."""
    message = first
    try:
        while isinstance(message, mem_pb.IngestBookStreamResponse):  # else the stream's EOF
            yield _ingest_event(message)
            message = await stream.read()
    except grpc.aio.AioRpcError as exc:
        failure = translate("memory", exc)
        yield IngestFailed(failure.http_status, failure.message)
    finally:
        stream.cancel()  # a client that went away stops the ingest (no-op once it is complete)
