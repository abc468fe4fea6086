"""Memories an MCP tool returned are scored like injected ones, with the turn they were shown in.

The tools run with an empty session id: the project's latest session, the one
``score_response`` scores. A search during turn N joins turn N; a score sent
while turn N is being answered never applies to turn N (its memories are the
ones being used right now), so turn N's memories, searched ones included, are
scored by the ``score_response`` of turn N+1. Scores are read over REST: a
REST search is a read and records nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.mcp.models import InsightsOut
from gateway.reply_models import ContextOut, MemoryChangeOut, ScoreOut, SearchOut, StopOut, StoredFactOut
from tests.integration.mcp.clients import TRANSPORTS, connect, reply
from tests.support.mcp_stack import McpStack, run_async


def score_of(stack: McpStack, project: Path, memory_id: str) -> float:
    found = SearchOut.model_validate(stack.post("/api/search", {"id": memory_id, "cwd": str(project)})).memories
    return found[0].score


def begin(stack: McpStack, project: Path, session: str, prompt: str) -> None:
    """A turn whose prompt got no context (Cursor's beforeSubmitPrompt): only a search can show memories."""
    assert stack.post("/api/hooks/turn-start", {"session_id": session, "cwd": str(project), "prompt": prompt}) == {
        "recorded": True
    }


def finish(stack: McpStack, project: Path, session: str, answer: str) -> None:
    stored = stack.post("/api/hooks/stop", {"session_id": session, "cwd": str(project), "assistant_text": answer})
    assert StopOut.model_validate(stored).exchange_id


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_search_results_are_scored_by_the_next_turns_score_response(
    mcp_stack: McpStack, project: Path, transport: str
) -> None:
    session = f"search-score-{transport}"

    async def go() -> None:
        async with connect(mcp_stack, transport, project) as client:
            found = reply(
                await client.call_tool(
                    "record_response",
                    {"key_takeaway": "The payments worker retries webhooks with exponential backoff up to 6 times"},
                ),
                MemoryChangeOut,
            ).memory
            assert score_of(mcp_stack, project, found.id) == pytest.approx(0.5)

            begin(mcp_stack, project, session, "how often does the payments worker retry webhooks?")
            results = reply(
                await client.call_tool("search_memory", {"query": "payments worker webhook retries"}), SearchOut
            )
            assert found.id in [m.id for m in results.memories]
            early = reply(await client.call_tool("score_response", {"outcome": "worked"}), ScoreOut)
            assert early.scored == [], "a score while answering never applies to the turn in progress"
            finish(mcp_stack, project, session, "Up to 6 times, with exponential backoff.")

            begin(mcp_stack, project, session, "great, that matches the logs")
            scored = reply(await client.call_tool("score_response", {"outcome": "worked"}), ScoreOut)
            assert found.id in {s.id for s in scored.scored}
            assert score_of(mcp_stack, project, found.id) == pytest.approx(0.7)

    run_async(go, timeout=180)


def test_insights_results_join_the_scoring_prompt_of_the_next_turn(mcp_stack: McpStack, project: Path) -> None:
    session = "insights-score"

    async def go() -> None:
        async with connect(mcp_stack, "http", project) as client:
            fact = reply(
                await client.call_tool(
                    "add_to_memory_bank", {"content": "The staging database is a read replica of production"}
                ),
                StoredFactOut,
            ).memory
            begin(mcp_stack, project, session, "can I run migrations on staging?")
            insights = reply(
                await client.call_tool("get_context_insights", {"query": "staging database migrations"}), InsightsOut
            )
            assert fact.id in [m.id for m in insights.memories]
            finish(mcp_stack, project, session, "No: staging is a read replica.")

        follow_up = ContextOut.model_validate(
            mcp_stack.post(
                "/api/hooks/get-context", {"session_id": session, "prompt": "ok, thanks", "cwd": str(project)}
            )
        )
        assert follow_up.scoring_required is True
        assert fact.id in follow_up.scoring_ids

    run_async(go, timeout=180)
