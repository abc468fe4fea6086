"""GetRules: the memory service reports the rules it runs with, and the MCP tool descriptions quote them.

A memory service configured differently (here a 48-hour working TTL and a
0.15 delete line) must change what the assistant is told, with no setting
read on the gateway's side: the gateway asks the service over gRPC.
"""

from __future__ import annotations

from pathlib import Path

from gateway.capabilities.admin_service import AdminService
from gateway.mcp.descriptions import tool_texts
from gateway.mcp.facts import DEFAULT_FACTS, FactsCache
from gateway.rpc import Rpc
from gateway.rules import DEFAULT_RULES, rules_from_proto
from kernel.config import Settings
from protos.mnemex.memory.v1 import memory_service_pb2 as pb
from protos.mnemex.memory.v1.memory_service_pb2_grpc import MemoryServiceStub
from services.memory.domain.lifecycle import LifecycleConfig
from tests.support.loop_thread import LoopThread
from tests.support.memory_service import start_memory_service


def test_a_default_memory_service_reports_the_gateways_fallback_rules(stub: MemoryServiceStub) -> None:
    assert rules_from_proto(stub.GetRules(pb.GetRulesRequest(), timeout=10)) == DEFAULT_RULES


def test_the_descriptions_follow_a_memory_service_configured_differently(
    loop_thread: LoopThread, embedding_addr: str, tmp_path: Path
) -> None:
    lifecycle = LifecycleConfig(working_ttl_hours=48.0, delete_below=0.15)
    running = loop_thread.run(start_memory_service(tmp_path, embedding_addr, lifecycle=lifecycle))
    settings = Settings.from_env(
        {
            "MNEMEX_HOME": str(tmp_path),
            "MNEMEX_USER": "tester",
            "MNEMEX_EMBEDDING_ADDR": embedding_addr,
            "MNEMEX_MEMORY_ADDR": f"127.0.0.1:{running.port}",
            "MNEMEX_KG_ADDR": "127.0.0.1:9",
        }
    )

    async def described() -> tuple[str, str]:
        rpc = Rpc.connect(settings)
        try:
            cache = FactsCache(AdminService(rpc, settings).rules)
            facts = await cache.get()
        finally:
            await rpc.close()
        assert facts is not DEFAULT_FACTS
        return tool_texts(facts)["get_context_insights"], tool_texts(facts)["score_response"]

    try:
        overview, scoring = loop_thread.run(described())
    finally:
        loop_thread.run(running.stop(0))
    assert "unpromoted for 48 hours" in overview and "below 0.15 is deleted" in overview
    assert "unpromoted for 24 hours" not in overview
    assert "failed scores take even a perfect memory" in scoring
