"""Operations used by MCP and the CLI but not exposed as hook routes: insights, takeaways, kg view."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.backends import Backends
from gateway.errors import InvalidInput, NotFound
from gateway.operations import Operations
from tests.integration.gateway.live_stack import LiveStack

pytestmark = pytest.mark.integration


def test_insights_takeaway_score_and_kg_view(live: LiveStack, loop_thread, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cwd = str(tmp_path / "svc")
    (tmp_path / "svc" / ".git").mkdir(parents=True)

    async def scenario() -> dict[str, object]:
        ops = Operations(Backends.connect(live.settings), live.settings)
        try:
            fact = await ops.add_memory_bank(
                cwd=cwd, content="The user maintains the Redis cache layer of the orders service"
            )
            takeaway = await ops.record_takeaway(
                cwd=cwd,
                session_id="ops-1",
                key_takeaway="Redis eviction must be allkeys-lru for the orders cache",
                initial_score="worked",
            )
            insights = await ops.insights(cwd=cwd, session_id="", query="how should the orders Redis cache evict keys?")
            graph = await ops.kg_graph(cwd=cwd, limit=20)
            with pytest.raises(InvalidInput, match="worked, partial"):
                await ops.score(cwd=cwd, session_id="ops-1", outcome="meh")
            with pytest.raises(NotFound):
                await ops.archive_memory(cwd=cwd, id="history_" + "1" * 32)
            with pytest.raises(InvalidInput, match="days_back"):
                await ops.search(cwd=cwd)
            return {"fact": fact, "takeaway": takeaway, "insights": insights, "graph": graph}
        finally:
            await ops.backends.close()

    result = loop_thread.run(scenario(), timeout=120)
    takeaway = result["takeaway"]["memory"]  # type: ignore[index]
    assert takeaway["collection"] == "working" and takeaway["score"] > 0.5
    insights = result["insights"]
    ids = [m["id"] for m in insights["memories"]]  # type: ignore[index]
    assert takeaway["id"] in ids and result["fact"]["memory"]["id"] in ids  # type: ignore[index]
    assert "KNOWN CONTEXT" in insights["text"]  # type: ignore[index]
    assert insights["routing"]["concepts"]  # type: ignore[index]
    assert result["fact"]["entities"]  # type: ignore[index]
    assert set(result["graph"]) >= {"nodes", "edges", "routing"}  # type: ignore[arg-type]
