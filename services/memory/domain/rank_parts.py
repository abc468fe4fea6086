"""What made one search result's rank: the parts the ranking computed anyway, kept for the few injected.

Pure module. The prompt path (``retrieval.column_ranking``) fills a ``RankParts``
only for the results it returns (the handful a prompt injects), from values it
already holds; ``context_selection`` copies them into each ``Choice`` so the
viewer can say why a memory was shown, as it was decided at the time.

- ``dense``: cosine of the memory to the prompt;
- ``lexical``: its BM25 score as a share of the best lexical hit (0: not a keyword hit);
- ``session_context``: the factor its session neighbours and peers raised relevance by (1: none);
- ``relevance``: the hybrid relevance after session context;
- ``kg_weight``: the collection weight the knowledge graph's routing gave (1: neutral);
- ``kg_linked``: the kg tied it to the prompt's entities (fetched by id, not by search);
- ``learned``: the learned score from outcomes (trust);
- ``final``: the final rank, the order the results were injected in.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RankParts:
    dense: float
    lexical: float
    session_context: float
    relevance: float
    kg_weight: float
    kg_linked: bool
    learned: float
    final: float

    def as_dict(self) -> dict[str, float | bool]:
        """The parts by name (``dataclasses.asdict`` copies deeply and costs ten times as much)."""
        return {
            "dense": self.dense,
            "lexical": self.lexical,
            "session_context": self.session_context,
            "relevance": self.relevance,
            "kg_weight": self.kg_weight,
            "kg_linked": self.kg_linked,
            "learned": self.learned,
            "final": self.final,
        }

    def rounded(self) -> RankParts:
        """The parts with numbers to 4 places (what a turn's record keeps and the reply carries)."""
        return RankParts(
            dense=round(self.dense, 4),
            lexical=round(self.lexical, 4),
            session_context=round(self.session_context, 4),
            relevance=round(self.relevance, 4),
            kg_weight=round(self.kg_weight, 4),
            kg_linked=self.kg_linked,
            learned=round(self.learned, 4),
            final=round(self.final, 4),
        )
