"""Operations on the library side of mnemex: books, the knowledge-graph view, stats, health.

A mixin of ``Operations`` (it relies on ``scopes`` and ``_opts`` there),
kept apart so each module stays small.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Any

import grpc

from gateway import convert, validation
from gateway.errors import NotFound
from gateway.rpc import call, translate
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

if TYPE_CHECKING:
    from gateway.backends import Backends

JSON = dict[str, Any]
log = logging.getLogger("mnemex.gateway.library")
INGEST_STREAM_TIMEOUT = 600.0  # a whole 10 MB book on a slow CPU; the progress events show it is alive


class LibraryOperations:
    if TYPE_CHECKING:  # provided by Operations
        backends: Backends

        def scopes(self, cwd: str | None) -> tuple[common_pb.Scope, common_pb.Scope]: ...
        def _opts(self, timeout: float | None = None) -> dict[str, Any]: ...

    # -- knowledge graph ---------------------------------------------------------
    async def kg_graph(self, *, cwd: str | None, entities: Sequence[str] | None = None, limit: int = 50) -> JSON:
        names = [validation.text(e, "entity", validation.MAX_ID_CHARS) for e in entities or () if e]
        validation.in_range(limit, "limit", (1, 500))
        request = kg_pb.GraphRequest(scope=self.scopes(cwd)[1], entities=names, limit=limit)
        reply = await call("kg", self.backends.kg.Graph(request, **self._opts()))
        return convert.graph_to_dict(reply)

    # -- books -------------------------------------------------------------------
    def _book_request(
        self, *, cwd: str | None, title: str, filename: str, data: bytes, source: str
    ) -> mem_pb.IngestBookRequest:
        validation.book_size(data)
        title = validation.text(title, "title", validation.MAX_TITLE_CHARS, required=True).strip()
        return mem_pb.IngestBookRequest(
            scope=self.scopes(cwd)[0],
            title=title,
            source=validation.text(source, "source", validation.MAX_TITLE_CHARS),
            data=data,
            filename=validation.text(filename, "filename", validation.MAX_TITLE_CHARS, required=True),
            skip_if_unchanged=True,
        )

    async def ingest_book(self, *, cwd: str | None, title: str, filename: str, data: bytes, source: str = "") -> JSON:
        request = self._book_request(cwd=cwd, title=title, filename=filename, data=data, source=source)
        reply = await call("memory", self.backends.memory.IngestBook(request, **self._opts(60.0)))
        return {
            "title": reply.title,
            "chunks": reply.chunks,
            "skipped_unchanged": reply.skipped_unchanged,
            "ids": list(reply.ids),
        }

    async def ingest_book_progress(
        self, *, cwd: str | None, title: str, filename: str, data: bytes, source: str = ""
    ) -> AsyncIterator[JSON]:
        """``ingest_book`` as events: ``progress`` ones while the chunks are embedded and stored, then
        ``result``. Bad input or a memory service that is down fails here, before the first event; a
        failure later ends the events with ``{"type": "error", "status": <HTTP status>, "error": ...}``."""
        book = self._book_request(cwd=cwd, title=title, filename=filename, data=data, source=source)
        stream = self.backends.memory.IngestBookStream(
            mem_pb.IngestBookStreamRequest(book=book), timeout=INGEST_STREAM_TIMEOUT, metadata=self.backends.metadata
        )
        first = await call("memory", stream.read())
        return _ingest_events(stream, first)

    async def list_books(self, *, cwd: str | None) -> JSON:
        reply = await call(
            "memory", self.backends.memory.ListBooks(mem_pb.ListBooksRequest(scope=self.scopes(cwd)[0]), **self._opts())
        )
        return {
            "books": [
                {
                    "title": b.title,
                    "source": b.source,
                    "chunks": b.chunks,
                    "created_at": b.created_at,
                    "content_hash": b.content_hash,
                }
                for b in reply.books
            ]
        }

    async def remove_book(self, *, cwd: str | None, title: str) -> JSON:
        title = validation.text(title, "title", validation.MAX_TITLE_CHARS, required=True).strip()
        mem_scope, kg_scope = self.scopes(cwd)
        missing = NotFound(
            f"no book titled {title!r} in this project: list titles with GET /api/books or `mnemex books`"
        )
        try:
            reply = await call(
                "memory",
                self.backends.memory.RemoveBook(
                    mem_pb.RemoveBookRequest(scope=mem_scope, title=title), **self._opts(30.0)
                ),
            )
        except NotFound:
            raise missing from None
        if reply.removed_chunks == 0:
            raise missing
        references = 0
        try:
            kg_reply = await self.backends.kg.RemoveDocs(
                kg_pb.RemoveDocsRequest(scope=kg_scope, doc_ids=list(reply.removed_ids)), **self._opts(5.0)
            )
            references = kg_reply.references_removed
        except grpc.aio.AioRpcError as exc:
            log.warning("kg RemoveDocs after removing %r failed: %s", title, exc.code().name)
        return {
            "title": title,
            "removed_chunks": reply.removed_chunks,
            "removed_ids": list(reply.removed_ids),
            "kg_references_removed": references,
        }

    # -- state -------------------------------------------------------------------
    async def stats(self, *, cwd: str | None) -> JSON:
        mem_scope, kg_scope = self.scopes(cwd)
        memory_r: mem_pb.StatsResponse | BaseException
        kg_r: kg_pb.StatsResponse | BaseException
        memory_r, kg_r = await asyncio.gather(
            call("memory", self.backends.memory.Stats(mem_pb.StatsRequest(scope=mem_scope), **self._opts())),
            call("kg", self.backends.kg.Stats(kg_pb.StatsRequest(scope=kg_scope), **self._opts())),
            return_exceptions=True,
        )
        if isinstance(memory_r, BaseException):
            raise memory_r
        return {
            "user": mem_scope.user,
            "project": mem_scope.project,
            "memory": {
                "counts": dict(memory_r.counts),
                "score_histogram": dict(memory_r.score_histogram),
                "events": dict(memory_r.events),
                "data_bytes": memory_r.data_bytes,
                "events_by_day": convert._json_object(memory_r.events_by_day_json),
            },
            "kg": {"counts": dict(kg_r.counts)} if not isinstance(kg_r, BaseException) else {"error": str(kg_r)},
        }

    async def health(self) -> JSON:
        services = await self.backends.health()
        ok = all(s["status"] == "SERVING" for s in services.values())
        return {"status": "ok" if ok else "degraded", "services": services}


def _ingest_event(message: mem_pb.IngestBookStreamResponse) -> JSON:
    if message.HasField("progress"):
        done = message.progress
        return {"type": "progress", "chunks_total": done.chunks_total, "chunks_done": done.chunks_done}
    result = message.result
    return {
        "type": "result",
        "title": result.title,
        "chunks": result.chunks,
        "skipped_unchanged": result.skipped_unchanged,
        "ids": list(result.ids),
    }


async def _ingest_events(stream: Any, first: Any) -> AsyncIterator[JSON]:
    message = first
    try:
        while message is not grpc.aio.EOF:
            yield _ingest_event(message)
            message = await stream.read()
    except grpc.aio.AioRpcError as exc:
        failure = translate("memory", exc)
        yield {"type": "error", "status": failure.http_status, "error": failure.message}
    finally:
        stream.cancel()  # a client that went away stops the ingest (no-op once it is complete)
