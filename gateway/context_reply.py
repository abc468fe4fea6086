"""get-context's reply, typed: what ``prompt_context.build`` made for a prompt, from KNOWN CONTEXT to timings.

Frozen dataclasses, made once where PrepareContext's reply arrives (``prompt_context``) and read as
they are by the hook service, the viewer's preview and its injection story; only the edges (the
hook route, the activity feed) turn them into JSON through ``to_json``, whose keys and their order are
the ones the hooks have always read (``gateway.reply_models.ContextOut`` describes them).

Imports only generated protobuf modules, ``gateway.replies`` and ``kernel.json_values`` (no grpc runtime,
no fastapi).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from gateway.replies.kg_replies import KgRoute
from gateway.replies.memory_replies import Memory, memories_json
from gateway.replies.reply_json import JsonObject
from kernel.json_values import bool_at, float_at, object_at, str_at, strs_at
from protos.mnemex.memory.v1 import memory_service_pb2 as mem_pb


@dataclass(frozen=True, slots=True)
class Lesson:
    """One memory that worked (``kind`` "solution") or failed ("failure") for a matching problem, or an
    episode's fix or failed attempt (the kg's own text: no memory ``id``)."""

    id: str
    content: str
    collection: str
    kind: str
    worked: int
    failed: int
    uses: int
    exchange: bool = False  # a stored exchange (the turn itself), shown after other memories
    # The project a lesson from the kg's episodes was learned in, when it is not this one ("" = here).
    project: str = ""
    doc_id: str = ""  # an episode's fix: the exchange it came from (it may be gone since)
    why: str = ""  # an episode lesson: what made the prompt that problem (the kg's judge)

    def to_json(self) -> JsonObject:
        return {
            "id": self.id,
            "content": self.content,
            "collection": self.collection,
            "kind": self.kind,
            "worked": self.worked,
            "failed": self.failed,
            "uses": self.uses,
            "project": self.project,
            "why": self.why,
        }


RANK_NUMBERS = ("dense", "lexical", "session_context", "relevance", "kg_weight", "learned", "final")


@dataclass(frozen=True, slots=True)
class RankParts:
    """What made an injected memory's rank: the same rounded numbers the turn record keeps."""

    dense: float = 0.0
    lexical: float = 0.0
    session_context: float = 0.0
    relevance: float = 0.0
    kg_weight: float = 0.0
    learned: float = 0.0
    final: float = 0.0
    kg_linked: bool = False

    @classmethod
    def from_proto(cls, parts: mem_pb.RankParts) -> RankParts:
        return cls(
            dense=round(parts.dense, 4),
            lexical=round(parts.lexical, 4),
            session_context=round(parts.session_context, 4),
            relevance=round(parts.relevance, 4),
            kg_weight=round(parts.kg_weight, 4),
            learned=round(parts.learned, 4),
            final=round(parts.final, 4),
            kg_linked=parts.kg_linked,
        )

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> RankParts:
        return cls(
            dense=float_at(obj, "dense"),
            lexical=float_at(obj, "lexical"),
            session_context=float_at(obj, "session_context"),
            relevance=float_at(obj, "relevance"),
            kg_weight=float_at(obj, "kg_weight"),
            learned=float_at(obj, "learned"),
            final=float_at(obj, "final"),
            kg_linked=bool_at(obj, "kg_linked"),
        )

    def to_json(self) -> JsonObject:
        return {
            "dense": self.dense,
            "lexical": self.lexical,
            "session_context": self.session_context,
            "relevance": self.relevance,
            "kg_weight": self.kg_weight,
            "learned": self.learned,
            "final": self.final,
            "kg_linked": self.kg_linked,
        }


@dataclass(frozen=True, slots=True)
class ContextChoice:
    """Why PrepareContext kept or left out one search result (``reason``; ``merged_ids``: the copies
    folded into it, or the line it copies), with its similarity to the prompt (``relevance``)."""

    id: str
    kept: bool
    reason: str = ""
    merged_ids: tuple[str, ...] = ()
    relevance: float = 0.0
    parts: RankParts | None = None

    @classmethod
    def from_proto(cls, choice: mem_pb.ContextChoice) -> ContextChoice:
        return cls(
            id=choice.id,
            kept=choice.kept,
            reason=choice.reason,
            merged_ids=tuple(choice.merged_ids),
            relevance=round(choice.relevance, 4),
            parts=RankParts.from_proto(choice.parts) if choice.HasField("parts") else None,
        )

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> ContextChoice:
        """A choice as a turn record keeps it (``to_json``'s shape); a missing or mistyped field reads as
        its default."""
        parts = obj.get("parts")
        return cls(
            id=str_at(obj, "id"),
            kept=bool_at(obj, "kept"),
            reason=str_at(obj, "reason"),
            merged_ids=tuple(strs_at(obj, "merged_ids")),
            relevance=float_at(obj, "relevance"),
            parts=RankParts.from_json(object_at(obj, "parts")) if isinstance(parts, dict) else None,
        )

    def to_json(self) -> JsonObject:
        return {
            "id": self.id,
            "kept": self.kept,
            "reason": self.reason,
            "merged_ids": list(self.merged_ids),
            "relevance": self.relevance,
            "parts": self.parts.to_json() if self.parts is not None else None,
        }


@dataclass(frozen=True, slots=True)
class ContextTokens:
    """What the block and the whole injection cost the model, in tokens (characters / 4)."""

    known_context: int = 0
    context: int = 0

    def to_json(self) -> JsonObject:
        return {"known_context": self.known_context, "context": self.context}


@dataclass(frozen=True, slots=True)
class ContextReply:
    """KNOWN CONTEXT for a prompt (``context``: what the hook prints, the scoring prompt first), and what
    it was made of; a backend that failed is named in ``degraded``."""

    context: str = ""
    known_context: str = ""
    tokens: ContextTokens = ContextTokens()
    memories: tuple[Memory, ...] = ()  # the memories the search kept, best first
    choices: tuple[ContextChoice, ...] = ()  # each search result kept or left out, and why
    lessons: tuple[Lesson, ...] = ()
    scoring_required: bool = False
    scoring_ids: tuple[str, ...] = ()  # the memories of the last turn to score, when scoring is owed
    scoring_prompt: str = ""
    routing: KgRoute = field(default_factory=KgRoute)  # the kg gave no route
    degraded: tuple[str, ...] = ()
    timings_ms: Mapping[str, float] | None = None  # per backend call, and "total"

    @classmethod
    def empty(cls, degraded: tuple[str, ...]) -> ContextReply:
        """No context at all (the pipeline ran out of time, say): nothing to show, no timings."""
        return cls(degraded=degraded)

    def to_json(self) -> JsonObject:
        return {
            "context": self.context,
            "known_context": self.known_context,
            "tokens": self.tokens.to_json(),
            "memories": memories_json(self.memories),
            "choices": [c.to_json() for c in self.choices],
            "lessons": [x.to_json() for x in self.lessons],
            "scoring_required": self.scoring_required,
            "scoring_ids": list(self.scoring_ids),
            "scoring_prompt": self.scoring_prompt,
            "routing": self.routing.to_json(),
            "degraded": list(self.degraded),
            "timings_ms": dict(self.timings_ms or {}),
        }
