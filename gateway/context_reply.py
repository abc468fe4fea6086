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
from kernel.context_choice import PLACES, ContextChoice, RankParts
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


def rank_parts_of(parts: mem_pb.RankParts) -> RankParts:
    """A kept line's rank parts as PrepareContext sent them, to the places a turn's record keeps."""
    return RankParts(
        parts.dense,
        parts.lexical,
        parts.session_context,
        parts.relevance,
        parts.kg_weight,
        parts.learned,
        parts.final,
        parts.kg_linked,
    ).rounded()


def choice_of(choice: mem_pb.ContextChoice) -> ContextChoice:
    """One of PrepareContext's choices (``kernel.context_choice``, the record the turn keeps too)."""
    return ContextChoice(
        choice.id,
        choice.kept,
        choice.reason,
        tuple(choice.merged_ids),
        round(choice.relevance, PLACES),
        rank_parts_of(choice.parts) if choice.HasField("parts") else None,
    )


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
