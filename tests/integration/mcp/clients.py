"""Open the official MCP client on either transport, the same way for every test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TypeVar

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult
from pydantic import BaseModel

from kernel.json_values import JSONObject, as_object
from tests.support.mcp_stack import McpStack

TRANSPORTS = ("stdio", "http")
Shape = TypeVar("Shape", bound=BaseModel)


@asynccontextmanager
async def connect(stack: McpStack, transport: str, project: Path, **env: str) -> AsyncIterator[Client]:
    """stdio: spawn ``python -m mnemex.cli mcp`` in ``project``; http: /mcp with X-Mnemex-Cwd."""
    if transport == "stdio":
        async with Client(stack.stdio_params(project, **env), read_timeout_seconds=60) as client:
            yield client
        return
    async with (
        httpx2.AsyncClient(headers={"X-Mnemex-Cwd": str(project)}, timeout=60) as http,
        Client(streamable_http_client(stack.mcp_url, http_client=http), read_timeout_seconds=60) as client,
    ):
        yield client


def text_of(result: CallToolResult) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


def ok(result: CallToolResult) -> JSONObject:
    """The structured content of a result that is not an error."""
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    return as_object(result.structured_content)


def reply(result: CallToolResult, shape: type[Shape]) -> Shape:
    """The structured content of a result that is not an error, read as the tool's output model."""
    return shape.model_validate(ok(result))


async def expect_error(client: Client, tool: str, arguments: dict[str, object], *needles: str) -> str:
    result = await client.call_tool(tool, arguments)
    text = text_of(result)
    assert result.is_error, f"{tool}({arguments}) should fail: {text}"
    for needle in needles:
        assert needle in text, text
    return text
