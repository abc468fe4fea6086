"""Books: the stored ones, one ingested or removed, and the events of a streamed ingest."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.replies.reply_json import JsonObject


@dataclass(frozen=True, slots=True)
class Book:
    title: str
    source: str
    chunks: int
    created_at: str
    content_hash: str

    def to_json(self) -> JsonObject:
        return {
            "title": self.title,
            "source": self.source,
            "chunks": self.chunks,
            "created_at": self.created_at,
            "content_hash": self.content_hash,
        }


@dataclass(frozen=True, slots=True)
class Books:
    books: tuple[Book, ...]

    def to_json(self) -> JsonObject:
        return {"books": [b.to_json() for b in self.books]}


@dataclass(frozen=True, slots=True)
class Ingested:
    title: str
    chunks: int
    skipped_unchanged: bool
    ids: tuple[str, ...]

    def to_json(self) -> JsonObject:
        return {
            "title": self.title,
            "chunks": self.chunks,
            "skipped_unchanged": self.skipped_unchanged,
            "ids": list(self.ids),
        }


@dataclass(frozen=True, slots=True)
class BookRemoved:
    title: str
    removed_chunks: int
    removed_ids: tuple[str, ...]
    kg_references_removed: int

    def to_json(self) -> JsonObject:
        return {
            "title": self.title,
            "removed_chunks": self.removed_chunks,
            "removed_ids": list(self.removed_ids),
            "kg_references_removed": self.kg_references_removed,
        }


@dataclass(frozen=True, slots=True)
class IngestProgress:
    chunks_total: int
    chunks_done: int

    def to_json(self) -> JsonObject:
        return {"type": "progress", "chunks_total": self.chunks_total, "chunks_done": self.chunks_done}


@dataclass(frozen=True, slots=True)
class IngestDone:
    result: Ingested

    def to_json(self) -> JsonObject:
        return {"type": "result", **self.result.to_json()}


@dataclass(frozen=True, slots=True)
class IngestFailed:
    status: int  # the HTTP status the failure maps to
    error: str

    def to_json(self) -> JsonObject:
        return {"type": "error", "status": self.status, "error": self.error}


IngestEvent = IngestProgress | IngestDone | IngestFailed  # one NDJSON line of a streamed ingest
