"""Every tool, with valid and invalid arguments, over stdio and over HTTP, against the real stack."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gateway.mcp.models import InsightsOut
from gateway.reply_models import GraphOut, MemoryChangeOut, SearchOut, StoredFactOut
from tests.integration.mcp.clients import TRANSPORTS, connect, expect_error, reply, text_of
from tests.support.mcp_stack import McpStack, run_async

ID = re.compile(r"\[id:([A-Za-z0-9_]+)\]")


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_every_tool_valid_and_invalid(mcp_stack: McpStack, project: Path, transport: str) -> None:
    async def go() -> None:
        async with connect(mcp_stack, transport, project) as client:
            # add_to_memory_bank
            added = reply(
                await client.call_tool(
                    "add_to_memory_bank",
                    {
                        "content": f"The user ({transport}) deploys the billing service with Helm on staging",
                        "tags": ["deploy"],
                        "importance": 0.9,
                        "confidence": 0.6,
                    },
                ),
                StoredFactOut,
            )
            fact = added.memory
            assert fact.collection == "memory_bank" and fact.importance == 0.9 and fact.confidence == 0.6
            assert fact.tags == ["deploy"]
            await expect_error(client, "add_to_memory_bank", {"content": "x", "importance": 7}, "importance")
            await expect_error(client, "add_to_memory_bank", {"content": "   "}, "content is empty")

            # record_response
            takeaway = reply(
                await client.call_tool(
                    "record_response",
                    {
                        "key_takeaway": f"Billing deploys ({transport}) need helm upgrade --atomic or rollouts linger",
                        "initial_score": "worked",
                    },
                ),
                MemoryChangeOut,
            ).memory
            assert takeaway.collection == "working" and takeaway.score == pytest.approx(0.7)
            await expect_error(client, "record_response", {"key_takeaway": ""}, "key_takeaway")

            # search_memory: by meaning, by time, by id, and the errors
            found = await client.call_tool("search_memory", {"query": "how is billing deployed to staging?"})
            ids = [m.id for m in reply(found, SearchOut).memories]
            assert fact.id in ids and takeaway.id in ids
            line = next(ln for ln in text_of(found).splitlines() if takeaway.id in ln)
            assert re.match(r"\d+\. \[working\] \(\w+, s:0\.7, w:0\.5, 0 uses\) \[id:working_\w+\] Billing", line), line
            fact_line = next(ln for ln in text_of(found).splitlines() if fact.id in ln)
            assert "imp:0.9, conf:0.6" in fact_line and "s:" not in fact_line
            recent = reply(
                await client.call_tool("search_memory", {"days_back": 1, "collections": ["working"]}), SearchOut
            )
            assert [m.id for m in recent.memories] == [takeaway.id]
            exact = reply(await client.call_tool("search_memory", {"id": fact.id}), SearchOut)
            assert exact.memories[0].content == fact.content
            await expect_error(client, "search_memory", {}, "query", "days_back", "id")
            await expect_error(client, "search_memory", {"id": "working_" + "0" * 32}, "Copy the id exactly")
            await expect_error(client, "search_memory", {"query": "x", "limit": 101}, "limit")

            # update_memory
            updated = reply(
                await client.call_tool(
                    "update_memory", {"id": fact.id, "confidence": 0.95, "tags": ["deploy", "verified"]}
                ),
                MemoryChangeOut,
            ).memory
            assert updated.confidence == 0.95 and updated.tags == ["deploy", "verified"]
            await expect_error(client, "update_memory", {"id": fact.id}, "nothing to update")
            await expect_error(
                client, "update_memory", {"id": "memory_bank_" + "f" * 32, "content": "x"}, "search_memory"
            )

            # get_context_insights
            insights = await client.call_tool("get_context_insights", {"query": "deploying billing"})
            assert fact.id in ID.findall(text_of(insights))
            assert reply(insights, InsightsOut).self_audit is False
            await expect_error(client, "get_context_insights", {"query": ""}, "query")

            # query_kg
            graph = reply(await client.call_tool("query_kg", {"limit": 20}), GraphOut)
            assert graph.nodes, "storing a fact indexes its entities"
            await expect_error(client, "query_kg", {"limit": 0}, "limit")

            # archive_memory (destructive): it stops surfacing
            archived = reply(
                await client.call_tool("archive_memory", {"id": fact.id, "reason": "test"}), MemoryChangeOut
            ).memory
            assert archived.archived is True
            again = reply(
                await client.call_tool("search_memory", {"query": "how is billing deployed to staging?"}), SearchOut
            )
            assert fact.id not in [m.id for m in again.memories]
            await expect_error(client, "archive_memory", {"id": "memory_bank_" + "e" * 32}, "search_memory")

            # score_response: bad outcome; a real scoring cycle is in test_cycle.py
            await expect_error(client, "score_response", {"outcome": "great"}, "outcome")
            await expect_error(client, "score_response", {"outcome": "worked", "related": ["x" * 300]}, "related")

    run_async(go, timeout=180)


@pytest.mark.parametrize("transport", ["http"])  # the trigger is per server process; unit-tested in depth
def test_self_audit_reminder_comes_on_the_fifth_call_with_facts(
    mcp_stack: McpStack, project: Path, transport: str
) -> None:
    async def go() -> list[bool]:
        async with connect(mcp_stack, transport, project) as client:
            reply(
                await client.call_tool("add_to_memory_bank", {"content": f"The user's editor is Helix ({transport})"}),
                StoredFactOut,
            )
            flags = []
            for _ in range(6):
                result = await client.call_tool("get_context_insights", {"query": "which editor does the user use"})
                flags.append(reply(result, InsightsOut).self_audit)
                assert ("SELF-AUDIT" in text_of(result)) == flags[-1]
            return flags

    assert run_async(go) == [False, False, False, False, True, False]


def test_stack_down_gives_an_actionable_error_quickly(mcp_stack: McpStack, project: Path) -> None:
    async def go() -> str:
        down = {f"MNEMEX_{name}_ADDR": "127.0.0.1:9" for name in ("EMBEDDING", "MEMORY", "KG")}
        async with connect(mcp_stack, "stdio", project, **down) as client:
            tools = await client.list_tools()
            assert len(tools.tools) == 13, "the handshake never waits for the stack"
            result = await client.call_tool("search_memory", {"query": "anything"})
            assert result.is_error
            return text_of(result)

    text = run_async(go, timeout=60)
    assert "carry on without it" in text and "mnemex" in text
