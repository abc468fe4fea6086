"""Consolidation through the gateway: candidates, merge, undo (the MCP tools and REST use these).

A mixin of ``Operations`` (it relies on ``scopes`` and ``_opts`` there), like
``AdminOperations``. mnemex runs no model: ``consolidation_candidates`` shows
the assistant what needs a decision, ``consolidate`` applies the decision the
assistant wrote, ``undo_consolidation`` reverses it. The memory service does
the work (``services/memory/api/consolidation.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gateway import convert, validation
from gateway.errors import InvalidInput
from gateway.rpc import call
from protos.mnemex.common.v1 import common_pb2 as common_pb
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb

if TYPE_CHECKING:
    from gateway.backends import Backends

JSON = dict[str, Any]
KINDS = ("duplicate", "contradiction", "stale")
MAX_CLUSTERS = 50
MAX_SOURCES = 20


class ConsolidationOperations:
    if TYPE_CHECKING:  # provided by Operations
        backends: Backends

        def scopes(self, cwd: str | None) -> tuple[common_pb.Scope, common_pb.Scope]: ...
        def _opts(self, timeout: float | None = None) -> dict[str, Any]: ...

    async def consolidation_candidates(
        self, *, cwd: str | None, kinds: Sequence[str] | None = None, limit: int = 10
    ) -> JSON:
        """Clusters that need a decision: ``{"clusters": [{kind, reason, similarity, memories}], "scanned": n}``."""
        chosen = [k for k in kinds or () if k]
        unknown = [k for k in chosen if k not in KINDS]
        if unknown:
            raise InvalidInput(f"unknown kind(s) {unknown}: use any of {', '.join(KINDS)}, or leave kinds out")
        validation.in_range(limit, "limit", (1, MAX_CLUSTERS))
        request = mem_pb.FindConsolidationCandidatesRequest(scope=self.scopes(cwd)[0], kinds=chosen, limit=limit)
        reply = await call("memory", self.backends.memory.FindConsolidationCandidates(request, **self._opts()))
        clusters = [
            {
                "kind": c.kind,
                "reason": c.reason,
                "similarity": c.similarity if c.HasField("similarity") else None,
                "memories": convert.memories_to_dicts(c.memories),
            }
            for c in reply.clusters
        ]
        return {"clusters": clusters, "scanned": reply.scanned}

    async def consolidate(
        self,
        *,
        cwd: str | None,
        source_ids: Sequence[str],
        content: str,
        collection: str | None = None,
        tags: Sequence[str] = (),
        importance: float | None = None,
        confidence: float | None = None,
        reason: str = "",
    ) -> JSON:
        """One merged memory citing ``source_ids``; the sources archived: ``{"merged": ..., "archived": [...]}``."""
        ids = validation.ids(source_ids, "source_ids")
        if not ids or len(ids) > MAX_SOURCES:
            raise InvalidInput(f"source_ids has {len(ids)} ids: pass 1 to {MAX_SOURCES} ids of the memories to merge")
        content = validation.text(content, "merged_content", validation.MAX_CONTENT_CHARS, required=True)
        request = mem_pb.ConsolidateRequest(
            scope=self.scopes(cwd)[0],
            source_ids=ids,
            content=content,
            collection=collection or "",
            tags=validation.tags(tags),
            importance=validation.unit(importance, "importance"),
            confidence=validation.unit(confidence, "confidence"),
            reason=validation.text(reason, "reason", validation.MAX_REASON_CHARS),
        )
        reply = await call("memory", self.backends.memory.Consolidate(request, **self._opts()))
        return {"merged": convert.memory_to_dict(reply.merged), "archived": convert.memories_to_dicts(reply.archived)}

    async def undo_consolidation(self, *, cwd: str | None, id: str) -> JSON:
        """Reverse a merge (or an automatic supersede): ``{"restored": [...], "merged": ...}``."""
        request = mem_pb.UndoConsolidationRequest(scope=self.scopes(cwd)[0], id=validation.memory_id(id, "undo"))
        reply = await call("memory", self.backends.memory.UndoConsolidation(request, **self._opts()))
        return {"restored": convert.memories_to_dicts(reply.restored), "merged": convert.memory_to_dict(reply.merged)}
