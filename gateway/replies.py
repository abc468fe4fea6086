"""The gateway's typed replies: each memory/kg proto becomes one of these once, where the reply arrives.

Frozen dataclasses; the services take and return them, and only the edges turn them into JSON
(``to_json``: the routes, whose response models in ``gateway.reply_models`` describe the same shapes,
the MCP tools' structured content, the viewer). The wire shapes are the ones clients have always read:
a memory_bank memory carries ``importance`` and ``confidence`` (null when unset), other collections
do not; ``embedding_similarity`` and ``final_rank_score`` appear only when the search computed them.

Imports only generated protobuf modules (no grpc runtime, no fastapi).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

# What leaves through ``to_json``; JSON's own values, nested, so ``object`` (a stored memory's
# metadata is whatever JSON object the client stored).
JsonObject = dict[str, object]


def json_object(text: str) -> JsonObject:
    """A JSON object carried in a proto string field; anything else (empty, malformed, a list) is {}."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except (ValueError, TypeError):
        return {}
    return value if isinstance(value, dict) else {}


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


def memories(protos: Iterable[mem_pb.Memory]) -> tuple[Memory, ...]:
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


@dataclass(frozen=True, slots=True)
class ScoredMemory:
    """What one score did to one memory."""

    id: str
    collection_before: str
    collection_after: str
    score_before: float
    score_after: float
    outcome: str
    transition: str
    new_id: str

    @classmethod
    def from_proto(cls, item: mem_pb.ScoredMemory, outcome: str) -> ScoredMemory:
        return cls(
            id=item.id,
            collection_before=item.collection_before,
            collection_after=item.collection_after,
            score_before=round(item.score_before, 4),
            score_after=round(item.score_after, 4),
            outcome=outcome,
            transition=item.transition,
            new_id=item.new_id,
        )

    def to_json(self) -> JsonObject:
        return {
            "id": self.id,
            "collection_before": self.collection_before,
            "collection_after": self.collection_after,
            "score_before": self.score_before,
            "score_after": self.score_after,
            "outcome": self.outcome,
            "transition": self.transition,
            "new_id": self.new_id,
        }


@dataclass(frozen=True, slots=True)
class Episode:
    problem: str
    status: str


@dataclass(frozen=True, slots=True)
class Teaching:
    """What a score taught the kg. ``error`` set: the kg could not be taught (its gRPC code)."""

    taught: bool
    concepts: tuple[str, ...]
    context_type: str = ""
    outcome_groups: int = 0
    episode: Episode | None = None
    error: str | None = None

    def to_json(self) -> JsonObject:
        if self.error is not None:
            return {"taught": False, "concepts": list(self.concepts), "error": self.error}
        episode = {"problem": self.episode.problem, "status": self.episode.status} if self.episode else None
        return {
            "taught": self.taught,
            "concepts": list(self.concepts),
            "context_type": self.context_type,
            "outcome_groups": self.outcome_groups,
            "episode": episode,
        }


@dataclass(frozen=True, slots=True)
class ScoreReply:
    scored: tuple[ScoredMemory, ...]
    not_found: tuple[str, ...]
    exchange_id: str
    kg: Teaching

    def to_json(self) -> JsonObject:
        return {
            "scored": [s.to_json() for s in self.scored],
            "not_found": list(self.not_found),
            "exchange_id": self.exchange_id,
            "kg": self.kg.to_json(),
        }


