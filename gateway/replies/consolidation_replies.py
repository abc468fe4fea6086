"""Consolidation: the clusters of memories that need one decision, and a merge or its undo."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.replies.memory_replies import Memory, memories_json
from gateway.replies.reply_json import JsonObject


@dataclass(frozen=True, slots=True)
class Cluster:
    """Memories that need one decision: a contradiction, near-duplicates or stale entries."""

    kind: str
    reason: str
    similarity: float | None  # the lowest cosine among the grouped pairs
    memories: tuple[Memory, ...]

    def to_json(self) -> JsonObject:
        return {
            "kind": self.kind,
            "reason": self.reason,
            "similarity": self.similarity,
            "memories": memories_json(self.memories),
        }


@dataclass(frozen=True, slots=True)
class Candidates:
    clusters: tuple[Cluster, ...]
    scanned: int  # active memories examined

    def to_json(self) -> JsonObject:
        return {"clusters": [c.to_json() for c in self.clusters], "scanned": self.scanned}


@dataclass(frozen=True, slots=True)
class Consolidation:
    """A merge (``archived``: its sources) or its undo (``restored``: the sources back; ``merged`` archived)."""

    merged: Memory
    archived: tuple[Memory, ...] = ()
    restored: tuple[Memory, ...] | None = None

    def to_json(self) -> JsonObject:
        if self.restored is not None:
            return {"restored": memories_json(self.restored), "merged": self.merged.to_json()}
        return {"merged": self.merged.to_json(), "archived": memories_json(self.archived)}
