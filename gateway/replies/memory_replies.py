"""Memories as the gateway hands them on: a stored memory (``Memory``), a search's hits, a memory_bank
fact as stored, and a memory after an update or an archive.

The wire shapes are the ones clients have always read: a memory_bank memory carries ``importance`` and
``confidence`` (null when unset), other collections do not; ``embedding_similarity`` and
``final_rank_score`` appear only when the search computed them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from gateway.replies.reply_json import JsonObject, json_object
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb


@dataclass(frozen=True, slots=True)
class Memory:
    """The normalized memory shared by REST, MCP, the viewer and the CLI."""

    id: str
    collection: str
    content: str
    created_at: str = ""
    age: str = ""
    score: float = 0.0
    wilson_score: float = 0.0
    uses: int = 0
    success_count: float = 0.0
    learned_score: float = 0.0
    last_outcome: str = ""
    outcome_history: str = ""
    tags: tuple[str, ...] = ()
    metadata: Mapping[str, object] | None = None
    project: str = ""
    archived: bool = False
    worked_count: int = 0
    partial_count: int = 0
    failed_count: int = 0
    importance: float | None = None  # memory_bank only
    confidence: float | None = None  # memory_bank only
    embedding_similarity: float | None = None  # when a query was embedded
    final_rank_score: float | None = None  # when the ranking ran

    @classmethod
    def from_proto(cls, memory: mem_pb.Memory) -> Memory:
        bank = memory.collection == "memory_bank"
        return cls(
            id=memory.id,
            collection=memory.collection,
            content=memory.content,
            created_at=memory.created_at,
            age=memory.age,
            score=round(memory.score, 4),
            wilson_score=round(memory.wilson_score, 4),
            uses=memory.uses,
            success_count=memory.success_count,
            learned_score=round(memory.learned_score, 4),
            last_outcome=memory.last_outcome,
            outcome_history=memory.outcome_history,
            tags=tuple(memory.tags),
            metadata=json_object(memory.metadata_json),
            project=memory.project,
            archived=memory.archived,
            worked_count=memory.worked_count,
            partial_count=memory.partial_count,
            failed_count=memory.failed_count,
            importance=memory.importance if bank and memory.HasField("importance") else None,
            confidence=memory.confidence if bank and memory.HasField("confidence") else None,
            embedding_similarity=(
                round(memory.embedding_similarity, 4) if memory.HasField("embedding_similarity") else None
            ),
            final_rank_score=round(memory.final_rank_score, 4) if memory.HasField("final_rank_score") else None,
        )

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "id": self.id,
            "collection": self.collection,
            "content": self.content,
            "created_at": self.created_at,
            "age": self.age,
            "score": self.score,
            "wilson_score": self.wilson_score,
            "uses": self.uses,
            "success_count": self.success_count,
            "learned_score": self.learned_score,
            "last_outcome": self.last_outcome,
            "outcome_history": self.outcome_history,
            "tags": list(self.tags),
            "metadata": dict(self.metadata or {}),
            "project": self.project,
            "archived": self.archived,
            "worked_count": self.worked_count,
            "partial_count": self.partial_count,
            "failed_count": self.failed_count,
        }
        if self.collection == "memory_bank":
            out["importance"] = self.importance
            out["confidence"] = self.confidence
        if self.embedding_similarity is not None:
            out["embedding_similarity"] = self.embedding_similarity
        if self.final_rank_score is not None:
            out["final_rank_score"] = self.final_rank_score
        return out


def memories_of(protos: Iterable[mem_pb.Memory]) -> tuple[Memory, ...]:
    return tuple(Memory.from_proto(m) for m in protos)


def memories_json(items: Iterable[Memory]) -> list[JsonObject]:
    return [m.to_json() for m in items]


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A search result: copies of the same text collapsed into the best ranked one."""

    memory: Memory
    duplicate_ids: tuple[str, ...] = ()

    def to_json(self) -> JsonObject:
        return {
            **self.memory.to_json(),
            "duplicates": len(self.duplicate_ids),
            "duplicate_ids": list(self.duplicate_ids),
        }


@dataclass(frozen=True, slots=True)
class SearchReply:
    hits: tuple[SearchHit, ...]
    relevant: int | None  # None: no query, so relevance was not judged

    def to_json(self) -> JsonObject:
        return {"memories": [h.to_json() for h in self.hits], "relevant": self.relevant}


@dataclass(frozen=True, slots=True)
class StoredFact:
    """A memory_bank fact as ``add_memory_bank`` stored it, with the kg entities it was indexed under."""

    memory: Memory
    deduplicated: bool
    entities: tuple[str, ...]
    superseded: tuple[str, ...]

    def to_json(self) -> JsonObject:
        return {
            "memory": self.memory.to_json(),
            "deduplicated": self.deduplicated,
            "entities": list(self.entities),
            "superseded": list(self.superseded),
        }


@dataclass(frozen=True, slots=True)
class MemoryChange:
    """A memory after an update or an archive (``deduplicated`` only where a store can refresh a copy)."""

    memory: Memory
    deduplicated: bool | None = None

    def to_json(self) -> JsonObject:
        out: JsonObject = {"memory": self.memory.to_json()}
        if self.deduplicated is not None:
            out["deduplicated"] = self.deduplicated
        return out
