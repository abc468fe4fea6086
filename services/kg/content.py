"""Content graph: entities <-> memory_bank facts, entities <-> entities.

Every entity-entity edge remembers which facts support it, so removing a
fact removes exactly its references: edges left with no support and
entities left with no edges disappear too (no dangling references).
Entity priority follows Memorable's 1-10 scale: a base by type, raised by
how many facts mention the entity.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import networkx as nx

from kernel.json_values import JSONArray, JSONObject, JSONValue
from services.kg.json_fields import arr, obj, text
from services.kg.keys import Relation, entity_key

MAX_PAIR_ENTITIES = 12  # co-occurrence edges among the first N entities of a fact
TYPE_PRIORITY = {"name": 6, "library": 5, "tool": 5, "error": 5, "identifier": 4, "path": 4, "term": 4}
MIN_ACTIVATION = 0.01
MAX_VISITS = 5000


def entity_node(key: str) -> str:
    return f"entity:{key}"


def fact_node(fact_id: str) -> str:
    return f"fact:{fact_id}"


@dataclass
class _FactScore:
    """A fact's summed entity weights, and its strongest entity (by weight)."""

    total: float = 0.0
    entity: str = ""
    best_weight: float = 0.0


class ContentGraph:
    def __init__(self) -> None:
        self.graph = nx.DiGraph()

    # -- writes ---------------------------------------------------------
    def index_fact(
        self, fact_id: str, entities: list[tuple[str, str]], relations: list[Relation], *, with_pairs: bool = True
    ) -> None:
        self.remove_fact(fact_id)
        fnode = fact_node(fact_id)
        self.graph.add_node(fnode, kind="fact", name=fact_id)
        keys: list[str] = []
        for name, type_ in entities:
            key = entity_key(name)
            node = entity_node(key)
            if node not in self.graph:
                self.graph.add_node(node, kind="entity", name=name, type=type_, mentions=0)
            if not self.graph.has_edge(node, fnode):
                self.graph.add_edge(node, fnode, relation="mentions", weight=1.0)
                self.graph.nodes[node]["mentions"] += 1
                keys.append(key)
        typed: set[frozenset[str]] = set()
        for rel in relations:
            if rel.source in keys and rel.target in keys and rel.source != rel.target:
                self._support(rel.source, rel.target, rel.relation, fact_id)
                typed.add(frozenset((rel.source, rel.target)))
        head = keys[:MAX_PAIR_ENTITIES] if with_pairs else []
        for i, a in enumerate(head):
            for b in head[i + 1 :]:
                if frozenset((a, b)) not in typed:
                    self._support(min(a, b), max(a, b), "co_occurs", fact_id)

    def _support(self, source: str, target: str, relation: str, fact_id: str) -> None:
        u, v = entity_node(source), entity_node(target)
        if not self.graph.has_edge(u, v):
            self.graph.add_edge(u, v, relation=relation, weight=0.0, facts=set())
        edge = self.graph.edges[u, v]
        if edge["relation"] == "co_occurs" and relation != "co_occurs":
            edge["relation"] = relation  # a typed cue beats plain co-occurrence
        if fact_id not in edge["facts"]:
            edge["facts"].add(fact_id)
            edge["weight"] = float(len(edge["facts"]))

    def remove_fact(self, fact_id: str) -> int:
        fnode = fact_node(fact_id)
        if fnode not in self.graph:
            return 0
        mentioned = list(self.graph.predecessors(fnode))
        removed = len(mentioned)
        for node in mentioned:
            self.graph.nodes[node]["mentions"] -= 1
        self.graph.remove_node(fnode)
        # Entity-entity support only ever comes from entities the fact mentioned.
        for u in mentioned:
            for v in list(self.graph.succ[u]):
                edge = self.graph.edges[u, v]
                if fact_id in edge.get("facts", ()):
                    edge["facts"].discard(fact_id)
                    removed += 1
                    if edge["facts"]:
                        edge["weight"] = float(len(edge["facts"]))
                    else:
                        self.graph.remove_edge(u, v)
        for node in mentioned:
            if node in self.graph and self.graph.degree(node) == 0:
                self.graph.remove_node(node)
        return removed

    # -- reads ----------------------------------------------------------
    def priority(self, node: str) -> int:
        data = self.graph.nodes[node]
        base = TYPE_PRIORITY.get(data.get("type", ""), 3)
        return int(min(9, base + math.floor(math.log2(1 + data.get("mentions", 0)))))

    def resolve(self, name: str) -> str | None:
        for node in (entity_node(entity_key(name)), entity_node(entity_key(name.replace("_", " "))), fact_node(name)):
            if node in self.graph:
                return node
        return None

    def label(self, node: str) -> str:
        return str(self.graph.nodes[node].get("name", node))

    def facts_for_entities(self, names: list[str], limit: int) -> list[tuple[str, str, float]]:
        """(fact_id, strongest entity, weight); specific entities weigh more."""
        scores: dict[str, _FactScore] = {}
        for name in dict.fromkeys(names):
            node = entity_node(entity_key(name))
            if node not in self.graph:
                continue
            facts = [f for f in self.graph.succ[node] if self.graph.nodes[f].get("kind") == "fact"]
            weight = 1.0 / math.log2(2 + len(facts))
            for fnode in facts:
                entry = scores.setdefault(fnode, _FactScore())
                entry.total += weight
                if weight > entry.best_weight:
                    entry.entity, entry.best_weight = self.label(node), weight
        ranked = sorted(scores.items(), key=lambda item: (-item[1].total, item[0]))[:limit]
        return [(self.label(f), score.entity, round(score.total, 4)) for f, score in ranked]

    def neighbors(self, name: str, limit: int) -> list[tuple[str, str, str, float]]:
        node = self.resolve(name)
        if node is None:
            return []
        edges = [(node, v, d) for v, d in self.graph.succ[node].items()]
        edges += [(u, node, d) for u, d in self.graph.pred[node].items()]
        edges.sort(key=lambda e: (-e[2].get("weight", 1.0), e[0], e[1]))
        return [(self.label(u), self.label(v), d["relation"], float(d.get("weight", 1.0))) for u, v, d in edges[:limit]]

    def traverse(self, seeds: list[str], max_depth: int, decay: float, limit: int) -> list[tuple[str, float, str]]:
        """Spreading activation: each hop passes on activation * decay, split
        by edge weight relative to the node's strongest edge."""
        activation: dict[str, float] = {}
        frontier: dict[str, float] = {}
        for seed in seeds:
            node = self.resolve(seed)
            if node is not None:
                activation[node] = frontier[node] = 1.0
        seed_nodes = set(frontier)
        visits = 0
        for _ in range(max_depth):
            spread: dict[str, float] = {}
            for node, energy in frontier.items():
                neighbours = {**{u: d for u, d in self.graph.pred[node].items()}, **self.graph.succ[node]}
                if not neighbours:
                    continue
                strongest = max(d.get("weight", 1.0) for d in neighbours.values())
                for other, data in neighbours.items():
                    visits += 1
                    amount = energy * decay * data.get("weight", 1.0) / strongest
                    if amount >= MIN_ACTIVATION:
                        spread[other] = spread.get(other, 0.0) + amount
                if visits > MAX_VISITS:
                    break
            frontier = {}
            for node, amount in spread.items():
                new = min(1.0, activation.get(node, 0.0) + amount)
                if new > activation.get(node, 0.0) + 1e-9:
                    activation[node] = new
                    frontier[node] = amount
            if not frontier or visits > MAX_VISITS:
                break
        ranked = sorted(((n, a) for n, a in activation.items() if n not in seed_nodes), key=lambda p: (-p[1], p[0]))[
            :limit
        ]
        return [(self.label(n), round(a, 4), self.kind(n)) for n, a in ranked]

    def kind(self, node: str) -> str:
        data = self.graph.nodes[node]
        return "fact" if data.get("kind") == "fact" else str(data.get("type", "entity"))

    def doc_ids(self) -> set[str]:
        return {str(d["name"]) for _, d in self.graph.nodes(data=True) if d.get("kind") == "fact"}

    # -- persistence ------------------------------------------------------
    def to_json(self) -> JSONObject:
        facts: dict[str, JSONValue] = {}
        for u, v, d in self.graph.edges(data=True):
            if d["relation"] == "mentions":
                ent = self.graph.nodes[u]
                arr(facts.setdefault(self.label(v), [])).append([ent["name"], ent["type"]])
        relations: JSONArray = [
            [self.label(u), self.label(v), d["relation"], sorted(d["facts"])]
            for u, v, d in self.graph.edges(data=True)
            if d["relation"] != "mentions"
        ]
        return {"facts": facts, "relations": relations}

    def load_json(self, data: JSONObject) -> None:
        for fact_id, entities in obj(data.get("facts", {})).items():
            pairs = [arr(pair) for pair in arr(entities)]
            self.index_fact(fact_id, [(str(n), str(t)) for n, t in pairs], [], with_pairs=False)
        for item in arr(data.get("relations", [])):
            source_, target_, relation_, fact_ids = arr(item)
            source, target, relation = text(source_), text(target_), text(relation_)
            u, v = entity_node(entity_key(source)), entity_node(entity_key(target))
            if u not in self.graph or v not in self.graph:
                continue
            for supporting in arr(fact_ids):
                self._support(entity_key(source), entity_key(target), relation, str(supporting))

    def counts(self) -> dict[str, int]:
        kinds = [d.get("kind") for _, d in self.graph.nodes(data=True)]
        mentions = sum(1 for _, _, d in self.graph.edges(data=True) if d["relation"] == "mentions")
        return {
            "entities": kinds.count("entity"),
            "facts": kinds.count("fact"),
            "fact_links": mentions,
            "entity_edges": self.graph.number_of_edges() - mentions,
        }
