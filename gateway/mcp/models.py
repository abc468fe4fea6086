"""Output schemas of the MCP tools (what ``structured_content`` carries).

Each tool returns its service's result unchanged as structured content,
so these models describe that shape; ``extra="allow"`` keeps any field the
gateway adds later without breaking clients that validate the schema.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class MemoryOut(_Open):
    """The normalized memory, the same on every path."""

    id: str
    collection: str
    content: str
    created_at: str = ""
    age: str = Field("", description="Relative age, e.g. 2d")
    score: float | None = Field(None, description="Outcome score 0-1")
    wilson_score: float | None = Field(None, description="Wilson lower bound of the success rate")
    uses: int = 0
    success_count: float = 0.0
    learned_score: float | None = None
    last_outcome: str = ""
    outcome_history: str = Field("", description="Last outcomes, e.g. [YY~N]")
    tags: list[str] = Field(default_factory=list)
    importance: float | None = Field(None, description="memory_bank only")
    confidence: float | None = Field(None, description="memory_bank only")
    embedding_similarity: float | None = Field(None, description="Present when a query was embedded")
    final_rank_score: float | None = Field(None, description="Present when the ranking ran")
    metadata: dict[str, Any] = Field(default_factory=dict)
    project: str = ""
    archived: bool = False


class SearchHitOut(MemoryOut):
    """A search result: copies of the same text are collapsed into the best ranked one."""

    duplicates: int = Field(0, description="How many copies of this memory were collapsed into it")
    duplicate_ids: list[str] = Field(default_factory=list, description="The ids of those copies")


class SearchOut(_Open):
    memories: list[SearchHitOut] = Field(description="Distinct memories, best first")
    relevant: int | None = Field(
        None,
        description="With a query: how many memories are relevant to it (all of those returned; 0: none is). "
        "None without a query (a time window or an id)",
    )


class MemoryResultOut(_Open):
    memory: MemoryOut
    deduplicated: bool | None = Field(None, description="True when an existing near-duplicate was refreshed")


class ScoredOut(_Open):
    id: str
    collection_before: str = ""
    collection_after: str = Field("", description="Empty when the memory was deleted")
    score_before: float = 0.0
    score_after: float = 0.0
    outcome: str = ""
    transition: str = Field("", description="promoted, demoted, deleted or empty")
    new_id: str = ""


class ScoreOut(_Open):
    scored: list[ScoredOut]
    not_found: list[str] = Field(default_factory=list)
    exchange_id: str = ""


class InsightsOut(_Open):
    text: str
    memories: list[MemoryOut]
    routing: dict[str, Any] = Field(default_factory=dict)
    self_audit: bool = Field(False, description="True when the self-audit reminder was appended")


class GraphOut(_Open):
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    routing: dict[str, Any] = Field(default_factory=dict)


class ClusterOut(_Open):
    kind: str = Field(description="contradiction, duplicate or stale")
    reason: str = ""
    similarity: float | None = Field(None, description="Lowest cosine among the grouped pairs")
    memories: list[MemoryOut]


class CandidatesOut(_Open):
    clusters: list[ClusterOut]
    scanned: int = Field(0, description="Active memories examined")


class ConsolidateOut(_Open):
    merged: MemoryOut = Field(description="The merged memory (after an undo: archived)")
    archived: list[MemoryOut] = Field(default_factory=list, description="Sources archived by a merge")
    restored: list[MemoryOut] = Field(default_factory=list, description="Sources restored by an undo")
