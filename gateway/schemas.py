"""Request bodies for the REST and hook endpoints, with their limits.

Limits mirror ``gateway.input_validation`` so REST rejects bad input with a 422
before any backend is called. CWD is the client's working directory; it
selects the project.
"""

from __future__ import annotations

from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from gateway import input_validation as v

Outcome = Literal["worked", "partial", "unknown", "failed"]
CollectionName = Literal["books", "working", "history", "patterns", "memory_bank"]
SortBy = Literal["relevance", "recency", "score"]
MemoryId = Field(min_length=1, max_length=v.MAX_ID_CHARS)

_CWD = Field(default=None, max_length=4096, description="client working directory; selects the project")
_SESSION = Field(default="", max_length=v.MAX_ID_CHARS)
# Which assistant sent a hook request (hooks and the OpenCode plugin say it; older hooks do not).
ClientName = Literal["", "claude", "cursor", "opencode"]
_CLIENT: ClientName = Field(
    default="", description="the assistant client: claude, cursor or opencode; kept with the turn"
)


class Body(BaseModel):
    model_config = ConfigDict(extra="ignore")


class GetContextBody(Body):
    session_id: str = _SESSION
    prompt: str = Field(default="", max_length=v.MAX_PROMPT_CHARS)
    cwd: str | None = _CWD
    limit: int = Field(default=5, ge=1, le=100)
    client: ClientName = _CLIENT


class TurnStartBody(Body):
    session_id: str = _SESSION
    cwd: str | None = _CWD
    prompt: str = Field(default="", max_length=v.MAX_PROMPT_CHARS)
    client: ClientName = _CLIENT


class StopBody(Body):
    session_id: str = _SESSION
    cwd: str | None = _CWD
    assistant_text: str = Field(default="", max_length=v.MAX_ASSISTANT_CHARS)
    user_text: str = Field(default="", max_length=v.MAX_PROMPT_CHARS)
    turn_key: str = Field(default="", max_length=v.MAX_ID_CHARS, description="the client's turn id: stored once")
    client: ClientName = _CLIENT


class SessionStartBody(Body):
    session_id: str = _SESSION
    cwd: str | None = _CWD
    source: str = Field(default="startup", max_length=32)
    client: ClientName = _CLIENT


class PreCompactBody(Body):
    session_id: str = _SESSION
    cwd: str | None = _CWD
    trigger: str = Field(default="", max_length=32)


class PostToolUseBody(Body):
    session_id: str = _SESSION
    cwd: str | None = _CWD
    tool_name: str = Field(default="", max_length=200)
    tool_input: object = None  # the client's JSON, as it sent it
    tool_response: object = None


class RecordOutcomeBody(Body):
    session_id: str = _SESSION
    cwd: str | None = _CWD
    outcome: Outcome
    memory_scores: dict[str, Outcome] | None = Field(default=None, max_length=v.MAX_SCORED_IDS)
    related: list[str] | None = Field(default=None, max_length=v.MAX_SCORED_IDS)


class SearchBody(Body):
    cwd: str | None = _CWD
    session_id: str = _SESSION
    query: str | None = Field(default=None, max_length=v.MAX_QUERY_CHARS)
    days_back: int | None = Field(default=None, ge=v.DAYS_BACK_RANGE[0], le=v.DAYS_BACK_RANGE[1])
    id: str | None = Field(default=None, max_length=v.MAX_ID_CHARS)
    collections: list[CollectionName] | None = Field(default=None, max_length=5)
    limit: int = Field(default=10, ge=1, le=100)
    sort_by: SortBy = "relevance"
    metadata: dict[str, object] | None = None
    all_projects: bool = False  # every project of the user, the best of all, each with its project


class MemoryBankAddBody(Body):
    cwd: str | None = _CWD
    content: str = Field(min_length=1, max_length=v.MAX_CONTENT_CHARS)
    tags: list[str] = Field(default_factory=list, max_length=v.MAX_TAGS)
    importance: float = Field(default=0.7, ge=0.0, le=1.0)
    confidence: float = Field(default=0.7, ge=0.0, le=1.0)
    # the fact holds in every project of the user; false: it belongs to the project of cwd
    user_wide: bool = False


class MemoryBankUpdateBody(Body):
    cwd: str | None = _CWD
    id: str = MemoryId
    content: str | None = Field(default=None, min_length=1, max_length=v.MAX_CONTENT_CHARS)
    tags: list[str] | None = Field(default=None, max_length=v.MAX_TAGS)
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)


class ArchiveBody(Body):
    cwd: str | None = _CWD
    id: str = MemoryId
    reason: str = Field(default="", max_length=v.MAX_REASON_CHARS)


class MergeProblemsBody(Body):
    cwd: str | None = _CWD
    keep: str = Field(min_length=1, max_length=32, description="the known problem that stays, e.g. p3")
    merge: str = Field(min_length=1, max_length=32, description="the known problem folded into it, e.g. p7")


class UnmergeProblemsBody(Body):
    cwd: str | None = _CWD
    merge_id: str = Field(min_length=1, max_length=32, description="the merge to undo, e.g. m2")


class IngestJsonBody(Body):
    """JSON form of /api/ingest: plain ``text`` or base64 ``data_base64`` (for PDFs)."""

    cwd: str | None = _CWD
    title: str = Field(min_length=1, max_length=v.MAX_TITLE_CHARS)
    filename: str = Field(default="", max_length=v.MAX_TITLE_CHARS)
    source: str = Field(default="", max_length=v.MAX_TITLE_CHARS)
    text: str | None = None
    data_base64: str | None = None


class RemoveBookBody(Body):
    cwd: str | None = _CWD
    title: str = Field(min_length=1, max_length=v.MAX_TITLE_CHARS)


class BackfillToolUse(Body):
    tool_name: str = Field(max_length=200)
    tool_input: object = None  # the client's JSON, as it sent it
    tool_response: object = None


class BackfillExchange(Body):
    source_id: str = Field(min_length=1, max_length=200, description="stable id of the exchange in its client's store")
    client: Literal["claude", "opencode", "cursor"]
    session_id: str = Field(default="", max_length=v.MAX_ID_CHARS)
    cwd: str = Field(default="", max_length=4096, description="recorded working directory; selects the project")
    started_at: AwareDatetime = Field(description="RFC 3339 time the exchange began")
    user_text: str = Field(default="", max_length=v.MAX_PROMPT_CHARS)
    assistant_text: str = Field(default="", max_length=v.MAX_PROMPT_CHARS)
    tool_uses: list[BackfillToolUse] = Field(default_factory=list, max_length=50)


class BackfillBody(Body):
    exchanges: list[BackfillExchange] = Field(min_length=1, max_length=256)
    dry_run: bool = False
