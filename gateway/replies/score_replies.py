"""What scoring answers: what each score did to a memory (``ScoredMemory``) and what it taught the kg
(``Teaching``, with the problem ``Episode`` it recorded)."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.replies.reply_json import JsonObject
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb


@dataclass(frozen=True, slots=True)
class ScoredMemory:
    """What one score did to one memory."""

    id: str
    collection_before: str
    collection_after: str
    score_before: float
    score_after: float
    outcome: str
    transition: str
    new_id: str

    @classmethod
    def from_proto(cls, item: mem_pb.ScoredMemory, outcome: str) -> ScoredMemory:
        return cls(
            id=item.id,
            collection_before=item.collection_before,
            collection_after=item.collection_after,
            score_before=round(item.score_before, 4),
            score_after=round(item.score_after, 4),
            outcome=outcome,
            transition=item.transition,
            new_id=item.new_id,
        )

    def to_json(self) -> JsonObject:
        return {
            "id": self.id,
            "collection_before": self.collection_before,
            "collection_after": self.collection_after,
            "score_before": self.score_before,
            "score_after": self.score_after,
            "outcome": self.outcome,
            "transition": self.transition,
            "new_id": self.new_id,
        }


@dataclass(frozen=True, slots=True)
class Episode:
    problem: str
    status: str


@dataclass(frozen=True, slots=True)
class Teaching:
    """What a score taught the kg. ``error`` set: the kg could not be taught (its gRPC code)."""

    taught: bool
    concepts: tuple[str, ...]
    context_type: str = ""
    outcome_groups: int = 0
    episode: Episode | None = None
    error: str | None = None

    def to_json(self) -> JsonObject:
        if self.error is not None:
            return {"taught": False, "concepts": list(self.concepts), "error": self.error}
        episode = {"problem": self.episode.problem, "status": self.episode.status} if self.episode else None
        return {
            "taught": self.taught,
            "concepts": list(self.concepts),
            "context_type": self.context_type,
            "outcome_groups": self.outcome_groups,
            "episode": episode,
        }


@dataclass(frozen=True, slots=True)
class ScoreReply:
    scored: tuple[ScoredMemory, ...]
    not_found: tuple[str, ...]
    exchange_id: str
    kg: Teaching

    def to_json(self) -> JsonObject:
        return {
            "scored": [s.to_json() for s in self.scored],
            "not_found": list(self.not_found),
            "exchange_id": self.exchange_id,
            "kg": self.kg.to_json(),
        }
