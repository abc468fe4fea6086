"""The JSON replies of the gateway's REST and hook routes, as pydantic models (``response_model=``).

They make ``/openapi.json`` describe every reply and let FastAPI check each one on its way out.
The shapes are the ones ``gateway.replies`` writes (``to_json``) and clients have always read;
a key that only some replies carry (a memory_bank memory's ``importance``, a search's
``embedding_similarity``) is a field with a default, and routes that carry such keys declare
``response_model_exclude_unset=True`` so an absent key stays absent. The known-problem replies
are in ``gateway.problem_models``. ``tests/unit/gateway/test_reply_models.py`` fails on a JSON
route without a model; ``tests/integration/gateway/test_reply_schemas.py`` holds real replies to them.
The MCP tools that give the same replies declare these models as their output schemas
(``gateway.mcp.models`` holds the shapes only a tool gives).
"""

from __future__ import annotations

from pydantic import BaseModel, Field, JsonValue

# -- memories --------------------------------------------------------------------


class MemoryOut(BaseModel):
    """The normalized memory, the same on every path."""

    id: str
    collection: str
    content: str
    created_at: str = Field(description="ISO 8601")
    age: str = Field(description="Relative age, e.g. 2d")
    score: float = Field(description="Outcome score 0-1")
    wilson_score: float = Field(description="Wilson lower bound of the success rate")
    uses: int
    success_count: float
    learned_score: float
    last_outcome: str
    outcome_history: str = Field(description="Last outcomes, e.g. [YY~N]")
    tags: list[str]
    metadata: dict[str, JsonValue] = Field(description="The remaining stored fields (title, source, session, ...)")
    project: str
    archived: bool
    worked_count: int
    partial_count: int
    failed_count: int
    importance: float | None = Field(None, description="memory_bank memories only")
    confidence: float | None = Field(None, description="memory_bank memories only")
    embedding_similarity: float | None = Field(None, description="Present when a query was embedded")
    final_rank_score: float | None = Field(None, description="Present when the ranking ran")


class SearchHitOut(MemoryOut):
    duplicates: int = Field(description="How many copies of this memory were collapsed into it")
    duplicate_ids: list[str] = Field(description="The ids of those copies")


class SearchOut(BaseModel):
    memories: list[SearchHitOut] = Field(description="Distinct memories, best first")
    relevant: int | None = Field(
        description="With a query: how many memories passed the relevance floor; null without a query"
    )


class StoredFactOut(BaseModel):
    memory: MemoryOut
    deduplicated: bool = Field(description="True when an existing near-duplicate was refreshed")
    entities: list[str] = Field(description="The kg entities the fact was indexed under")
    superseded: list[str] = Field(description="Ids of facts this one contradicted and replaced")


class MemoryChangeOut(BaseModel):
    memory: MemoryOut
    deduplicated: bool | None = Field(None, description="Takeaways only: an existing near-duplicate was refreshed")


class ScoredOut(BaseModel):
    id: str
    collection_before: str
    collection_after: str = Field(description="Empty when the memory was deleted")
    score_before: float
    score_after: float
    outcome: str
    transition: str = Field(description="promoted, demoted, deleted or empty")
    new_id: str


class EpisodeOut(BaseModel):
    problem: str
    status: str


class TeachingOut(BaseModel):
    """What the score taught the knowledge graph; ``error`` (a gRPC code) when it could not."""

    taught: bool
    concepts: list[str]
    context_type: str | None = None
    outcome_groups: int | None = None
    episode: EpisodeOut | None = None
    error: str | None = None


class ScoreOut(BaseModel):
    scored: list[ScoredOut]
    not_found: list[str]
    exchange_id: str
    kg: TeachingOut


# -- hooks -----------------------------------------------------------------------


class RankPartsOut(BaseModel):
    dense: float
    lexical: float
    session_context: float
    relevance: float
    kg_weight: float
    learned: float
    final: float
    kg_linked: bool


class ChoiceOut(BaseModel):
    """Why the memory service kept or left out one search result."""

    id: str
    kept: bool
    reason: str
    merged_ids: list[str]
    relevance: float
    parts: RankPartsOut | None


class LessonOut(BaseModel):
    id: str
    content: str
    collection: str
    kind: str = Field(description="solution or failure")
    worked: int
    failed: int
    uses: int
    project: str
    why: str


class RoutingOut(BaseModel):
    has_preference: bool
    weights: dict[str, float] = Field(description="Collection weights the kg learned for these concepts")
    recommended: list[str]
    confidence: float
    concepts: list[str]
    context_type: str
    available: bool = Field(description="False when the kg gave no route")
    fact_ids: list[str] | None = Field(None, description="memory_bank facts linked to the prompt's entities")


