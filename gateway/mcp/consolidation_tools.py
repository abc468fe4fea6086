"""The two consolidation tools: find what needs a decision, then apply (or undo) the decision.

``find_consolidation_candidates`` lists clusters (contradictions, near-duplicates,
stale entries) for the assistant to judge; ``consolidate_memories`` writes the
merged memory the assistant composed and archives its sources, or, with
``undo``, restores them. Like every tool, a thin translation onto
``ConsolidationService`` (``gateway.capabilities.consolidation_service``); memory content and the
cluster reasons (which quote fact values) are neutralised before they are shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from gateway import input_validation as limits
from gateway.caller import Caller
from gateway.capabilities.consolidation_service import ConsolidationService
from gateway.gateway_errors import InvalidInput
from gateway.inert_text import neutralize
from gateway.mcp import tool_text
from gateway.mcp.models import CandidatesOut, ConsolidateOut
from gateway.mcp.tool_runner import MAX_CWD_CHARS, ToolContext, ToolRunner, ToolServer
from gateway.replies.consolidation_replies import Candidates, Consolidation
from gateway.replies.reply_json import JsonObject

CLUSTER_CONTENT_CHARS = 400
Kind = Literal["contradiction", "duplicate", "stale"]
Collection = Literal["working", "history", "patterns", "memory_bank"]
Id = Annotated[str, Field(min_length=1, max_length=limits.MAX_ID_CHARS)]
Cwd = Annotated[
    str | None, Field(max_length=MAX_CWD_CHARS, description="Optional project directory (as for the other tools)")
]


def candidates_text(result: Candidates) -> str:
    clusters = result.clusters
    if not clusters:
        return (
            f"Nothing needs consolidating ({result.scanned} memories examined): no contradictions, "
            "near-duplicates or stale entries."
        )
    lines = [f"{len(clusters)} group(s) to review ({result.scanned} memories examined):"]
    for number, cluster in enumerate(clusters, 1):
        lines.append(f"\n{number}. {cluster.kind}: {neutralize(cluster.reason, 300)}")
        lines += ["   " + line for line in tool_text.memory_lines(cluster.memories, CLUSTER_CONTENT_CHARS)]
    lines.append(
        "\nDecide per group: merge with consolidate_memories(source_ids=[...], merged_content=...), retire a wrong "
        "memory with archive_memory, or leave it."
    )
    return "\n".join(lines)


def consolidate_text(result: Consolidation) -> str:
    merged = result.merged
    archived = [m.id for m in result.archived]
    line = tool_text.memory_lines([merged])[0]
    return (
        f"Merged into:\n{line}\nArchived {len(archived)} source(s): {', '.join(archived)}. "
        f'To reverse this, call consolidate_memories(undo="{merged.id}").'
    )


def undo_text(result: Consolidation) -> str:
    restored = list(result.restored or ())
    merged = result.merged
    state = "archived" if merged.archived else "kept active"
    count = f"{len(restored)} memor{'y' if len(restored) == 1 else 'ies'}"
    head = f"Undone: {count} restored; [id:{merged.id}] {state}."
    return "\n".join([head, *tool_text.memory_lines(restored)])


def register_consolidation_tools(
    server: ToolServer, runner: ToolRunner, consolidation: ConsolidationService, texts: Mapping[str, str]
) -> None:
    @server.tool(
        name="find_consolidation_candidates",
        title="Find memories to merge or retire",
        description=texts["find_consolidation_candidates"],
        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False),
    )
    async def find_consolidation_candidates(
        ctx: ToolContext,
        kinds: Annotated[list[Kind] | None, Field(max_length=3, description="Leave out for all three")] = None,
        limit: Annotated[int, Field(ge=1, le=50)] = 10,
        cwd: Cwd = None,
    ) -> Annotated[CallToolResult, CandidatesOut]:
        async def work(caller: Caller) -> tuple[str, JsonObject]:
            result = await consolidation.consolidation_candidates(caller, kinds=kinds, limit=limit)
            return candidates_text(result), result.to_json()

        return await runner.run("find_consolidation_candidates", ctx, cwd, work)

    @server.tool(
        name="consolidate_memories",
        title="Merge memories (or undo a merge)",
        description=texts["consolidate_memories"],
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False),
    )
    async def consolidate_memories(
        ctx: ToolContext,
        source_ids: Annotated[
            list[Id] | None, Field(max_length=20, description="Ids of the memories the merged memory replaces")
        ] = None,
        merged_content: Annotated[
            str | None, Field(max_length=limits.MAX_CONTENT_CHARS, description="The merged text you wrote")
        ] = None,
        collection: Collection | None = None,
        tags: Annotated[
            list[Annotated[str, Field(max_length=limits.MAX_TAG_CHARS)]] | None, Field(max_length=limits.MAX_TAGS)
        ] = None,
        importance: Annotated[float | None, Field(ge=0.0, le=1.0)] = None,
        confidence: Annotated[float | None, Field(ge=0.0, le=1.0)] = None,
        reason: Annotated[str, Field(max_length=limits.MAX_REASON_CHARS, description="Why they were merged")] = "",
        undo: Annotated[
            str | None,
            Field(max_length=limits.MAX_ID_CHARS, description="Id of a merged memory: restore its sources instead"),
        ] = None,
        cwd: Cwd = None,
    ) -> Annotated[CallToolResult, ConsolidateOut]:
        async def work(caller: Caller) -> tuple[str, JsonObject]:
            if undo:
                if source_ids or merged_content:
                    raise InvalidInput("pass either undo (alone) or source_ids with merged_content, not both")
                result = await consolidation.undo_consolidation(caller, id=undo)
                return undo_text(result), result.to_json()
            if not source_ids or not (merged_content or "").strip():
                raise InvalidInput(
                    "pass source_ids (the ids to merge) and merged_content (the merged text), or undo=<merged id>"
                )
            result = await consolidation.consolidate(
                caller,
                source_ids=source_ids,
                content=merged_content or "",
                collection=collection,
                tags=tags or (),
                importance=importance,
                confidence=confidence,
                reason=reason,
            )
            return consolidate_text(result), result.to_json()

        return await runner.run("consolidate_memories", ctx, cwd, work)
