"""Services used by MCP and the CLI but not exposed as hook routes: insights, takeaways, kg view."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.gateway_composition import Gateway
from gateway.gateway_errors import InvalidInput, NotFound
from gateway.rpc import Rpc
from tests.integration.gateway.live_stack import LiveStack


def test_insights_takeaway_score_and_kg_view(live: LiveStack, loop_thread, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    cwd = str(tmp_path / "svc")
    (tmp_path / "svc" / ".git").mkdir(parents=True)

    async def scenario() -> dict[str, object]:
        gateway = Gateway.build(live.settings, Rpc.connect(live.settings))
        caller = gateway.callers.resolve(cwd)
        memories = gateway.memories
        try:
            fact = await memories.add_memory_bank(
                caller, content="The user maintains the Redis cache layer of the orders service"
            )
            takeaway = await memories.record_takeaway(
                caller,
                session_id="ops-1",
                key_takeaway="Redis eviction must be allkeys-lru for the orders cache",
                initial_score="worked",
            )
            insights = await memories.insights(caller, query="how should the orders Redis cache evict keys?")
            graph = await gateway.library.graph(caller, limit=20)
            with pytest.raises(InvalidInput, match="worked, partial"):
                await memories.score(caller, session_id="ops-1", outcome="meh")
            with pytest.raises(NotFound):
                await memories.archive(caller, id="history_" + "1" * 32)
            with pytest.raises(InvalidInput, match="days_back"):
                await memories.find(caller)
            return {
                "fact": fact.to_json(),
                "takeaway": takeaway.to_json(),
                "insights": insights.to_json(),
                "graph": graph.to_json(),
            }
        finally:
            await gateway.rpc.close()

    result = loop_thread.run(scenario(), timeout=120)
    takeaway = result["takeaway"]["memory"]
    assert takeaway["collection"] == "working" and takeaway["score"] > 0.5
    insights = result["insights"]
    ids = [m["id"] for m in insights["memories"]]
    assert takeaway["id"] in ids and result["fact"]["memory"]["id"] in ids
    assert "KNOWN CONTEXT" in insights["text"]
    assert insights["routing"]["concepts"]
    assert result["fact"]["entities"]
    assert set(result["graph"]) >= {"nodes", "edges", "routing"}
