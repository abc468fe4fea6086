"""The user's top memory_bank facts that hold in the caller's project, for the session-start seed and
the insights overview."""

from __future__ import annotations

from gateway.replies.memory_replies import Memory, memories_of
from gateway.rpc import Rpc
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb


def holds_in(fact: Memory, project: str) -> bool:
    """Whether a fact applies in ``project``: user-wide (or stored before facts had a scope), or
    stated there (services/memory/domain/fact_scope.py); another project's fact is never shown."""
    return (fact.metadata or {}).get("fact_scope") != "project" or fact.project == project


async def top_facts(rpc: Rpc, scope: common_pb.Scope, limit: int) -> tuple[Memory, ...]:
    """memory_bank facts that hold in ``scope.project``, ranked by importance x confidence."""
    request = mem_pb.ListRequest(scope=scope, collection="memory_bank", limit=50, sort_by=mem_pb.SORT_BY_SCORE)
    reply: mem_pb.ListResponse = await rpc.unary("memory", rpc.memory(scope.user).List, request)
    facts = [f for f in memories_of(reply.memories) if holds_in(f, scope.project)]
    facts.sort(key=lambda f: -((f.importance or 0.0) * (f.confidence or 0.0)))
    return tuple(facts[:limit])
