"""get_context_insights through the real MCP client reads the action, problem -> solution and failure graphs.

The graphs are taught the way a user teaches them: PostToolUse events for shell commands
(their output tells the outcome) and a scored turn over the hook endpoints.
"""

from __future__ import annotations

import time
from pathlib import Path

from gateway.mcp.models import InsightsOut
from gateway.reply_models import ContextOut, MemoryChangeOut
from tests.integration.mcp.clients import connect, reply, text_of
from tests.support.mcp_stack import McpStack, run_async

PROBLEM = "pytest fails again with sqlite3.OperationalError: database is locked in test_orders"
QUERY = "test_orders keeps failing: sqlite3.OperationalError database is locked under pytest"
WAL_FIX = "When the test database is locked, switch SQLite to WAL mode in the test settings."
TIMEOUT_FIX = "When the test database is locked, raise the connection busy timeout to 30 seconds."


def tool_run(stack: McpStack, cwd: Path, command: str, stdout: str) -> None:
    stack.post(
        "/api/hooks/post-tool-use",
        {
            "session_id": "tools",
            "cwd": str(cwd),
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
        },
    )


def insights(stack: McpStack, project: Path) -> tuple[str, InsightsOut]:
    async def go() -> tuple[str, InsightsOut]:
        async with connect(stack, "http", project) as client:
            result = await client.call_tool("get_context_insights", {"query": QUERY})
        return text_of(result), reply(result, InsightsOut)

    return run_async(go)


def test_insights_show_tool_effectiveness_known_solutions_and_past_failures(mcp_stack: McpStack, project: Path) -> None:
    async def remember() -> list[str]:
        async with connect(mcp_stack, "http", project) as client:
            ids = []
            for fix in (WAL_FIX, TIMEOUT_FIX):
                stored = reply(await client.call_tool("record_response", {"key_takeaway": fix}), MemoryChangeOut)
                ids.append(stored.memory.id)
            return ids

    wal, busy = run_async(remember)
    for stdout in ("== 12 passed in 0.4s ==", "== 12 passed in 0.5s ==", "== 1 failed, 11 passed in 0.6s =="):
        tool_run(mcp_stack, project, "cd app && uv run pytest -x tests", stdout)
    tool_run(mcp_stack, project, "pytest -x", "== 12 passed in 0.4s ==")
    tool_run(mcp_stack, project, "ls -la", "total 0")  # says nothing about success: not counted

    cwd = str(project)
    shown = mcp_stack.post("/api/hooks/get-context", {"session_id": "s1", "prompt": PROBLEM, "cwd": cwd})
    assert {wal, busy} <= {m.id for m in ContextOut.model_validate(shown).memories}
    mcp_stack.post("/api/hooks/stop", {"session_id": "s1", "cwd": cwd, "assistant_text": "Switched SQLite to WAL."})
    mcp_stack.post(
        "/api/record-outcome",
        {
            "session_id": "s1",
            "cwd": cwd,
            "outcome": "worked",
            "memory_scores": {wal: "worked", busy: "failed"},
            "related": [],
        },
    )

    deadline = time.monotonic() + 20  # the tool outcomes are taught in the background, after each reply
    text, data = insights(mcp_stack, project)
    while "`pytest -x` worked 3 of 4 times" not in text and time.monotonic() < deadline:
        time.sleep(0.2)
        text, data = insights(mcp_stack, project)

    assert "Tool and action effectiveness in this project:" in text
    assert "• `pytest -x` worked 3 of 4 times (coding)" in text
    assert "ls" not in {a.action for a in data.actions}
    assert "memories from working, when scored:" in text  # the score_response actions of the scored turn
    assert "Known solutions for this problem:" in text and f"[id:{wal}] (worked once)" in text
    assert "Past failures for this problem (avoid repeating them):" in text and f"[id:{busy}] (failed once)" in text
    assert text.index("Known solutions") < text.index(f"[id:{wal}]") < text.index("Past failures")
    assert wal in [s.id for s in data.solutions] and [f.id for f in data.failures] == [busy]
    pytest_row = next(a for a in data.actions if a.action == "pytest -x")
    assert (pytest_row.worked, pytest_row.failed) == (3, 1)