@dataclass(frozen=True, slots=True)
class KgRoute:
    """The kg's collection weights for a prompt's concepts (``available``: the kg answered), and the
    memory_bank facts its entities link to (``fact_ids``, where the recall looked them up)."""

    has_preference: bool = False
    weights: Mapping[str, float] | None = None
    recommended: tuple[str, ...] = ()
    confidence: float = 0.0
    concepts: tuple[str, ...] = ()
    context_type: str = ""
    available: bool = False
    fact_ids: tuple[str, ...] | None = None

    @classmethod
    def from_proto(
        cls,
        reply: kg_pb.RouteResponse | None,
        concepts: Iterable[str] = (),
        context_type: str = "",
        fact_ids: Iterable[str] | None = None,
    ) -> KgRoute:
        facts = tuple(fact_ids) if fact_ids is not None else None
        if reply is None:
            return cls(concepts=tuple(concepts), context_type=context_type, fact_ids=facts)
        return cls(
            has_preference=reply.has_preference,
            weights={k: round(v, 4) for k, v in reply.weights.items()},
            recommended=tuple(reply.recommended),
            confidence=round(reply.confidence, 4),
            concepts=tuple(concepts),
            context_type=context_type,
            available=True,
            fact_ids=facts,
        )

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "has_preference": self.has_preference,
            "weights": dict(self.weights or {}),
            "recommended": list(self.recommended),
            "confidence": self.confidence,
            "concepts": list(self.concepts),
            "context_type": self.context_type,
            "available": self.available,
        }
        if self.fact_ids is not None:
            out["fact_ids"] = list(self.fact_ids)
        return out


@dataclass(frozen=True, slots=True)
class GraphNode:
    id: str
    kind: str
    label: str
    weight: float


@dataclass(frozen=True, slots=True)
class GraphEdge:
    source: str
    target: str
    relation: str
    weight: float


@dataclass(frozen=True, slots=True)
class KgGraph:
    """The kg's view: nodes, edges, and its routing summary (a JSON object the kg composes)."""

    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    routing: Mapping[str, object]

    @classmethod
    def from_proto(cls, reply: kg_pb.GraphResponse) -> KgGraph:
        routing: object
        try:
            routing = json.loads(reply.routing_json) if reply.routing_json else {}
        except ValueError:
            routing = {}
        return cls(
            nodes=tuple(GraphNode(n.id, n.kind, n.label, n.weight) for n in reply.nodes),
            edges=tuple(GraphEdge(e.source, e.target, e.relation, e.weight) for e in reply.edges),
            routing=routing if isinstance(routing, dict) else {"facts": routing},
        )

    def to_json(self) -> JsonObject:
        return {
            "nodes": [{"id": n.id, "kind": n.kind, "label": n.label, "weight": n.weight} for n in self.nodes],
            "edges": [
                {"source": e.source, "target": e.target, "relation": e.relation, "weight": e.weight} for e in self.edges
            ],
            "routing": dict(self.routing),
        }


@dataclass(frozen=True, slots=True)
class Cluster:
    """Memories that need one decision: a contradiction, near-duplicates or stale entries."""

    kind: str
    reason: str
    similarity: float | None  # the lowest cosine among the grouped pairs
    memories: tuple[Memory, ...]

    def to_json(self) -> JsonObject:
        return {
            "kind": self.kind,
            "reason": self.reason,
            "similarity": self.similarity,
            "memories": memories_json(self.memories),
        }


@dataclass(frozen=True, slots=True)
class Candidates:
    clusters: tuple[Cluster, ...]
    scanned: int  # active memories examined

    def to_json(self) -> JsonObject:
        return {"clusters": [c.to_json() for c in self.clusters], "scanned": self.scanned}


@dataclass(frozen=True, slots=True)
class Consolidation:
    """A merge (``archived``: its sources) or its undo (``restored``: the sources back; ``merged`` archived)."""

    merged: Memory
    archived: tuple[Memory, ...] = ()
    restored: tuple[Memory, ...] | None = None

    def to_json(self) -> JsonObject:
        if self.restored is not None:
            return {"restored": memories_json(self.restored), "merged": self.merged.to_json()}
        return {"merged": self.merged.to_json(), "archived": memories_json(self.archived)}


# -- the hooks -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TurnStarted:
    recorded: bool  # False for an empty prompt

    def to_json(self) -> JsonObject:
        return {"recorded": self.recorded}


@dataclass(frozen=True, slots=True)
class ExchangeStored:
    exchange_id: str
    already_recorded: bool  # the turn_key was seen before: nothing stored

    def to_json(self) -> JsonObject:
        return {"exchange_id": self.exchange_id, "already_recorded": self.already_recorded}


@dataclass(frozen=True, slots=True)
class SessionSeed:
    context: str
    memories: tuple[Memory, ...]  # top facts, then recent, then proven memories

    def to_json(self) -> JsonObject:
        return {"context": self.context, "memories": memories_json(self.memories)}


