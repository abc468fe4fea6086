"""Routing graph: concept -> collection edges carrying outcome counts.

``route`` turns the counts behind a prompt's concepts into per-collection
multipliers around 1.0. Each concept contributes the log-odds of success
for a collection, (worked + partial/2 + 1) / (failed + partial/2 + 1), so a
concept with balanced outcomes adds nothing and a concept that kept
working adds a lot. The sum is damped by sqrt(#concepts), since the
concepts of one prompt were taught by the same outcomes, and squashed with
tanh into (1 - MAX_SWING, 1 + MAX_SWING). With no counts at all for the
concepts there is no preference: empty weights, never an invented one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypedDict

import networkx as nx

from kernel.json_values import JSONObject
from services.kg.json_fields import obj, to_float, to_int
from services.kg.keys import Outcome

MAX_SWING = 0.5  # weights stay within (0.5, 1.5)
EVIDENCE_HALF = 4.0  # confidence is 0.5 at this many graded outcomes per concept
MAX_RECOMMENDED = 3
COUNT_FIELDS = ("worked", "partial", "unknown", "failed")


def concept_node(concept: str) -> str:
    return f"concept:{concept}"


def collection_node(collection: str) -> str:
    return f"collection:{collection}"


Counts = Mapping[str, float]  # outcome counts by COUNT_FIELDS name (an edge's data holds them, and more)


class ConceptSummary(TypedDict):
    best_collection: str
    success_rate: float
    uses: int
    collections: dict[str, dict[str, int]]


def graded(stats: Counts) -> int:
    """Outcomes that say something about success (unknown does not)."""
    return int(stats.get("worked", 0) + stats.get("partial", 0) + stats.get("failed", 0))


def success_rate(stats: Counts) -> float:
    n = graded(stats)
    return (stats.get("worked", 0) + 0.5 * stats.get("partial", 0)) / n if n else 0.5


def log_odds(stats: Counts) -> float:
    half = 0.5 * stats.get("partial", 0)
    return math.log((stats.get("worked", 0) + half + 1.0) / (stats.get("failed", 0) + half + 1.0))


def _counts_of(stats: JSONObject) -> dict[str, int]:
    """The outcome counts of an exported edge (``int`` of each, a missing one 0)."""
    return {name: to_int(stats.get(name, 0)) for name in COUNT_FIELDS}


@dataclass(frozen=True)
class RouteAnswer:
    weights: dict[str, float] = field(default_factory=dict)
    recommended: list[str] = field(default_factory=list)
    confidence: float = 0.0
    has_preference: bool = False


class RoutingGraph:
    def __init__(self) -> None:
        self.graph = nx.DiGraph()

    def record(self, concepts: list[str], collections: list[str], outcome: Outcome, ts: float) -> None:
        field_name = outcome.value
        for collection in dict.fromkeys(collections):
            cnode = collection_node(collection)
            if cnode not in self.graph:
                self.graph.add_node(cnode, kind="collection", name=collection, **dict.fromkeys(COUNT_FIELDS, 0))
            self.graph.nodes[cnode][field_name] += 1
            for concept in dict.fromkeys(concepts):
                self.add_counts(concept, collection, {field_name: 1}, ts)

    def add_counts(self, concept: str, collection: str, counts: dict[str, int], ts: float) -> None:
        pnode, cnode = concept_node(concept), collection_node(collection)
        if pnode not in self.graph:
            self.graph.add_node(pnode, kind="concept", name=concept)
        if cnode not in self.graph:
            self.graph.add_node(cnode, kind="collection", name=collection, **dict.fromkeys(COUNT_FIELDS, 0))
        if not self.graph.has_edge(pnode, cnode):
            self.graph.add_edge(pnode, cnode, relation="routes_to", last=ts, **dict.fromkeys(COUNT_FIELDS, 0))
        edge = self.graph.edges[pnode, cnode]
        for name in COUNT_FIELDS:
            edge[name] += int(counts.get(name, 0))
        edge["last"] = max(edge.get("last", 0.0), ts)

    def route(self, concepts: list[str]) -> RouteAnswer:
        succ = self.graph.succ
        evidence: dict[str, float] = {}
        matched = 0
        graded_total = 0
        for concept in dict.fromkeys(concepts):
            edges = succ.get(concept_node(concept))
            if not edges:
                continue
            counted = False
            for cnode, stats in edges.items():
                n = graded(stats)
                if n == 0:
                    continue
                counted = True
                graded_total += n
                name = cnode.removeprefix("collection:")
                evidence[name] = evidence.get(name, 0.0) + log_odds(stats)
            matched += counted
        if not matched:
            return RouteAnswer()
        damp = math.sqrt(matched)
        weights = {name: round(1.0 + MAX_SWING * math.tanh(total / damp / 2.0), 4) for name, total in evidence.items()}
        per_concept = graded_total / matched
        confidence = round(per_concept / (per_concept + EVIDENCE_HALF), 4)
        better = sorted((w, name) for name, w in weights.items() if w > 1.0)
        recommended = [name for _, name in sorted(better, key=lambda p: (-p[0], p[1]))][:MAX_RECOMMENDED]
        return RouteAnswer(weights, recommended, confidence, True)

    def concept_summary(self, limit: int = 500) -> dict[str, ConceptSummary]:
        """concept -> best collection, its success rate and per-collection counts."""
        summary: dict[str, ConceptSummary] = {}
        for pnode, data in self.graph.nodes(data=True):
            if data.get("kind") != "concept":
                continue
            collections = {
                c.removeprefix("collection:"): {k: stats[k] for k in COUNT_FIELDS}
                for c, stats in self.graph.succ[pnode].items()
            }
            if not collections:
                continue
            best = max(collections, key=lambda c: (log_odds(collections[c]), graded(collections[c]), c))
            summary[data["name"]] = {
                "best_collection": best,
                "success_rate": round(success_rate(collections[best]), 4),
                "uses": sum(graded(s) + s["unknown"] for s in collections.values()),
                "collections": collections,
            }
        ranked = sorted(summary.items(), key=lambda item: -item[1]["uses"])[:limit]
        return dict(ranked)

    def to_json(self) -> JSONObject:
        edges: dict[str, JSONObject] = {}
        for pnode, cnode, stats in self.graph.edges(data=True):
            concept = pnode.removeprefix("concept:")
            edges.setdefault(concept, {})[cnode.removeprefix("collection:")] = {
                **{k: stats[k] for k in COUNT_FIELDS},
                "last": stats.get("last", 0.0),
            }
        collections: JSONObject = {
            data["name"]: {k: data.get(k, 0) for k in COUNT_FIELDS}
            for _, data in self.graph.nodes(data=True)
            if data.get("kind") == "collection"
        }
        return {"concepts": dict(edges), "collections": collections}

    def load_json(self, data: JSONObject) -> None:
        for concept, per_collection in obj(data.get("concepts", {})).items():
            for collection, stats in obj(per_collection).items():
                counts = obj(stats)
                self.add_counts(concept, collection, _counts_of(counts), to_float(counts.get("last", 0.0)))
        for collection, stats in obj(data.get("collections", {})).items():
            counts = obj(stats)
            cnode = collection_node(collection)
            if cnode not in self.graph:
                self.graph.add_node(cnode, kind="collection", name=collection, **dict.fromkeys(COUNT_FIELDS, 0))
            for name in COUNT_FIELDS:
                self.graph.nodes[cnode][name] += to_int(counts.get(name, 0))

    def counts(self) -> dict[str, int]:
        kinds = [d.get("kind") for _, d in self.graph.nodes(data=True)]
        return {
            "concepts": kinds.count("concept"),
            "collections": kinds.count("collection"),
            "routing_edges": self.graph.number_of_edges(),
        }
