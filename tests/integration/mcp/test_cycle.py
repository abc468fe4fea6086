"""The full cycle: hooks inject memories over HTTP, the assistant scores them through MCP.

Scoring state lives in the memory service, so the tools (stdio or HTTP, with
an empty session id: the scope's latest session) score exactly what the
hooks injected into the Claude Code session.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from gateway.reply_models import ContextOut, MemoryChangeOut, MemoryOut, ScoreOut, SearchHitOut, SearchOut
from tests.integration.mcp.clients import TRANSPORTS, connect, ok, reply
from tests.support.mcp_stack import McpStack, run_async

PROMPT = "how do I deploy the billing service to staging?"


def turn(stack: McpStack, project: Path, session: str, answer: str = "Run helm upgrade --atomic.") -> ContextOut:
    """One Claude Code turn through the hook endpoints: get-context, then stop."""
    context = stack.post("/api/hooks/get-context", {"session_id": session, "prompt": PROMPT, "cwd": str(project)})
    stack.post("/api/hooks/stop", {"session_id": session, "cwd": str(project), "assistant_text": answer})
    return ContextOut.model_validate(context)


async def memory(client: Client, memory_id: str) -> SearchHitOut:
    return reply(await client.call_tool("search_memory", {"id": memory_id}), SearchOut).memories[0]


async def takeaway(client: Client, text: str, **arguments: str) -> MemoryOut:
    """record_response's memory."""
    return reply(await client.call_tool("record_response", {"key_takeaway": text, **arguments}), MemoryChangeOut).memory


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_injected_memories_are_scored_through_score_response(
    mcp_stack: McpStack, project: Path, transport: str
) -> None:
    async def go() -> None:
        async with connect(mcp_stack, transport, project) as client:
            helpful = await takeaway(client, "Deploy the billing service to staging with helm upgrade --atomic")
            misleading = await takeaway(client, "Deploy the billing service to staging by copying jars over scp")

            first = turn(mcp_stack, project, f"cc-{transport}")
            assert f"[id:{helpful.id}]" in first.context and f"[id:{misleading.id}]" in first.context
            follow_up = ContextOut.model_validate(
                mcp_stack.post(
                    "/api/hooks/get-context",
                    {"session_id": f"cc-{transport}", "prompt": "thanks, that worked", "cwd": str(project)},
                )
            )
            assert follow_up.scoring_required is True
            assert {helpful.id, misleading.id} <= set(follow_up.scoring_ids)

            result = reply(
                await client.call_tool(
                    "score_response",
                    {
                        "outcome": "worked",
                        "memory_scores": {helpful.id: "worked", misleading.id: "failed"},
                    },
                ),
                ScoreOut,
            )
            moves = {s.id: s for s in result.scored}
            assert moves[helpful.id].score_before == pytest.approx(0.5)
            assert moves[helpful.id].score_after == pytest.approx(0.7)
            assert moves[misleading.id].score_after == pytest.approx(0.2)

            after = await memory(client, helpful.id)
            assert after.score == pytest.approx(0.7) and after.uses == 1 and after.outcome_history == "[Y]"
            assert (await memory(client, misleading.id)).outcome_history == "[N]"

    run_async(go, timeout=180)


@pytest.mark.parametrize("transport", ["http"])  # same tool code on stdio (see the test above)
def test_related_omitted_empty_and_explicit_are_distinct(mcp_stack: McpStack, project: Path, transport: str) -> None:
    async def go() -> None:
        async with connect(mcp_stack, transport, project) as client:
            a = await takeaway(client, "Billing staging deploys use the helm chart in deploy/billing")
            b = await takeaway(client, "Billing staging deploys need the VPN to reach the cluster")

            async def scores() -> tuple[float, float]:
                return (await memory(client, a.id)).score, (await memory(client, b.id)).score

            turn(mcp_stack, project, f"rel-empty-{transport}")
            ok(await client.call_tool("score_response", {"outcome": "worked", "related": []}))
            assert await scores() == pytest.approx((0.5, 0.5)), "related=[] scores no memory"

            turn(mcp_stack, project, f"rel-omitted-{transport}")
            ok(await client.call_tool("score_response", {"outcome": "partial"}))
            assert await scores() == pytest.approx((0.55, 0.55)), "omitted scores every injected one"

            turn(mcp_stack, project, f"rel-list-{transport}")
            ok(await client.call_tool("score_response", {"outcome": "failed", "related": [a.id]}))
            assert await scores() == pytest.approx((0.25, 0.55)), "a list scores exactly those"

    run_async(go, timeout=180)


def test_http_scope_comes_from_the_header_and_the_cwd_argument(mcp_stack: McpStack, tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for directory in (one, two):
        (directory / ".git").mkdir(parents=True)

    async def go() -> None:
        async with connect(mcp_stack, "http", one) as client:
            mine = await takeaway(client, "Project one builds with bazel")
            theirs = await takeaway(client, "Project two builds with cargo", cwd=str(two))
            seen_one = reply(
                await client.call_tool("search_memory", {"query": "how does the project build?"}), SearchOut
            )
            seen_two = reply(
                await client.call_tool("search_memory", {"query": "how does the project build?", "cwd": str(two)}),
                SearchOut,
            )
        assert [m.id for m in seen_one.memories] == [mine.id]
        assert [m.id for m in seen_two.memories] == [theirs.id]

    run_async(go)
