"""The memory tools, each a thin translation onto ``MemoriesService`` (the kg view: ``graph_tools``;
consolidation: ``consolidation_tools``).

A tool validates its arguments through its signature (the MCP SDK turns
the annotations into the input schema), resolves the project scope, calls
one ``MemoriesService`` method, and returns the assistant-facing text plus the
full result as structured content. The memories ``search_memory`` and
``get_context_insights`` return join the turn in progress of the project's
latest session (``MemoriesService.remember_shown``), the session an empty
``session_id`` scores, so ``score_response`` without ``related`` scores them
with that turn's exchange, on the next turn. Failures become ``is_error`` results
whose text says what to do next (``tool_text.error_text``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from gateway import input_validation as limits
from gateway.caller import Caller
from gateway.capabilities.memories_service import MemoriesService
from gateway.gateway_errors import InvalidInput
from gateway.mcp import descriptions as text
from gateway.mcp import tool_text
from gateway.mcp.models import InsightsOut
from gateway.mcp.tool_runner import MAX_CWD_CHARS, ToolContext, ToolRunner, ToolServer
from gateway.replies.reply_json import JsonObject
from gateway.reply_models import MemoryChangeOut, ScoreOut, SearchOut, StoredFactOut

CollectionName = Literal["working", "history", "patterns", "memory_bank", "books"]
OutcomeWord = Literal["worked", "failed", "partial", "unknown"]
MemoryId = Annotated[
    str, Field(min_length=1, max_length=limits.MAX_ID_CHARS, description="A memory id from an [id:...] tag")
]
Unit = Annotated[float, Field(ge=0.0, le=1.0)]
Tags = Annotated[list[Annotated[str, Field(max_length=limits.MAX_TAG_CHARS)]], Field(max_length=limits.MAX_TAGS)]
Cwd = Annotated[
    str | None,
    Field(
        max_length=MAX_CWD_CHARS,
        description=(
            "Optional project directory whose memories to use. Defaults to the server's project "
            "(stdio: its working directory; HTTP: the X-Mnemex-Cwd header)."
        ),
    ),
]
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)


def register_memory_tools(
    server: ToolServer, runner: ToolRunner, memories: MemoriesService, texts: Mapping[str, str]
) -> None:
    """Add the memory tools to ``server`` with the descriptions ``texts`` (``list_tools`` may re-render them)."""
    _register_reads(server, runner, memories, texts)
    _register_edits(server, runner, memories, texts)
    _register_outcomes(server, runner, memories, texts)


def _register_reads(
    server: ToolServer, runner: ToolRunner, memories: MemoriesService, texts: Mapping[str, str]
) -> None:
    """get_context_insights and search_memory: what they show joins the turn in progress."""

    @server.tool(
        name="get_context_insights",
        title="Memory overview for a topic",
        description=texts["get_context_insights"],
        annotations=READ_ONLY,
    )
    async def get_context_insights(
        ctx: ToolContext,
        query: Annotated[
            str,
            Field(
                min_length=1, max_length=limits.MAX_QUERY_CHARS, description="The topic or the user's request, in words"
            ),
        ],
        cwd: Cwd = None,
    ) -> Annotated[CallToolResult, InsightsOut]:
        async def work(caller: Caller) -> tuple[str, JsonObject]:
            result = await memories.insights(caller, query=query)
            learned = [x.id for x in result.solutions + result.failures]
            await memories.remember_shown(caller, ids=learned + [m.id for m in result.memories])
            audit = runner.audit.observe(caller.project, (m.collection for m in result.memories))
            body = result.text or "Nothing in memory about this yet."
            if audit:
                body = f"{body}\n\n{text.SELF_AUDIT}"
            return body, {**result.to_json(), "self_audit": audit}

        return await runner.run("get_context_insights", ctx, cwd, work)

    @server.tool(name="search_memory", title="Search memory", description=texts["search_memory"], annotations=READ_ONLY)
    async def search_memory(
        ctx: ToolContext,
        query: Annotated[
            str | None, Field(max_length=limits.MAX_QUERY_CHARS, description="What to look for, in words")
        ] = None,
        days_back: Annotated[int | None, Field(ge=1, le=3650, description="Only memories from the last N days")] = None,
        id: Annotated[str | None, Field(max_length=limits.MAX_ID_CHARS, description="Fetch one memory by id")] = None,
        collections: Annotated[
            list[CollectionName] | None, Field(max_length=5, description="Leave out to search all")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=100)] = 10,
        sort_by: Annotated[
            Literal["relevance", "recency", "score"] | None,
            Field(description="Default: relevance with a query, recency without"),
        ] = None,
        metadata: Annotated[dict[str, object] | None, Field(description="Filters on stored fields")] = None,
        cwd: Cwd = None,
    ) -> Annotated[CallToolResult, SearchOut]:
        async def work(caller: Caller) -> tuple[str, JsonObject]:
            has_query = bool(query and query.strip())
            if not (has_query or days_back or (id and id.strip())):
                raise InvalidInput(
                    "give at least one of query (words to match by meaning), days_back (1-3650, e.g. 7 for "
                    "the last week) or id (from an [id:...] tag)"
                )
            order = sort_by or ("relevance" if has_query else "recency")
            result = await memories.find(
                caller,
                query=query,
                days_back=days_back,
                id=id,
                collections=collections,
                limit=limit,
                sort_by=order,
                metadata=metadata,
            )
            await memories.remember_shown(caller, ids=[hit.memory.id for hit in result.hits])
            says = tool_text.search_text(
                result.hits, query=query, days_back=days_back, memory_id=id, relevant=result.relevant
            )
            return says, result.to_json()

        return await runner.run("search_memory", ctx, cwd, work)


def _register_edits(
    server: ToolServer, runner: ToolRunner, memories: MemoriesService, texts: Mapping[str, str]
) -> None:
    """add_to_memory_bank, update_memory and archive_memory."""

    @server.tool(
        name="add_to_memory_bank",
        title="Store a durable fact",
        description=texts["add_to_memory_bank"],
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
    )
    async def add_to_memory_bank(
        ctx: ToolContext,
        content: Annotated[str, Field(min_length=1, max_length=limits.MAX_CONTENT_CHARS, description="One fact")],
        tags: Tags | None = None,
        importance: Unit = 0.7,
        confidence: Unit = 0.7,
        user_wide: Annotated[
            bool,
            Field(description="True: holds in all of the user's projects. False (default): belongs to this project"),
        ] = False,
        cwd: Cwd = None,
    ) -> Annotated[CallToolResult, StoredFactOut]:
        async def work(caller: Caller) -> tuple[str, JsonObject]:
            result = await memories.add_memory_bank(
                caller,
                content=content,
                tags=tags or (),
                importance=importance,
                confidence=confidence,
                user_wide=user_wide,
            )
            return tool_text.saved_text("Stored in memory_bank", result), result.to_json()

        return await runner.run("add_to_memory_bank", ctx, cwd, work)

    @server.tool(
        name="update_memory",
        title="Correct a memory",
        description=texts["update_memory"],
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
        ),
    )
    async def update_memory(
        ctx: ToolContext,
        id: MemoryId,
        content: Annotated[str | None, Field(min_length=1, max_length=limits.MAX_CONTENT_CHARS)] = None,
        tags: Tags | None = None,
        importance: Unit | None = None,
        confidence: Unit | None = None,
        cwd: Cwd = None,
    ) -> Annotated[CallToolResult, MemoryChangeOut]:
        async def work(caller: Caller) -> tuple[str, JsonObject]:
            result = await memories.update(
                caller, id=id, content=content, tags=tags, importance=importance, confidence=confidence
            )
            return tool_text.saved_text("Updated", result), result.to_json()

        return await runner.run("update_memory", ctx, cwd, work)

    @server.tool(
        name="archive_memory",
        title="Retire a memory",
        description=texts["archive_memory"],
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
        ),
    )
    async def archive_memory(
        ctx: ToolContext,
        id: MemoryId,
        reason: Annotated[str, Field(max_length=limits.MAX_REASON_CHARS, description="Why it is retired")] = "",
        cwd: Cwd = None,
    ) -> Annotated[CallToolResult, MemoryChangeOut]:
        async def work(caller: Caller) -> tuple[str, JsonObject]:
            result = await memories.archive(caller, id=id, reason=reason)
            return tool_text.archived_text(result), result.to_json()

        return await runner.run("archive_memory", ctx, cwd, work)


def _register_outcomes(
    server: ToolServer, runner: ToolRunner, memories: MemoriesService, texts: Mapping[str, str]
) -> None:
    """score_response and record_response: what the assistant learned from the exchange."""

    @server.tool(
        name="score_response",
        title="Score the previous exchange",
        description=texts["score_response"],
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False),
    )
    async def score_response(
        ctx: ToolContext,
        outcome: Annotated[OutcomeWord, Field(description="How the previous exchange went")],
        memory_scores: Annotated[
            dict[str, OutcomeWord] | None, Field(max_length=limits.MAX_SCORED_IDS, description="{memory id: outcome}")
        ] = None,
        related: Annotated[
            list[Annotated[str, Field(max_length=limits.MAX_ID_CHARS)]] | None,
            Field(
                max_length=limits.MAX_SCORED_IDS,
                description="Omit: all injected memories; []: none; list: exactly these",
            ),
        ] = None,
        cwd: Cwd = None,
    ) -> Annotated[CallToolResult, ScoreOut]:
        async def work(caller: Caller) -> tuple[str, JsonObject]:
            result = await memories.score(
                caller,
                session_id="",
                outcome=outcome,
                memory_scores=dict(memory_scores) if memory_scores is not None else None,
                related=related,
            )
            return tool_text.score_text(result), result.to_json()

        return await runner.run("score_response", ctx, cwd, work)

    @server.tool(
        name="record_response",
        title="Record a key takeaway",
        description=texts["record_response"],
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
    )
    async def record_response(
        ctx: ToolContext,
        key_takeaway: Annotated[str, Field(min_length=1, max_length=limits.MAX_CONTENT_CHARS)],
        initial_score: Annotated[
            Literal["worked", "failed", "partial"] | None,
            Field(description="Optional starting score from this exchange"),
        ] = None,
        cwd: Cwd = None,
    ) -> Annotated[CallToolResult, MemoryChangeOut]:
        async def work(caller: Caller) -> tuple[str, JsonObject]:
            result = await memories.record_takeaway(
                caller, session_id="", key_takeaway=key_takeaway, initial_score=initial_score
            )
            return tool_text.takeaway_text(result), result.to_json()

        return await runner.run("record_response", ctx, cwd, work)
