"""add_to_memory_bank takes the scope of a fact: this project by default, or user-wide (issue 28)."""

from __future__ import annotations

from pathlib import Path

from gateway.reply_models import StoredFactOut
from tests.integration.mcp.clients import connect, reply
from tests.support.mcp_stack import McpStack, run_async


def test_add_to_memory_bank_stores_the_scope_it_was_given(mcp_stack: McpStack, project: Path) -> None:
    async def go() -> tuple[StoredFactOut, StoredFactOut]:
        async with connect(mcp_stack, "stdio", project) as client:
            local = await client.call_tool("add_to_memory_bank", {"content": "The ledger API listens on port 8040"})
            wide = await client.call_tool(
                "add_to_memory_bank", {"content": "The user prefers terse answers", "user_wide": True}
            )
        return reply(local, StoredFactOut), reply(wide, StoredFactOut)

    local, wide = run_async(go)
    assert local.memory.metadata["fact_scope"] == "project"
    assert wide.memory.metadata["fact_scope"] == "user"
