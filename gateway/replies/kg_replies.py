"""The kg's answers: its collection weights for a prompt (``KgRoute``) and its graph view (``KgGraph``)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from gateway.replies.reply_json import JsonObject
from protos.mnemex.kg.v1 import kg_service_pb2 as kg_pb


@dataclass(frozen=True, slots=True)
class KgRoute:
    """The kg's collection weights for a prompt's concepts (``available``: the kg answered), and the
    memory_bank facts its entities link to (``fact_ids``, where the recall looked them up)."""

    has_preference: bool = False
    weights: Mapping[str, float] | None = None
    recommended: tuple[str, ...] = ()
    confidence: float = 0.0
    concepts: tuple[str, ...] = ()
    context_type: str = ""
    available: bool = False
    fact_ids: tuple[str, ...] | None = None

    @classmethod
    def from_proto(
        cls,
        reply: kg_pb.RouteResponse | None,
        concepts: Iterable[str] = (),
        context_type: str = "",
        fact_ids: Iterable[str] | None = None,
    ) -> KgRoute:
        facts = tuple(fact_ids) if fact_ids is not None else None
        if reply is None:
            return cls(concepts=tuple(concepts), context_type=context_type, fact_ids=facts)
        return cls(
            has_preference=reply.has_preference,
            weights={k: round(v, 4) for k, v in reply.weights.items()},
            recommended=tuple(reply.recommended),
            confidence=round(reply.confidence, 4),
            concepts=tuple(concepts),
            context_type=context_type,
            available=True,
            fact_ids=facts,
        )

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "has_preference": self.has_preference,
            "weights": dict(self.weights or {}),
            "recommended": list(self.recommended),
            "confidence": self.confidence,
            "concepts": list(self.concepts),
            "context_type": self.context_type,
            "available": self.available,
        }
        if self.fact_ids is not None:
            out["fact_ids"] = list(self.fact_ids)
        return out


@dataclass(frozen=True, slots=True)
class GraphNode:
    id: str
    kind: str
    label: str
    weight: float


@dataclass(frozen=True, slots=True)
class GraphEdge:
    source: str
    target: str
    relation: str
    weight: float


@dataclass(frozen=True, slots=True)
class KgGraph:
    """The kg's view: nodes, edges, and its routing summary (a JSON object the kg composes)."""

    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    routing: Mapping[str, object]

    @classmethod
    def from_proto(cls, reply: kg_pb.GraphResponse) -> KgGraph:
        routing: object
        try:
            routing = json.loads(reply.routing_json) if reply.routing_json else {}
        except ValueError:
            routing = {}
        return cls(
            nodes=tuple(GraphNode(n.id, n.kind, n.label, n.weight) for n in reply.nodes),
            edges=tuple(GraphEdge(e.source, e.target, e.relation, e.weight) for e in reply.edges),
            routing=routing if isinstance(routing, dict) else {"facts": routing},
        )

    def to_json(self) -> JsonObject:
        return {
            "nodes": [{"id": n.id, "kind": n.kind, "label": n.label, "weight": n.weight} for n in self.nodes],
            "edges": [
                {"source": e.source, "target": e.target, "relation": e.relation, "weight": e.weight} for e in self.edges
            ],
            "routing": dict(self.routing),
        }
