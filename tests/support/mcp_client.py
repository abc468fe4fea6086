"""The official MCP client over streamable HTTP, driven from sync tests."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TypeVar

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

T = TypeVar("T")


async def _session(url: str, cwd: str | None, headers: dict[str, str], work: Callable[[Client], Awaitable[T]]) -> T:
    sent = dict(headers)
    if cwd:
        sent["X-Mnemex-Cwd"] = cwd
    async with (
        httpx2.AsyncClient(headers=sent, timeout=60) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http), read_timeout_seconds=60) as client,
    ):
        return await work(client)


def call_tools(
    url: str, cwd: str | None, calls: Sequence[tuple[str, Mapping[str, object]]], headers: dict[str, str] | None = None
) -> list[CallToolResult]:
    """Call each (tool, arguments) in order over one MCP session."""

    async def work(client: Client) -> list[CallToolResult]:
        return [await client.call_tool(name, dict(arguments)) for name, arguments in calls]

    return asyncio.run(_session(url, cwd, headers or {}, work))


def tool_names(url: str, headers: dict[str, str] | None = None) -> list[str]:
    async def work(client: Client) -> list[str]:
        listed = await client.list_tools()
        return [tool.name for tool in listed.tools]

    return asyncio.run(_session(url, None, headers or {}, work))


def text_of(result: CallToolResult) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)
