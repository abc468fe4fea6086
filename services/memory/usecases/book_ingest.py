"""Books: ingest (.txt, .md, .pdf) into the books collection, list, remove by title.

Size is checked before anything else. Text is redacted, chunked with
overlap and embedded with the title in front (so a chunk is found by its
book's subject too); each chunk keeps title, source, filename, position and
the file's content hash. Re-ingesting a title replaces its chunks (new
chunks are written before the old ones are deleted); with
``skip_if_unchanged`` an identical file is not re-embedded at all.

Chunks are embedded and stored ``EMBED_BATCH`` at a time (the next batch is
embedded while the current one is written), and ``on_progress(total, done)``
is called once the chunk count is known and after every stored batch. An
ingest that fails or is cancelled part way removes the chunks it wrote, so
the previous version of the book stays whole.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from kernel.blocking_io import BlockingIO
from kernel.privacy import redact
from services.memory.domain import timefmt
from services.memory.domain.arrays import Vector
from services.memory.domain.chunking import (
    Chunk,
    book_title,
    check_filename,
    check_size,
    chunk_text,
    detect_format,
    extract_text,
)
from services.memory.domain.memory_errors import InvalidRequest, MemoryNotFound
from services.memory.domain.naming import BOOKS, Scope, memory_id, new_uid
from services.memory.domain.record import MemoryRecord
from services.memory.retrieval.embedding_calls import Vectors
from services.memory.storage.keyed_locks import KeyedLocks
from services.memory.storage.memory_store import MemoryStore

EMBED_BATCH = 32  # chunks per embed + store step: one progress report each
Progress = Callable[[int, int], None]  # (chunks_total, chunks_done)


@dataclass(frozen=True)
class IngestResult:
    title: str
    chunks: int
    skipped_unchanged: bool
    ids: list[str]


@dataclass(frozen=True)
class BookInfo:
    title: str
    source: str
    chunks: int
    created_at: str
    content_hash: str


class Books:
    def __init__(
        self, store: MemoryStore, vectors: Vectors, locks: KeyedLocks, io: BlockingIO, *, clock: Callable[[], datetime]
    ) -> None:
        self._store = store
        self._vectors = vectors
        self._locks = locks
        self._io = io
        self._clock = clock

    async def _chunks_of(self, scope: Scope, title: str) -> list[MemoryRecord]:
        return [r for r in await self._store.scan(scope, BOOKS, content=False) if r.title == title]

    async def ingest(
        self,
        scope: Scope,
        *,
        title: str,
        source: str,
        data: bytes,
        filename: str,
        skip_if_unchanged: bool,
        on_progress: Progress | None = None,
    ) -> IngestResult:
        check_size(len(data))
        fmt = detect_format(check_filename(filename))
        name = redact(book_title(title, filename))
        if len(source) > 1000:
            raise InvalidRequest("source is longer than 1000 characters")
        digest = hashlib.sha256(data).hexdigest()
        report = on_progress or (lambda total, done: None)
        async with self._locks.hold(f"book:{scope.user}:{scope.project}:{name}"):
            previous = await self._chunks_of(scope, name)
            if skip_if_unchanged and previous and all(r.content_hash == digest for r in previous):
                return IngestResult(name, len(previous), True, [r.id for r in previous])
            text = await self._io.run(_extract_redacted, data, fmt)  # redacting a book takes seconds: off the loop
            chunks = chunk_text(text)
            now = self._clock()
            base = MemoryRecord(
                id="",
                collection=BOOKS,
                content="",
                created=now,
                updated_at=now,
                project=scope.project,
                title=name,
                source=redact(source.strip()),
                filename=redact(filename),
                content_hash=digest,
                kind="book",
                chunk_count=len(chunks),
            )
            report(len(chunks), 0)
            ids = await self._embed_and_store(scope, name, chunks, base, report)
            await self._store.delete_ids(scope, BOOKS, [old.id for old in previous])
            return IngestResult(name, len(chunks), False, ids)

    async def _embed_and_store(
        self, scope: Scope, name: str, chunks: list[Chunk], base: MemoryRecord, report: Progress
    ) -> list[str]:
        """Embed batch n+1 while batch n is written; on any failure, remove what this call wrote."""
        batches = [chunks[start : start + EMBED_BATCH] for start in range(0, len(chunks), EMBED_BATCH)]

        def embed(batch: list[Chunk]) -> asyncio.Task[Vector]:
            return asyncio.ensure_future(self._vectors.embed([f"{name}\n{c.text}" for c in batch]))

        ids: list[str] = []
        pending = embed(batches[0]) if batches else None
        adding: asyncio.Future[list[MemoryRecord]] | None = None
        try:
            for number, batch in enumerate(batches):
                assert pending is not None
                vectors = await pending
                pending = embed(batches[number + 1]) if number + 1 < len(batches) else None
                items = [
                    (replace(base, id=memory_id(BOOKS, new_uid()), content=c.text, chunk_index=c.index), v)
                    for c, v in zip(batch, vectors, strict=True)
                ]
                ids.extend(record.id for record, _ in items)  # before the write: a cancelled write may still land
                adding = asyncio.ensure_future(self._store.add(scope, items))
                await asyncio.shield(adding)
                report(len(chunks), len(ids))
            return ids
        except BaseException:
            if pending is not None:  # nobody waits for the next batch's vectors any more
                pending.add_done_callback(lambda t: t.cancelled() or t.exception())
                pending.cancel()
            if adding is not None and not adding.done():
                await asyncio.wait([adding])  # the write runs on an I/O thread; let it land, then undo it
            if ids:  # the previous version of the book stays whole
                await asyncio.shield(self._store.delete_ids(scope, BOOKS, ids))
            raise

    def _book_rows(self, scope: Scope) -> list[MemoryRecord]:
        """The books collection's active chunks, from its search mirror (a store scan of every
        chunk's metadata took 80 ms at 1,000 chunks on a busy machine; the mirror is in memory)."""
        with self._store.mirrors.read(scope, BOOKS) as mirror:
            return list(mirror.rows_since(None))

    async def list_books(self, scope: Scope) -> list[BookInfo]:
        grouped: dict[str, list[MemoryRecord]] = {}
        for record in await self._io.run(self._book_rows, scope):
            grouped.setdefault(record.title or "", []).append(record)
        books = []
        for title, chunks in grouped.items():
            first = min(chunks, key=lambda r: _iso(r.created))
            books.append(
                BookInfo(
                    title=title,
                    source=first.source or "",
                    chunks=len(chunks),
                    created_at=_iso(first.created),
                    content_hash=first.content_hash or "",
                )
            )
        return sorted(books, key=lambda b: b.title.lower())

    async def remove(self, scope: Scope, title: str) -> list[str]:
        name = redact(title.strip())  # titles are stored redacted: the same title finds its book
        if not name:
            raise InvalidRequest("title is empty: pass the title shown by ListBooks")
        async with self._locks.hold(f"book:{scope.user}:{scope.project}:{name}"):
            chunks = await self._chunks_of(scope, name)
            if not chunks:
                raise MemoryNotFound(f"no book titled {name!r} in this project: ListBooks shows the exact titles")
            await self._store.delete_ids(scope, BOOKS, [c.id for c in chunks])
            return [c.id for c in chunks]


def _iso(moment: datetime | None) -> str:
    return timefmt.to_iso(moment) if moment is not None else ""


def _extract_redacted(data: bytes, fmt: str) -> str:
    """A book's text with its secrets redacted: both take seconds on a large book, so they run on the pool."""
    return redact(extract_text(data, fmt))
