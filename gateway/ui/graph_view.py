"""The knowledge-graph page's data: the kg service's view plus problem → solution links, as Cytoscape elements.

Three pictures in one graph, told apart by node kind:

- routing: concept → collection, each edge's label the success rate learned from outcomes;
- entities → facts: the top entities, their links, and the memory_bank facts they appear in;
- problem → solution: problems the kg saw solved, linked to the memories that solved them.

Plain functions over dicts; ``ViewerData`` does the RPCs.
"""

from __future__ import annotations

import json
from typing import Any

JSON = dict[str, Any]
MAX_PROBLEMS = 30
MAX_SOLUTIONS = 5
MAX_LABEL = 60
# Every other node kind of the kg view is an entity, kinded by its type (identifier, path, library, ...).
NOT_ENTITIES = frozenset({"concept", "collection", "fact", "problem", "solution"})


def short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"


def success_rate(stats: JSON) -> float:
    graded = sum(int(stats.get(k, 0)) for k in ("worked", "partial", "failed"))
    return (stats.get("worked", 0) + 0.5 * stats.get("partial", 0)) / graded if graded else 0.5


def problems_of(export_json: str) -> list[JSON]:
    """[{"signature", "text", "solutions": [{"id", "rate", "uses"}]}] from a kg export, most used first."""
    try:
        data = json.loads(export_json) if export_json else {}
    except ValueError:
        return []
    table = ((data.get("problems") or {}).get("problems") or {}) if isinstance(data, dict) else {}
    out: list[JSON] = []
    for signature, entry in table.items():
        if not isinstance(entry, dict):
            continue
        solutions: list[JSON] = [
            {
                "id": doc,
                "rate": round(success_rate(s), 2),
                "uses": sum(int(s.get(k, 0)) for k in ("worked", "partial", "unknown", "failed")),
            }
            for doc, s in (entry.get("solutions") or {}).items()
            if isinstance(s, dict)
        ]
        solutions.sort(key=lambda s: (-s["uses"], s["id"]))
        out.append(
            {"signature": str(signature), "text": str(entry.get("text", "")), "solutions": solutions[:MAX_SOLUTIONS]}
        )
    out.sort(key=lambda p: (-sum(s["uses"] for s in p["solutions"]), p["signature"]))
    return out[:MAX_PROBLEMS]


def routing_rows(routing: JSON) -> list[JSON]:
    rows = []
    for concept, entry in routing.items():
        if not isinstance(entry, dict):
            continue
        rows.append(
            {
                "concept": concept,
                "collection": entry.get("best_collection", ""),
                "rate": f"{float(entry.get('success_rate', 0.5)):.0%}",
                "uses": entry.get("uses", 0),
            }
        )
    return rows


def elements(base: JSON, focused: JSON, problems: list[JSON]) -> JSON:
    """Cytoscape nodes and edges (``{"nodes": [{"data": ...}], "edges": [...]}``), each node once."""
    nodes: dict[str, JSON] = {}
    edges: dict[tuple[str, str, str], JSON] = {}

    def node(node_id: str, kind: str, label: str, **extra: Any) -> None:
        nodes.setdefault(node_id, {"data": {"id": node_id, "kind": kind, "label": short(label), **extra}})

    def edge(source: str, target: str, relation: str, label: str = "") -> None:
        key = (source, target, relation)
        edges.setdefault(
            key,
            {
                "data": {
                    "id": f"e{len(edges)}",
                    "source": source,
                    "target": target,
                    "relation": relation,
                    "label": label,
                }
            },
        )

    for graph in (base, focused):
        for n in graph.get("nodes", []):
            extra = {"memory": n["id"].removeprefix("fact:")} if n["kind"] == "fact" else {}
            node(n["id"], n["kind"], n["label"] or n["id"], **extra)
        for e in graph.get("edges", []):
            label = f"{e['weight']:.0%}" if e["relation"] == "routes_to" else ""
            edge(e["source"], e["target"], e["relation"], label)
    for problem in problems:
        pid = f"problem:{problem['signature']}"
        node(pid, "problem", problem["text"] or problem["signature"])
        for solution in problem["solutions"]:
            sid = f"doc:{solution['id']}"
            node(sid, "solution", solution["id"], memory=solution["id"])
            edge(pid, sid, "solved_by", f"{solution['rate']:.0%}")
    live = set(nodes)
    return {
        "nodes": list(nodes.values()),
        "edges": [e for e in edges.values() if e["data"]["source"] in live and e["data"]["target"] in live],
    }