@dataclass(frozen=True, slots=True)
class CompactReminder:
    context: str  # for a client that passes it to the model
    user_message: str  # for a client that shows it to the user only

    def to_json(self) -> JsonObject:
        return {"context": self.context, "user_message": self.user_message}


@dataclass(frozen=True, slots=True)
class ObservationStored:
    stored: bool
    id: str = ""
    deduplicated: bool = False

    def to_json(self) -> JsonObject:
        if not self.stored:
            return {"stored": False}
        return {"stored": True, "id": self.id, "deduplicated": self.deduplicated}


# -- books and stats -------------------------------------------------------------


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
class MemoryStats:
    counts: Mapping[str, int]
    score_histogram: Mapping[str, int]
    events: Mapping[str, int]
    data_bytes: int
    events_by_day: Mapping[str, object]

    def to_json(self) -> JsonObject:
        return {
            "counts": dict(self.counts),
            "score_histogram": dict(self.score_histogram),
            "events": dict(self.events),
            "data_bytes": self.data_bytes,
            "events_by_day": dict(self.events_by_day),
        }


@dataclass(frozen=True, slots=True)
class ProjectStats:
    user: str
    project: str
    memory: MemoryStats
    kg_counts: Mapping[str, int] | None  # None: the kg did not answer (``kg_error`` says why)
    kg_error: str = ""

    def to_json(self) -> JsonObject:
        kg: JsonObject = {"counts": dict(self.kg_counts)} if self.kg_counts is not None else {"error": self.kg_error}
        return {"user": self.user, "project": self.project, "memory": self.memory.to_json(), "kg": kg}


# -- admin -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ServiceHealth:
    status: str  # SERVING, NOT_SERVING, ..., or DOWN when the probe failed
    detail: str = ""  # the probe's gRPC code when it failed

    def to_json(self) -> JsonObject:
        return {"status": self.status, "detail": self.detail} if self.detail else {"status": self.status}


@dataclass(frozen=True, slots=True)
class Health:
    services: Mapping[str, ServiceHealth]

    @property
    def ok(self) -> bool:
        return all(s.status == "SERVING" for s in self.services.values())

    def to_json(self) -> JsonObject:
        services: JsonObject = {name: s.to_json() for name, s in self.services.items()}
        return {"status": "ok" if self.ok else "degraded", "services": services}


@dataclass(frozen=True, slots=True)
class ScopeCounts:
    user: str
    project: str
    counts: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class Projects:
    user: str
    current: str | None  # the project the request's cwd resolves to; None without a cwd
    projects: tuple[ScopeCounts, ...]
    bindings: Mapping[str, str]  # directory -> project

    def to_json(self) -> JsonObject:
        return {
            "user": self.user,
            "current": self.current,
            "projects": [{"user": p.user, "project": p.project, "counts": dict(p.counts)} for p in self.projects],
            "bindings": dict(self.bindings),
        }


@dataclass(frozen=True, slots=True)
class Versions:
    """The gateway's version, what each backend reports about itself (or ``{"error": <gRPC code>}``), health."""

    gateway: str
    backends: Mapping[str, Mapping[str, str | int]]
    health: Health

    def to_json(self) -> JsonObject:
        out: JsonObject = {"gateway": {"version": self.gateway}}
        out.update((name, dict(info)) for name, info in self.backends.items())
        out.update(self.health.to_json())
        return out


# -- history and portability -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProjectTally:
    stored: int
    existing: int


@dataclass(frozen=True, slots=True)
class BackfillTally:
    """What a backfill batch stored now and found stored by an earlier run, per project too."""

    stored: int
    existing: int
    observations: int
    projects: Mapping[str, ProjectTally]
    kg_taught: int | None = None  # exchanges taught to the kg; None on a dry run or with nothing new

    def to_json(self) -> JsonObject:
        projects: JsonObject = {name: {"stored": p.stored, "existing": p.existing} for name, p in self.projects.items()}
        out: JsonObject = {
            "stored": self.stored,
            "existing": self.existing,
            "observations": self.observations,
            "projects": projects,
        }
        if self.kg_taught is not None:
            out["kg_taught"] = self.kg_taught
        return out


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
