"""Consolidation round trip through the real MCP client, against the live stack.

A contradiction is found (find_consolidation_candidates), merged and superseded
(consolidate_memories), its sources are archived, and undo restores them. The
automatic supersede on add_to_memory_bank goes through the same undo.
"""

from __future__ import annotations

import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from mcp import Client

from gateway.mcp.models import CandidatesOut, ConsolidateOut
from gateway.reply_models import MemoryOut, SearchOut, StoredFactOut
from tests.integration.mcp.clients import TRANSPORTS, connect, ok, reply, text_of
from tests.support.mcp_stack import McpStack, run_async


def stored(stack: McpStack, project: Path, memory_id: str) -> MemoryOut:
    """The memory as ``mnemex show`` reads it (GET /api/memories/{id}): archived ones too, unlike search."""
    query = urllib.parse.urlencode({"cwd": str(project)})
    with urllib.request.urlopen(f"{stack.gateway_url}/api/memories/{memory_id}?{query}", timeout=30) as response:
        return MemoryOut.model_validate_json(response.read())


async def searchable(client: Client, memory_id: str) -> bool:
    """Whether search_memory(id=...) finds it (archived memories are hidden from search)."""
    result = await client.call_tool("search_memory", {"id": memory_id})
    return not result.is_error and [m.id for m in reply(result, SearchOut).memories] == [memory_id]


async def archive(client: Client, *memories: MemoryOut) -> None:
    for memory in memories:
        ok(await client.call_tool("archive_memory", {"id": memory.id, "reason": "test cleanup"}))


async def add_fact(client: Client, content: str) -> StoredFactOut:
    return reply(await client.call_tool("add_to_memory_bank", {"content": content}), StoredFactOut)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_contradiction_is_found_merged_archived_and_undone(
    mcp_stack: McpStack, project: Path, transport: str
) -> None:
    async def go() -> None:
        async with connect(mcp_stack, transport, project) as client:
            # "runs on" may hold several values, so the write leaves both facts for the assistant to judge
            old = (await add_fact(client, f"The {transport} billing queue runs on Redis")).memory
            added = await add_fact(client, f"The {transport} billing queue runs on RabbitMQ")
            new = added.memory
            assert added.superseded == []

            found = await client.call_tool("find_consolidation_candidates", {"kinds": ["contradiction"]})
            clusters = reply(found, CandidatesOut).clusters
            mine = [c for c in clusters if {m.id for m in c.memories} == {old.id, new.id}]
            assert len(mine) == 1 and mine[0].kind == "contradiction"
            assert "redis" in mine[0].reason and "rabbitmq" in mine[0].reason
            assert f"[id:{old.id}]" in text_of(found) and f"[id:{new.id}]" in text_of(found)
            for member in mine[0].memories:
                assert {"score", "uses", "created_at", "importance"} <= member.model_fields_set, "keys in the reply"

            merged_text = f"The {transport} billing queue runs on RabbitMQ (it moved off Redis)"
            result = await client.call_tool(
                "consolidate_memories",
                {"source_ids": [old.id, new.id], "merged_content": merged_text, "reason": "queue migration"},
            )
            merge = reply(result, ConsolidateOut)
            merged = merge.merged
            assert merged.collection == "memory_bank" and merged.content == merged_text
            assert merged.metadata["consolidated_from"] == f"{old.id},{new.id}"
            assert f'consolidate_memories(undo="{merged.id}")' in text_of(result)
            assert sorted(m.id for m in merge.archived) == sorted([old.id, new.id])
            for source in (old, new):
                memory = stored(mcp_stack, project, source.id)
                assert memory.archived is True and memory.metadata["superseded_by"] == merged.id
                assert not await searchable(client, source.id)
            hits = reply(
                await client.call_tool("search_memory", {"query": f"what does the {transport} billing queue run on"}),
                SearchOut,
            )
            hit_ids = [m.id for m in hits.memories]
            assert merged.id in hit_ids and old.id not in hit_ids and new.id not in hit_ids

            undone = reply(await client.call_tool("consolidate_memories", {"undo": merged.id}), ConsolidateOut)
            assert sorted(m.id for m in undone.restored) == sorted([old.id, new.id])
            assert undone.merged.archived is True
            for source in (old, new):
                assert stored(mcp_stack, project, source.id).archived is False
                assert await searchable(client, source.id)
            assert stored(mcp_stack, project, merged.id).archived is True
            assert not await searchable(client, merged.id)

            again = await client.call_tool("consolidate_memories", {"undo": merged.id})
            assert again.is_error and "already undone" in text_of(again)
            both = await client.call_tool(
                "consolidate_memories", {"undo": merged.id, "source_ids": [old.id], "merged_content": "x"}
            )
            assert both.is_error and "either undo" in text_of(both)
            await archive(client, old, new)  # memory_bank is user-wide: leave nothing active for other tests

    run_async(go, timeout=180)


@pytest.mark.parametrize("transport", ["http"])
def test_a_new_value_supersedes_the_old_fact_on_add_and_undo_restores_it(
    mcp_stack: McpStack, project: Path, transport: str
) -> None:
    async def go() -> None:
        async with connect(mcp_stack, transport, project) as client:
            old = (await add_fact(client, f"The {transport} staging database port is 5432")).memory
            result = await client.call_tool(
                "add_to_memory_bank", {"content": f"The {transport} staging database port is 6543"}
            )
            added = reply(result, StoredFactOut)
            new = added.memory
            assert added.superseded == [old.id] and old.id in text_of(result)
            memory = stored(mcp_stack, project, old.id)
            assert memory.archived is True and memory.metadata["superseded_by"] == new.id
            assert new.metadata["supersedes"] == old.id

            undone = reply(await client.call_tool("consolidate_memories", {"undo": new.id}), ConsolidateOut)
            assert [m.id for m in undone.restored] == [old.id]
            assert undone.merged.archived is False  # the newer fact is the user's own: it stays
            assert stored(mcp_stack, project, old.id).archived is False and await searchable(client, old.id)
            await archive(client, old, new)

    run_async(go, timeout=180)
