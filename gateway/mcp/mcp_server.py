"""Build the mnemex MCP server on the gateway's services (one implementation for all transports).

    server = build_server(gateway, default_cwd=os.getcwd(), ready=gate)   # stdio
    server = build_server(gateway)                                        # HTTP

``gateway`` is the ``gateway.gateway_composition.Gateway``; ``ready`` (stdio) is awaited
before each tool call, so a call waits there for the stack to come up. Each
tool module gets the one service it uses.

Tool descriptions quote the memory service's rules, asked for over
``GetRules`` at the first ``list_tools`` and cached; until the service
answers they quote the defaults (``gateway.mcp.facts`` says when it asks).
"""

from __future__ import annotations

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, InputRequiredResult
from mcp.types import Tool as MCPTool
from pydantic import ValidationError

from gateway.gateway_composition import Gateway
from gateway.mcp import tool_text
from gateway.mcp.audit import SelfAuditTrigger
from gateway.mcp.consolidation_tools import register_consolidation_tools
from gateway.mcp.descriptions import SERVER_INSTRUCTIONS, tool_texts
from gateway.mcp.facts import DEFAULT_FACTS, FactsCache
from gateway.mcp.graph_tools import register_graph_tools
from gateway.mcp.memory_tools import register_memory_tools
from gateway.mcp.problem_tools import register_problem_tools
from gateway.mcp.tool_runner import Ready, ToolContext, ToolRunner, ToolServer, error_result
from gateway.rules import Rules
from kernel import __version__

SERVER_NAME = "mnemex"


class MnemexMCPServer(ToolServer):
    """MCPServer whose tool descriptions quote the memory service's rules and whose
    argument-validation errors tell the model how to fix the call."""

    facts: FactsCache | None = None

    async def list_tools(self) -> list[MCPTool]:
        tools = await super().list_tools()
        if self.facts is None:
            return tools
        texts = tool_texts(await self.facts.get())
        return [t.model_copy(update={"description": texts[t.name]}) if t.name in texts else t for t in tools]

    async def call_tool(
        self, name: str, arguments: dict[str, object], context: ToolContext | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                return error_result(tool_text.invalid_arguments_text(name, cause.errors(include_url=False)))
            if str(exc).startswith("Unknown tool"):
                names = ", ".join(sorted(t.name for t in await self.list_tools()))
                return error_result(f"{exc}. mnemex tools are: {names}.")
            raise


async def _always_ready() -> None:
    return None


def build_server(
    gateway: Gateway,
    *,
    default_cwd: str | None = None,
    ready: Ready = _always_ready,
    audit: SelfAuditTrigger | None = None,
) -> MnemexMCPServer:
    server = MnemexMCPServer(
        SERVER_NAME,
        title="mnemex memory",
        instructions=SERVER_INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
    )

    async def memory_rules() -> Rules:
        await ready()
        return await gateway.admin.rules()

    server.facts = FactsCache(memory_rules)
    runner = ToolRunner(ready, gateway.callers, default_cwd, audit or SelfAuditTrigger())
    texts = tool_texts(DEFAULT_FACTS)
    register_memory_tools(server, runner, gateway.memories, texts)
    register_graph_tools(server, runner, gateway.library, texts)
    register_consolidation_tools(server, runner, gateway.consolidation, texts)
    register_problem_tools(server, runner, gateway.problems, texts)
    return server
