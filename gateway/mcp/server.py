"""Build the mnemex MCP server on top of ``Operations`` (one implementation for all transports).

    server = build_server(operations, default_cwd=os.getcwd())   # stdio
    server = build_server(provider)                               # HTTP: provider() -> Operations

``operations`` is either an ``Operations`` or an async callable returning one
(the stdio transport waits there for the stack to come up; the gateway
resolves the instance its lifespan created).

Tool descriptions quote the memory service's rules, asked for over
``GetRules`` at the first ``list_tools`` and cached; until the service
answers they quote the defaults (``gateway.mcp.facts`` says when it asks).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import Tool as MCPTool
from pydantic import ValidationError

from gateway.mcp import render
from gateway.mcp.audit import SelfAuditTrigger
from gateway.mcp.descriptions import SERVER_INSTRUCTIONS, tool_texts
from gateway.mcp.facts import FactsCache
from gateway.mcp.runner import ToolRunner, error_result
from gateway.mcp.tools import register_tools
from gateway.operations import Operations
from gateway.rules import Rules
from kernel import __version__

SERVER_NAME = "mnemex"
OperationsSource = Operations | Callable[[], Awaitable[Operations]]


class MnemexMCPServer(MCPServer):
    """MCPServer whose tool descriptions quote the memory service's rules and whose
    argument-validation errors tell the model how to fix the call."""

    facts: FactsCache | None = None

    async def list_tools(self) -> list[MCPTool]:
        tools = await super().list_tools()
        if self.facts is None:
            return tools
        texts = tool_texts(await self.facts.get())
        return [t.model_copy(update={"description": texts[t.name]}) if t.name in texts else t for t in tools]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                return error_result(render.invalid_arguments_text(name, cause.errors(include_url=False)))
            if str(exc).startswith("Unknown tool"):
                names = ", ".join(sorted(t.name for t in await self.list_tools()))
                return error_result(f"{exc}. mnemex tools are: {names}.")
            raise


def _provider(operations: OperationsSource) -> Callable[[], Awaitable[Operations]]:
    if isinstance(operations, Operations) or not callable(operations):

        async def fixed() -> Operations:
            return operations

        return fixed
    return operations


def build_server(
    operations: OperationsSource,
    *,
    default_cwd: str | None = None,
    audit: SelfAuditTrigger | None = None,
) -> MnemexMCPServer:
    server = MnemexMCPServer(
        SERVER_NAME,
        title="mnemex memory",
        instructions=SERVER_INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
    )
    provider = _provider(operations)

    async def memory_rules() -> Rules:
        return await (await provider()).rules()

    server.facts = FactsCache(memory_rules)
    register_tools(server, ToolRunner(provider, default_cwd, audit or SelfAuditTrigger()))
    return server
