"""The knowledge-graph tool: ``query_kg``, a thin translation onto ``LibraryService.graph``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from gateway import input_validation as limits
from gateway.caller import Caller
from gateway.capabilities.library_service import LibraryService
from gateway.mcp import tool_text
from gateway.mcp.memory_tools import READ_ONLY, Cwd
from gateway.mcp.tool_runner import ToolContext, ToolRunner, ToolServer
from gateway.replies.reply_json import JsonObject
from gateway.reply_models import GraphOut


def register_graph_tools(
    server: ToolServer, runner: ToolRunner, library: LibraryService, texts: Mapping[str, str]
) -> None:
    @server.tool(
        name="query_kg", title="Explore the knowledge graph", description=texts["query_kg"], annotations=READ_ONLY
    )
    async def query_kg(
        ctx: ToolContext,
        entities: Annotated[
            list[Annotated[str, Field(max_length=limits.MAX_ID_CHARS)]] | None,
            Field(max_length=50, description="Names to centre on"),
        ] = None,
        limit: Annotated[int, Field(ge=1, le=500)] = 50,
        cwd: Cwd = None,
    ) -> Annotated[CallToolResult, GraphOut]:
        async def work(caller: Caller) -> tuple[str, JsonObject]:
            result = await library.graph(caller, entities=entities, limit=limit)
            return tool_text.graph_text(result), result.to_json()

        return await runner.run("query_kg", ctx, cwd, work)
