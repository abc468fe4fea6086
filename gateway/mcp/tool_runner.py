"""Shared plumbing of every tool: readiness, the ``Caller`` (resolved once per tool call), errors.

Project scope, first match wins: the tool's ``cwd`` argument, the HTTP
request's ``X-Mnemex-Cwd`` header, the server's default (stdio: its working
directory or MNEMEX_PROJECT_DIR; HTTP: none, i.e. the ``default`` project).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent

from gateway.caller import Caller, CallerResolver
from gateway.gateway_errors import GatewayError
from gateway.mcp import tool_text
from gateway.mcp.audit import SelfAuditTrigger
from gateway.replies.reply_json import JsonObject

log = logging.getLogger("mnemex.mcp")

CWD_HEADER = "x-mnemex-cwd"
MAX_CWD_CHARS = 4_096

# The SDK's generics default to Any; named here once. The server's state is what the SDK's default lifespan
# yields (an empty dict: mnemex keeps none there); a request is the transport's own (HTTP's, or none on stdio).
ServerState = dict[str, object]
ToolContext = Context[ServerState, object]
ToolServer = MCPServer[ServerState]
Ready = Callable[[], Awaitable[None]]
Work = Callable[[Caller], Awaitable[tuple[str, JsonObject]]]


class ToolRunner:
    """Shared plumbing: wait until the services are ready, resolve the caller, map errors."""

    def __init__(self, ready: Ready, callers: CallerResolver, default_cwd: str | None, audit: SelfAuditTrigger) -> None:
        self.ready = ready
        self.callers = callers
        self.default_cwd = default_cwd
        self.audit = audit

    def cwd(self, ctx: ToolContext | None, argument: str | None) -> str | None:
        if argument:
            return argument
        headers = None
        if ctx is not None:
            try:
                headers = ctx.headers
            except (ValueError, AttributeError):
                headers = None
        header = headers.get(CWD_HEADER) if headers is not None else None
        if header and len(header) <= MAX_CWD_CHARS:
            return header
        return self.default_cwd

    async def run(self, tool: str, ctx: ToolContext | None, cwd_argument: str | None, work: Work) -> CallToolResult:
        try:
            await self.ready()
            message, data = await work(self.callers.resolve(self.cwd(ctx, cwd_argument)))
        except GatewayError as exc:
            log.info("%s: %s", tool, exc.message)
            return error_result(tool_text.error_text(tool, exc))
        except Exception as exc:
            log.exception("%s failed", tool)
            return error_result(tool_text.error_text(tool, exc))
        return CallToolResult(content=[TextContent(type="text", text=message)], structured_content=data)


def error_result(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)
