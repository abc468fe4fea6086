"""Why one search result was injected into a prompt or left out: the record both sides of the wire share.

Pure module. The memory service decides each ``ContextChoice`` (``services.memory.domain.context_selection``),
keeps the list with the turn as JSON (``to_json``) and sends it in PrepareContext's reply; the gateway
reads it back from that reply or from a turn's record (``from_json``) for the hook reply, the viewer's
session page and its preview. One definition, so the JSON the memory service writes is the JSON the
gateway reads.

``RankParts``, kept for injected lines only, is what made the rank:

- ``dense``: cosine of the memory to the prompt;
- ``lexical``: its BM25 score as a share of the best lexical hit (0: not a keyword hit);
- ``session_context``: the factor its session neighbours and peers raised relevance by (1: none);
- ``relevance``: the hybrid relevance after session context;
- ``kg_weight``: the collection weight the knowledge graph's routing gave (1: neutral);
- ``learned``: the learned score from outcomes (trust);
- ``final``: the final rank, the order the results were injected in;
- ``kg_linked``: the kg tied it to the prompt's entities (fetched by id, not by search).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kernel.json_values import JSONObject, bool_at, float_at, object_at, str_at, strs_at

PLACES = 4  # what a turn's record keeps and the reply carries


@dataclass(frozen=True, slots=True)
class RankParts:
    dense: float = 0.0
    lexical: float = 0.0
    session_context: float = 0.0
    relevance: float = 0.0
    kg_weight: float = 0.0
    learned: float = 0.0
    final: float = 0.0
    kg_linked: bool = False

    def rounded(self) -> RankParts:
        """The numbers to ``PLACES`` places."""
        return RankParts(
            round(self.dense, PLACES),
            round(self.lexical, PLACES),
            round(self.session_context, PLACES),
            round(self.relevance, PLACES),
            round(self.kg_weight, PLACES),
            round(self.learned, PLACES),
            round(self.final, PLACES),
            self.kg_linked,
        )

    def to_json(self) -> JSONObject:
        """The parts by name (``dataclasses.asdict`` copies deeply and costs ten times as much)."""
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

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> RankParts:
        """``to_json``'s shape; a missing or mistyped number reads as 0."""
        return cls(
            float_at(obj, "dense"),
            float_at(obj, "lexical"),
            float_at(obj, "session_context"),
            float_at(obj, "relevance"),
            float_at(obj, "kg_weight"),
            float_at(obj, "learned"),
            float_at(obj, "final"),
            bool_at(obj, "kg_linked"),
        )


@dataclass(frozen=True, slots=True)
class ContextChoice:
    """Kept or left out (``reason`` says why); ``merged_ids``: the copies folded into a kept line, or the
    line a left-out one copies; ``relevance``: its similarity to the prompt; ``parts``: kept lines only."""

    id: str
    kept: bool
    reason: str = ""
    merged_ids: tuple[str, ...] = ()
    relevance: float = 0.0
    parts: RankParts | None = None

    def to_json(self) -> JSONObject:
        return {
            "id": self.id,
            "kept": self.kept,
            "reason": self.reason,
            "merged_ids": list(self.merged_ids),
            "relevance": self.relevance,
            "parts": self.parts.to_json() if self.parts is not None else None,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, object]) -> ContextChoice:
        """A choice as a turn's record keeps it; a missing or mistyped field reads as its default."""
        parts = obj.get("parts")
        return cls(
            str_at(obj, "id"),
            bool_at(obj, "kept"),
            str_at(obj, "reason"),
            tuple(strs_at(obj, "merged_ids")),
            float_at(obj, "relevance"),
            RankParts.from_json(object_at(obj, "parts")) if isinstance(parts, dict) else None,
        )
