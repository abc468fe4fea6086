"""The MCP server in-process (official client, no backends): schema, annotations, argument errors."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar, cast

import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent, Tool, ToolAnnotations

from gateway.caller import CallerResolver
from gateway.gateway_composition import Gateway
from gateway.mcp.audit import SelfAuditTrigger
from gateway.mcp.mcp_server import build_server
from gateway.mcp.tool_runner import ToolContext, ToolRunner
from gateway.rpc import Rpc
from kernel.config import Settings
from mnemex.client_setup.client_entries import TOOL_NAMES

T = TypeVar("T")


_SETTINGS = Settings.from_env({"MNEMEX_HOME": "/nonexistent-mnemex-home", "MNEMEX_USER": "tester"})
SERVER = build_server(Gateway.build(_SETTINGS, Rpc(_SETTINGS)))  # the Rpc never connects: no backend is reached


def run(make: Callable[[Client], Awaitable[T]]) -> T:
    async def main() -> T:
        async with Client(SERVER) as client:
            return await make(client)

    return asyncio.run(main())


def tool_annotations(tool: Tool) -> ToolAnnotations:
    assert tool.annotations is not None
    return tool.annotations


def first_text(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def test_tools_and_annotations() -> None:
    tools = {t.name: t for t in run(lambda c: c.list_tools()).tools}
    assert set(tools) == set(TOOL_NAMES)
    for name in ("search_memory", "get_context_insights", "query_kg"):
        assert tool_annotations(tools[name]).read_only_hint is True
    assert tool_annotations(tools["archive_memory"]).destructive_hint is True
    assert tool_annotations(tools["add_to_memory_bank"]).read_only_hint is False
    for tool in tools.values():
        assert tool.output_schema and tool.output_schema["type"] == "object"
        assert "cwd" in tool.input_schema["properties"]
    assert tools["search_memory"].input_schema.get("required", []) == []
    assert set(tools["score_response"].input_schema["required"]) == {"outcome"}


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("search_memory", {}, "give at least one of query"),
        ("search_memory", {"days_back": 4000}, "days_back: Input should be less than or equal to 3650"),
        ("search_memory", {"query": "x", "sort_by": "best"}, "sort_by"),
        ("search_memory", {"query": "x", "collections": ["nope"]}, "collections"),
        ("search_memory", {"query": "x" * 2001}, "query"),
        ("add_to_memory_bank", {"content": ""}, "content"),
        ("add_to_memory_bank", {"content": "fact", "confidence": 1.5}, "confidence"),
        ("score_response", {"outcome": "great"}, "outcome"),
        ("score_response", {"outcome": "worked", "memory_scores": {"a": "meh"}}, "memory_scores"),
        ("record_response", {"key_takeaway": "x", "initial_score": "unknown"}, "initial_score"),
        ("update_memory", {}, "id: Field required"),
        ("query_kg", {"limit": 0}, "limit"),
    ],
)
def test_invalid_arguments_are_error_results_that_say_how_to_fix(
    tool: str, arguments: dict[str, object], expected: str
) -> None:
    result = run(lambda c: c.call_tool(tool, arguments))
    assert result.is_error
    text = first_text(result)
    assert expected in text and f"call {tool} again" in text


def test_unknown_tool_lists_the_real_ones() -> None:
    result = run(lambda c: c.call_tool("delete_memory", {"id": "x"}))
    assert result.is_error and "archive_memory" in first_text(result)


class FakeContext:
    def __init__(self, headers: dict[str, str] | None) -> None:
        self.headers = headers


def context(headers: dict[str, str] | None) -> ToolContext:
    """A stand-in for the MCP request context: ToolRunner.cwd reads only its headers."""
    return cast("ToolContext", FakeContext(headers))


def test_project_scope_precedence(tmp_path: Path) -> None:
    async def ready() -> None:
        return None

    runner = ToolRunner(ready, CallerResolver(_SETTINGS), default_cwd="/srv/default", audit=SelfAuditTrigger())
    header = context({"x-mnemex-cwd": str(tmp_path)})
    assert runner.cwd(header, "/explicit") == "/explicit"
    assert runner.cwd(header, None) == str(tmp_path)
    assert runner.cwd(context(None), None) == "/srv/default"
    assert runner.cwd(context({"x-mnemex-cwd": "x" * 5000}), None) == "/srv/default"


def test_stdio_project_dir_uses_mnemex_project_dir_only_when_it_is_a_directory(tmp_path: Path) -> None:
    from gateway.mcp.stdio import project_dir

    assert project_dir({"MNEMEX_PROJECT_DIR": str(tmp_path)}, "/cwd") == str(tmp_path)
    assert project_dir({"MNEMEX_PROJECT_DIR": "${workspaceFolder}"}, "/cwd") == "/cwd", "left unexpanded by the client"
    assert project_dir({"MNEMEX_PROJECT_DIR": str(tmp_path / "missing")}, "/cwd") == "/cwd"
    assert project_dir({}, "/cwd") == "/cwd"
