"""Nodes and edges of a scope's graphs, for query_kg, /api/kg and a web view.

Without a focus, the view holds the highest-priority entities with the
edges among them plus the most used routing concepts and their
collections. With focus entities, it holds those entities, their direct
neighbours, and the routing facts for the same names.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from services.kg.graphs import ScopeGraphs
from services.kg.keys import concept_key
from services.kg.routing import COUNT_FIELDS, graded, success_rate


@dataclass(frozen=True)
class ViewNode:
    id: str
    kind: str
    label: str
    weight: float


@dataclass(frozen=True)
class ViewEdge:
    source: str
    target: str
    relation: str
    weight: float


@dataclass(frozen=True)
class GraphView:
    nodes: list[ViewNode]
    edges: list[ViewEdge]
    routing_json: str


def build_view(graphs: ScopeGraphs, focus: list[str], limit: int) -> GraphView:
    content = graphs.content
    cg = content.graph
    if focus:
        chosen: list[str] = []
        for name in focus:
            node = content.resolve(name)
            if node is not None:
                chosen.append(node)
                chosen.extend(cg.succ[node])
                chosen.extend(cg.pred[node])
    else:
        entities = [n for n, d in cg.nodes(data=True) if d.get("kind") == "entity"]
        entities.sort(key=lambda n: (-content.priority(n), -cg.nodes[n]["mentions"], n))
        chosen = entities
    content_nodes = list(dict.fromkeys(chosen))[: max(1, limit * 2 // 3)]
    keep = set(content_nodes)
    nodes = [
        ViewNode(
            n,
            content.kind(n),
            content.label(n),
            float(content.priority(n)) if cg.nodes[n].get("kind") == "entity" else 1.0,
        )
        for n in content_nodes
    ]
    edges = [
        ViewEdge(u, v, d["relation"], float(d.get("weight", 1.0)))
        for u, v, d in cg.edges(data=True)
        if u in keep and v in keep
    ]
    summary = graphs.routing.concept_summary(limit=limit)
    if focus:
        wanted = {concept_key(name) for name in focus}
        summary = {c: s for c, s in summary.items() if c in wanted}
    room = max(0, limit - len(nodes))
    rg = graphs.routing.graph
    collections_added: set[str] = set()
    for concept in list(summary)[: room // 2]:
        pnode = f"concept:{concept}"
        nodes.append(ViewNode(pnode, "concept", concept, float(summary[concept]["uses"])))
        for cnode, stats in rg.succ[pnode].items():
            if cnode not in collections_added:
                collections_added.add(cnode)
                totals = {k: rg.nodes[cnode].get(k, 0) for k in COUNT_FIELDS}
                nodes.append(
                    ViewNode(
                        cnode,
                        "collection",
                        cnode.removeprefix("collection:"),
                        round(success_rate(totals), 4) if graded(totals) else 0.5,
                    )
                )
            edges.append(ViewEdge(pnode, cnode, "routes_to", round(success_rate(stats), 4)))
    return GraphView(nodes, edges, json.dumps(summary, sort_keys=True))
