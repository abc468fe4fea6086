"""Books: ingest (.txt, .md, .pdf) into the books collection, list, remove by title.

Size is checked before anything else. Text is redacted, chunked with
overlap and embedded with the title in front (so a chunk is found by its
book's subject too); each chunk keeps title, source, filename, position and
the file's content hash. Re-ingesting a title replaces its chunks (new
chunks are written before the old ones are deleted); with
``skip_if_unchanged`` an identical file is not re-embedded at all.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from mnemex.privacy import redact
from services.memory import timefmt
from services.memory.chunking import (
    book_title,
    check_filename,
    check_size,
    chunk_text,
    detect_format,
    extract_text,
)
from services.memory.errors import InvalidRequest, MemoryNotFound
from services.memory.naming import BOOKS, Scope, memory_id, new_uid
from services.memory.runtime import Runtime
from services.memory.store import StoredMemory

WRITE_BATCH = 1000


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


async def _chunks_of(rt: Runtime, scope: Scope, title: str) -> list[StoredMemory]:
    rows = await rt.io(rt.store.scan, scope, BOOKS, documents=False)
    return [r for r in rows if r.metadata.get("title") == title]


async def ingest_book(
    rt: Runtime, scope: Scope, *, title: str, source: str, data: bytes, filename: str, skip_if_unchanged: bool
) -> IngestResult:
    check_size(len(data))
    fmt = detect_format(check_filename(filename))
    name = redact(book_title(title, filename))
    if len(source) > 1000:
        raise InvalidRequest("source is longer than 1000 characters")
    digest = hashlib.sha256(data).hexdigest()
    async with rt.locks.hold(f"book:{scope.user}:{scope.project}:{name}"):
        previous = await _chunks_of(rt, scope, name)
        if skip_if_unchanged and previous and all(r.metadata.get("content_hash") == digest for r in previous):
            return IngestResult(name, len(previous), True, [r.id for r in previous])
        text = redact(await rt.io(extract_text, data, fmt))
        chunks = chunk_text(text)
        now = rt.now()
        base = {
            "title": name,
            "source": redact(source.strip()),
            "filename": filename,
            "content_hash": digest,
            "kind": "book",
            "created_at": timefmt.to_iso(now),
            "created_ts": now.timestamp(),
            "updated_at": timefmt.to_iso(now),
            "project": scope.project,
            "archived": False,
            "tags": json.dumps([]),
            "chunk_count": len(chunks),
        }
        ids: list[str] = []
        for start in range(0, len(chunks), WRITE_BATCH):
            batch = chunks[start : start + WRITE_BATCH]
            vectors = await rt.embed([f"{name}\n{c.text}" for c in batch])
            memories = [
                StoredMemory(memory_id(BOOKS, new_uid()), BOOKS, c.text, {**base, "chunk_index": c.index}, v)
                for c, v in zip(batch, vectors, strict=True)
            ]
            await rt.add(scope, memories)
            ids.extend(m.id for m in memories)
        await rt.delete_ids(scope, BOOKS, [old.id for old in previous])
        return IngestResult(name, len(chunks), False, ids)


async def list_books(rt: Runtime, scope: Scope) -> list[BookInfo]:
    rows = await rt.io(rt.store.scan, scope, BOOKS, documents=False)
    grouped: dict[str, list[StoredMemory]] = {}
    for row in rows:
        grouped.setdefault(str(row.metadata.get("title") or ""), []).append(row)
    books = []
    for title, chunks in grouped.items():
        first = min(chunks, key=lambda r: str(r.metadata.get("created_at") or ""))
        books.append(
            BookInfo(
                title=title,
                source=str(first.metadata.get("source") or ""),
                chunks=len(chunks),
                created_at=str(first.metadata.get("created_at") or ""),
                content_hash=str(first.metadata.get("content_hash") or ""),
            )
        )
    return sorted(books, key=lambda b: b.title.lower())


async def remove_book(rt: Runtime, scope: Scope, title: str) -> list[str]:
    name = title.strip()
    if not name:
        raise InvalidRequest("title is empty: pass the title shown by ListBooks")
    async with rt.locks.hold(f"book:{scope.user}:{scope.project}:{name}"):
        chunks = await _chunks_of(rt, scope, name)
        if not chunks:
            raise MemoryNotFound(f"no book titled {name!r} in this project: ListBooks shows the exact titles")
        await rt.delete_ids(scope, BOOKS, [c.id for c in chunks])
        return [c.id for c in chunks]
