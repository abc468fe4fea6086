"""Output schemas of the MCP tools that only MCP gives (what their ``structured_content`` carries).

Each tool returns its service's result as structured content (``to_json`` of the typed reply), and
declares the pydantic model of that shape, which the SDK publishes as the tool's output schema and checks
each result against. A tool whose reply a REST route gives too declares that route's model, so each shape
is declared once: search_memory ``SearchOut``, add_to_memory_bank ``StoredFactOut``, update_memory,
archive_memory and record_response ``MemoryChangeOut``, score_response ``ScoreOut``, query_kg ``GraphOut``
(``gateway.reply_models``); the problem tools' are in ``gateway.problem_models``. The shapes below are the
tools' own, built from the same parts.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from gateway.insights import ActionEffect
from gateway.reply_models import LessonOut, MemoryOut, RoutingOut


class InsightsOut(BaseModel):
    text: str
    memories: list[MemoryOut]
    routing: RoutingOut
    solutions: list[LessonOut]
    failures: list[LessonOut]
    actions: list[ActionEffect]  # the typed value itself: pydantic reads a dataclass's fields as a model's
    self_audit: bool = Field(description="True when the self-audit reminder was appended")


class ClusterOut(BaseModel):
    kind: str = Field(description="contradiction, duplicate or stale")
    reason: str
    similarity: float | None = Field(description="Lowest cosine among the grouped pairs")
    memories: list[MemoryOut]


class CandidatesOut(BaseModel):
    clusters: list[ClusterOut]
    scanned: int = Field(description="Active memories examined")


class ConsolidateOut(BaseModel):
    merged: MemoryOut = Field(description="The merged memory (after an undo: archived)")
    archived: list[MemoryOut] = Field(default_factory=list, description="Sources archived by a merge")
    restored: list[MemoryOut] = Field(default_factory=list, description="Sources restored by an undo")