class TokensOut(BaseModel):
    known_context: int
    context: int


class ContextOut(BaseModel):
    """KNOWN CONTEXT for a prompt; a backend that failed is named in ``degraded``."""

    context: str = Field(description="What the hook prints for the model: scoring prompt, then KNOWN CONTEXT")
    known_context: str
    tokens: TokensOut = Field(description="chars / 4 of each")
    memories: list[MemoryOut]
    choices: list[ChoiceOut]
    lessons: list[LessonOut]
    scoring_required: bool
    scoring_ids: list[str]
    scoring_prompt: str
    routing: RoutingOut
    degraded: list[str]
    timings_ms: dict[str, float]


class TurnStartOut(BaseModel):
    recorded: bool = Field(description="False for an empty prompt")


class StopOut(BaseModel):
    exchange_id: str
    already_recorded: bool = Field(description="True when the turn_key was seen before: nothing stored")


class SessionStartOut(BaseModel):
    context: str
    memories: list[MemoryOut] = Field(description="Top facts, then recent, then proven memories")


class PreCompactOut(BaseModel):
    context: str = Field(description="For a client that passes it to the model")
    user_message: str = Field(description="For a client that shows it to the user only")


class PostToolUseOut(BaseModel):
    observation: str | None = Field(description="What will be stored in working memory, if anything")
    queued: bool


# -- books, the graph, stats -----------------------------------------------------


class IngestOut(BaseModel):
    title: str
    chunks: int
    skipped_unchanged: bool
    ids: list[str]


class BookOut(BaseModel):
    title: str
    source: str
    chunks: int
    created_at: str
    content_hash: str


class BooksOut(BaseModel):
    books: list[BookOut]


class RemovedBookOut(BaseModel):
    title: str
    removed_chunks: int
    removed_ids: list[str]
    kg_references_removed: int


class GraphNodeOut(BaseModel):
    id: str
    kind: str
    label: str
    weight: float


class GraphEdgeOut(BaseModel):
    source: str
    target: str
    relation: str
    weight: float


class GraphOut(BaseModel):
    nodes: list[GraphNodeOut]
    edges: list[GraphEdgeOut]
    routing: dict[str, JsonValue] = Field(description="The kg's routing summary, as it composes it")


class MemoryStatsOut(BaseModel):
    counts: dict[str, int]
    score_histogram: dict[str, int]
    events: dict[str, int]
    data_bytes: int
    events_by_day: dict[str, JsonValue] = Field(description='{"YYYY-MM-DD": {event: count}}')


class KgStatsOut(BaseModel):
    counts: dict[str, int] | None = None
    error: str | None = Field(None, description="Why the kg gave no counts")


class StatsOut(BaseModel):
    user: str
    project: str
    memory: MemoryStatsOut
    kg: KgStatsOut


# -- admin -----------------------------------------------------------------------


class ScopeOut(BaseModel):
    user: str
    project: str
    counts: dict[str, int]


class ProjectsOut(BaseModel):
    user: str
    current: str | None = Field(description="The project the request's cwd resolves to; null without a cwd")
    projects: list[ScopeOut]
    bindings: dict[str, str] = Field(description="Directory -> project bindings")


class ServiceHealthOut(BaseModel):
    status: str = Field(description="SERVING, NOT_SERVING, DOWN, ...")
    detail: str | None = Field(None, description="The gRPC code when the probe failed")


class HealthOut(BaseModel):
    status: str = Field(description="ok when every backend serves, else degraded (HTTP 503)")
    services: dict[str, ServiceHealthOut]


class VersionsOut(BaseModel):
    gateway: dict[str, str]
    embedding: dict[str, str | int] = Field(description='What the service reports, or {"error": "<gRPC code>"}')
    memory: dict[str, str] = Field(description='What the service reports, or {"error": "<gRPC code>"}')
    kg: dict[str, str] = Field(description='What the service reports, or {"error": "<gRPC code>"}')
    status: str
    services: dict[str, ServiceHealthOut]


class ImportOut(BaseModel):
    imported: int
    skipped_existing: int
    invalid: int
    graphs: int
    graphs_skipped: int
    kg_nodes: int
    kg_edges: int
    errors: list[str]


class ProjectTallyOut(BaseModel):
    stored: int
    existing: int


class BackfillOut(BaseModel):
    stored: int = Field(description="Exchanges stored now")
    existing: int = Field(description="Exchanges stored by an earlier run")
    observations: int
    projects: dict[str, ProjectTallyOut]
    kg_taught: int | None = Field(None, description="Exchanges taught to the kg (not on a dry run)")
