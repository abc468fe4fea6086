"""Consolidation through the gateway: candidates, consolidate, undo (the MCP tools and REST use these).

mnemex runs no model: ``consolidation_candidates`` shows
the assistant what needs a decision, ``consolidate`` applies the decision the
assistant wrote, ``undo_consolidation`` reverses it. The memory service does
the work (``services/memory/usecases/consolidation.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

from gateway import input_validation
from gateway.caller import Caller
from gateway.gateway_errors import InvalidInput
from gateway.replies.consolidation_replies import Candidates, Cluster, Consolidation
from gateway.replies.memory_replies import Memory, memories_of
from gateway.rpc import Rpc
from kernel.config import Settings
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

KINDS = ("duplicate", "contradiction", "stale")
MAX_CLUSTERS = 50
MAX_SOURCES = 20


class ConsolidationService:
    def __init__(self, rpc: Rpc, settings: Settings) -> None:
        self.rpc = rpc
        self.settings = settings

    async def consolidation_candidates(
        self, caller: Caller, *, kinds: Sequence[str] | None = None, limit: int = 10
    ) -> Candidates:
        """Clusters that need a decision: ``{"clusters": [{kind, reason, similarity, memories}], "scanned": n}``."""
        chosen = [k for k in kinds or () if k]
        unknown = [k for k in chosen if k not in KINDS]
        if unknown:
            raise InvalidInput(f"unknown kind(s) {unknown}: use any of {', '.join(KINDS)}, or leave kinds out")
        input_validation.in_range(limit, "limit", (1, MAX_CLUSTERS))
        request = mem_pb.FindConsolidationCandidatesRequest(scope=caller.scope, kinds=chosen, limit=limit)
        reply: mem_pb.FindConsolidationCandidatesResponse = await self.rpc.unary(
            "memory", self.rpc.memory(caller.user).FindConsolidationCandidates, request
        )
        clusters = tuple(
            Cluster(
                kind=c.kind,
                reason=c.reason,
                similarity=c.similarity if c.HasField("similarity") else None,
                memories=memories_of(c.memories),
            )
            for c in reply.clusters
        )
        return Candidates(clusters=clusters, scanned=reply.scanned)

    async def consolidate(
        self,
        caller: Caller,
        *,
        source_ids: Sequence[str],
        content: str,
        collection: str | None = None,
        tags: Sequence[str] = (),
        importance: float | None = None,
        confidence: float | None = None,
        reason: str = "",
    ) -> Consolidation:
        """One merged memory citing ``source_ids``; the sources archived: ``{"merged": ..., "archived": [...]}``."""
        ids = input_validation.ids(source_ids, "source_ids")
        if not ids or len(ids) > MAX_SOURCES:
            raise InvalidInput(f"source_ids has {len(ids)} ids: pass 1 to {MAX_SOURCES} ids of the memories to merge")
        content = input_validation.text(content, "merged_content", input_validation.MAX_CONTENT_CHARS, required=True)
        request = mem_pb.ConsolidateRequest(
            scope=caller.scope,
            source_ids=ids,
            content=content,
            collection=collection or "",
            tags=input_validation.tags(tags),
            importance=input_validation.unit(importance, "importance"),
            confidence=input_validation.unit(confidence, "confidence"),
            reason=input_validation.text(reason, "reason", input_validation.MAX_REASON_CHARS),
        )
        reply: mem_pb.ConsolidateResponse = await self.rpc.unary(
            "memory", self.rpc.memory(caller.user).Consolidate, request
        )
        return Consolidation(merged=Memory.from_proto(reply.merged), archived=memories_of(reply.archived))

    async def undo_consolidation(self, caller: Caller, *, id: str) -> Consolidation:
        """Reverse a consolidation (or an automatic supersede): ``{"restored": [...], "merged": ...}``."""
        request = mem_pb.UndoConsolidationRequest(scope=caller.scope, id=input_validation.memory_id(id, "undo"))
        reply: mem_pb.UndoConsolidationResponse = await self.rpc.unary(
            "memory", self.rpc.memory(caller.user).UndoConsolidation, request
        )
        return Consolidation(merged=Memory.from_proto(reply.merged), restored=memories_of(reply.restored))
